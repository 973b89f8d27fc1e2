import fs from 'node:fs';
import path from 'node:path';
import { TEMP_PATTERN } from '../atomic-write.js';

/** Reads a file, or null when it does not exist. */
export function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds (lock back-off inside synchronous file code). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Moves a damaged file aside as `<file>.corrupt-<time>` and returns the new path. */
export function moveAside(file: string, now: Date): string {
  const dest = `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
  fs.renameSync(file, dest);
  return dest;
}

/** True when a process with this pid exists on this host. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid that wrote a file or folder named like a temp file (`.tmp-<pid>-`) or, with
 * `pattern`, another pid-stamped name, when that process is gone (a leftover of a crash);
 * null when the name is not such a leftover or its writer still runs (or is this process).
 */
export function deadWriter(name: string, pattern: RegExp = TEMP_PATTERN): number | null {
  const m = pattern.exec(name);
  if (!m) return null;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid) ? pid : null;
}

/**
 * Removes temp files in `dir` (only those of `base`, when given) left by processes of this
 * host that died mid-write (see {@link tempName}). Those of live processes are left alone.
 */
export function removeStaleTemps(dir: string, base?: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (base !== undefined && !name.startsWith(`${base}.tmp-`)) continue;
    if (deadWriter(name) !== null) fs.rmSync(path.join(dir, name), { force: true });
  }
}
