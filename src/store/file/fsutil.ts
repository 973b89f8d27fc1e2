import fs from 'node:fs';
import path from 'node:path';

/** Mode of every directory baton creates: owner only. */
export const DIR_MODE = 0o700;
/** Mode of every file baton creates: owner only. */
export const FILE_MODE = 0o600;

/** Flushes a directory entry change (create, rename, unlink) to disk. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

let tmpCounter = 0;

/** A temp file name unique to this process and call, beside `target`. */
export function tempName(target: string): string {
  tmpCounter += 1;
  return `${target}.tmp-${process.pid}-${Date.now().toString(36)}-${tmpCounter}`;
}

/**
 * Writes `data` to a new unique temp file beside `target` and fsyncs it; returns its path.
 * On failure nothing is left behind. The caller moves it into place.
 */
export function writeTemp(target: string, data: string | Uint8Array): string {
  const tmp = tempName(target);
  const fd = fs.openSync(tmp, 'wx', FILE_MODE);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  return tmp;
}

/**
 * Replaces `target` atomically: writes a unique temp file, fsyncs it, renames it over the
 * target and fsyncs the directory. With `backup`, the previous file is first kept as
 * `<target>.bak`. A crash leaves either the old or the new file, never a mix.
 */
export function atomicWrite(target: string, data: string | Uint8Array, { backup = false } = {}): void {
  const tmp = writeTemp(target, data);
  if (backup) {
    // A hard link keeps the previous version without copying its bytes.
    fs.rmSync(`${target}.bak`, { force: true });
    try {
      fs.linkSync(target, `${target}.bak`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  fs.renameSync(tmp, target);
  fsyncDir(path.dirname(target));
}

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

/** Temp files made by {@link tempName}: `<target>.tmp-<pid>-…`. */
export const TEMP_PATTERN = /\.tmp-(\d+)-/;

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
