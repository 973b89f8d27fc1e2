import fs from 'node:fs';
import path from 'node:path';
import { validateWorkspace } from '../domain/workspace-name.js';

/**
 * The project folder of `cwd`: the nearest folder upwards holding `.git` (a work tree or a
 * worktree's file), else `cwd` itself. Workers started in sub-folders of one checkout are
 * then one workspace, and two checkouts on one host are two.
 */
export function projectFolder(cwd: string): string {
  const start = path.resolve(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/**
 * The workspace a worker uses on a shared store: `explicit` (--workspace, else
 * BATON_WORKSPACE) when given, else `HOST:PROJECT-FOLDER`. `BAD_INPUT` for an unusable name.
 */
export function workspaceName(explicit: string | null | undefined, host: string, cwd: string): string {
  if (explicit !== null && explicit !== undefined) return validateWorkspace(explicit);
  return validateWorkspace(`${host}:${projectFolder(cwd)}`);
}
