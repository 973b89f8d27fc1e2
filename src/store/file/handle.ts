import type { FileLock } from './lock.js';

/** An open session of this process: its files, journal descriptor and lock. */
export interface Handle {
  dir: string;
  journal: string;
  snapshotFile: string;
  lock: FileLock;
  fd: number;
  /** Device and inode of the file `fd` holds, once asked (journal-follow.ts); reset when `fd` changes. */
  fileId?: { ino: number; dev: number } | undefined;
  /** Why this handle cannot write (the store or the journal is read-only), or null: see read-only.ts. */
  readOnly: string | null;
  /**
   * Last seq and end offset this process knows (-1: unknown). Trusted while the lock is held,
   * and after it was taken again only when the journal is the same file of size `end`.
   */
  lastSeq: number;
  end: number;
  /** Where the room set aside after `end` ends (see append.ts writeEvents); -1: unknown. */
  room: number;
  /** Appends since the lock was taken: past a few, a burst sets room aside (append.ts). */
  holdAppends: number;
  /** The pending release: a turn of the event loop, or (lingering) a timer. */
  release: NodeJS.Immediate | NodeJS.Timeout | null;
  /** Lingering after a quiet turn, until this time (ms); 0 when not lingering. */
  lingerUntil: number;
  /** An append happened since the release was scheduled. */
  busy: boolean;
  /** When the lock was taken or last checked for a waiting process. */
  checkedAt: number;
}
