/**
 * How the registry's files (index.json, index.log, the session folders) are opened, read
 * and stamped, for registry.ts.
 */
import fs from 'node:fs';
import { FILE_MODE } from '../atomic-write.js';

/** Opens index.log for appending rows, creating it if needed. */
export function openLog(file: string): number {
  return fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, FILE_MODE);
}

/** Inode of `file` as a string, or null when it does not exist. */
export function fileIno(file: string): string | null {
  try {
    return fs.statSync(file, { bigint: true }).ino.toString();
  } catch {
    return null;
  }
}

/**
 * The bytes of an open file from `offset` on (the log only grows, so the part before the
 * offset is already in index.json and is not read again), or all of it when the file is
 * shorter than `offset`.
 */
export function readTail(fd: number, offset: number): { buf: Buffer; start: number } {
  const size = fs.fstatSync(fd).size;
  const start = size < offset ? 0 : offset;
  const buf = Buffer.allocUnsafe(size - start);
  if (buf.length) fs.readSync(fd, buf, 0, buf.length, start);
  return { buf, start };
}

/** A whole file and its inode, read through one descriptor; null when it does not exist. */
export function readWithIno(file: string): { buf: Buffer; ino: string } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    return { ino: fs.fstatSync(fd, { bigint: true }).ino.toString(), buf: fs.readFileSync(fd) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Names of the session folders in `dir` (none being created); none when it cannot be read. */
export function listDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.includes('.creating-'))
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/** Identity, size and change time of a file ('-' when missing): equal stamps, same content. */
export function fileStamp(file: string): string {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return '-';
  }
}
