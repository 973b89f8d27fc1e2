import fs from 'node:fs';
import path from 'node:path';
import type { MeasuredFile } from '../domain/decide.js';
import { nodeCrypto } from './lazy.js';

/**
 * Returns a file measurer for the manifest: paths are resolved against `cwd` and recorded
 * relative to `workspaceRoot` when inside it. A missing or unreadable file is recorded
 * with null hash and size rather than refused: the agent says it touched it, and the resume
 * plan will compare against whatever is there later.
 */
export function fileMeasurer(cwd: string, workspaceRoot: string): (p: string) => MeasuredFile {
  return (p) => {
    const abs = path.resolve(cwd, p);
    const rel = path.relative(workspaceRoot, abs);
    const recorded = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
    try {
      const data = fs.readFileSync(abs);
      return { path: recorded, sha256: nodeCrypto().createHash('sha256').update(data).digest('hex'), size: data.length };
    } catch {
      return { path: recorded, sha256: null, size: null };
    }
  };
}
