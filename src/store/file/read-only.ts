import fs from 'node:fs';
import type { RepairReport } from '../types.js';
import type { StoreFs } from './io.js';

/*
 * A file store that cannot be written (a read-only mount, a backup, another user's files) is
 * still read: every command that only reads works on it, and nothing it does on the way (the
 * registry cache, derived rows, the list view, snapshots, lock files, moving a damaged file
 * aside, cutting a torn tail) is attempted. A command that must write is refused before a
 * byte is written, with `STORE_READ_ONLY` naming the store (store/errors.ts). The dashboard
 * opens a writable store the same way, so that looking at it changes nothing.
 */

/** OS errors that mean "this file cannot be written here", not "something went wrong". */
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/** Why writing failed with `e`, worded for a person; null when `e` is no refusal to write. */
export function notWritableReason(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !NOT_WRITABLE.has(code)) return null;
  return code === 'EROFS' ? 'a read-only file system' : 'no write permission';
}

/**
 * Why the store in `root` cannot be written, or null when it can: its folder, and its
 * sessions folder, are asked for write access (`access(2)`: a read-only mount answers
 * EROFS, another user's folder EACCES; root is refused only by the mount).
 */
export function readOnlyReason(root: string, sessions: string): string | null {
  for (const dir of [root, sessions]) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      const why = notWritableReason(e);
      if (why) return why;
      // Missing (a store whose sessions/ was lost): doctor reports it; writes find out.
    }
  }
  return null;
}

/**
 * Opens a session's journal for appending, or for reading only when the store cannot be
 * written (`storeReason`) or the journal cannot be (a session folder of another user inside a
 * writable store). `readOnly`: why the handle cannot write, or null. Links are never followed.
 */
export function openJournal(
  io: StoreFs,
  file: string,
  storeReason: string | null,
): { fd: number; readOnly: string | null } {
  const ro = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW;
  if (storeReason !== null) return { fd: io.openSync(file, ro), readOnly: storeReason };
  try {
    // Not O_APPEND: appends go to the journal's known end, before any room (append.ts).
    return { fd: io.openSync(file, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW), readOnly: null };
  } catch (e) {
    const why = notWritableReason(e);
    if (!why) throw e;
    return { fd: io.openSync(file, ro), readOnly: why };
  }
}

/**
 * What a read of a read-only store reports instead of cutting a torn tail: the journal is
 * read up to the incomplete last line (an append never acknowledged), which stays on disk
 * for the next writable open to cut.
 */
export function tornTailFound(id: string, reason: string, at: number): RepairReport {
  return {
    sessionId: id,
    kind: 'torn_tail',
    message: `Session ${id}: the journal ends in an incomplete line at byte ${at} (an append that was never acknowledged); read without it and left as it is, as the store cannot be written (${reason}).`,
    savedTo: null,
    repaired: false,
  };
}
