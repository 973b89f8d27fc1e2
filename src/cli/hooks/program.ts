/**
 * Whether the program a hook command starts can be found, as the shell the agent CLI runs
 * hooks through would find it: a word with a `/` is a path, any other word is looked up on
 * PATH. A hook whose program is missing fails on every event (quietly: the CLIs only log a
 * failed hook), so install and status say so.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedHookCommand } from './command.js';

type Env = Readonly<Record<string, string | undefined>>;

function executable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file `word` runs (a path, or the first executable of that name on `env.PATH`), else null. */
export function findProgram(word: string, env: Env, cwd: string): string | null {
  if (word.includes('/')) {
    const file = path.resolve(cwd, word);
    return executable(file) ? file : null;
  }
  for (const dir of (env['PATH'] ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(path.resolve(cwd, dir), word);
    if (executable(file)) return file;
  }
  return null;
}

/** The absolute paths a hook command names (program, bundle, store folder): each ties it to one machine. */
export function absolutePaths(p: ParsedHookCommand): string[] {
  return [p.launcher, p.node, p.script, p.store.dir]
    .filter((f): f is string => typeof f === 'string' && path.isAbsolute(f))
    .filter((f, i, all) => all.indexOf(f) === i);
}
