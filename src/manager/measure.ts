import path from 'node:path';
import type { MeasuredFile } from '../domain/decide.js';
import type { Workspace } from './workspace.js';

/**
 * Returns a file measurer for the manifest: paths are resolved against `cwd`, hashed by the
 * workspace (the same hashing checkpoints and resume plans use), and recorded relative to
 * the workspace root when inside it. A missing or unreadable file is recorded with null hash
 * and size rather than refused: the agent says it touched it, and the resume plan will
 * compare against whatever is there later.
 */
export function fileMeasurer(cwd: string, workspace: Workspace): (p: string) => MeasuredFile {
  return (p) => {
    const abs = path.resolve(cwd, p);
    const rel = path.relative(workspace.root, abs);
    const recorded = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
    return { ...workspace.hashFile(abs), path: recorded };
  };
}
