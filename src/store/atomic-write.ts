import fs from 'node:fs';
import path from 'node:path';

/** The calls an atomic write makes, injectable (see file/io.ts); Node's `fs` by default. */
export type AtomicFs = Pick<typeof fs, 'openSync' | 'writeSync' | 'fsyncSync' | 'renameSync'>;

/*
 * Atomic replacement of a file, shared by every backend that keeps files (the file store, and
 * the files any store keeps beside a session): write a unique temp file, fsync it, rename it
 * over the target, fsync the directory. A crash leaves the old file or the new one.
 */

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
export function writeTemp(
  target: string,
  data: string | Uint8Array,
  { sync = true, io = fs as AtomicFs } = {},
): string {
  const tmp = tempName(target);
  const fd = io.openSync(tmp, 'wx', FILE_MODE);
  try {
    if (io === fs) fs.writeFileSync(fd, data);
    else writeAll(io, fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (sync) io.fsyncSync(fd);
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
 * `<target>.bak`. A crash leaves either the old or the new file, never a mix. With
 * `sync: false` (derived files, rewritten often and rebuilt from the journal if lost) nothing
 * is fsynced: a reader still never sees a mix, but a machine crash may leave the old file.
 */
export function atomicWrite(
  target: string,
  data: string | Uint8Array,
  { backup = false, sync = true, io = fs as AtomicFs } = {},
): void {
  const tmp = writeTemp(target, data, { sync, io });
  if (backup) {
    // A hard link keeps the previous version without copying its bytes.
    fs.rmSync(`${target}.bak`, { force: true });
    try {
      fs.linkSync(target, `${target}.bak`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  try {
    io.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  if (sync) fsyncDir(path.dirname(target));
}

/** Writes all of `data` at the file position of `fd` (short writes continued). */
function writeAll(io: AtomicFs, fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length; ) off += io.writeSync(fd, data, off, data.length - off);
}

/** Temp files made by {@link tempName}: `<target>.tmp-<pid>-…`. */
export const TEMP_PATTERN = /\.tmp-(\d+)-/;
