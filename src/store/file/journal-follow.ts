import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE } from '../atomic-write.js';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { Handle } from './handle.js';
import { dataEndOf } from './journal.js';
import { sleepSync } from './fsutil.js';

/*
 * A journal replaced under a live writer (issue 25). A writer keeps its journal open across
 * appends, so when something replaces the file at its path by a copy of itself (`cp journal.jsonl
 * x && mv x journal.jsonl`: sync tools, backups, editors, a `git checkout` of a committed
 * store), the writer's descriptor still names the old file, which nobody reads any more. Such a
 * tool takes no lock, so nothing can keep it out; instead the writer checks, after each append
 * is on disk and before it is acknowledged, that the path still names the file it wrote, and
 * again when it takes or lets go of the session lock. A replacement it finds is followed:
 *
 * - the new file holds all the old one does (the copy was taken after the last write): the
 *   writer goes on in the new file, nothing written twice;
 * - the new file is an older copy of the old one (taken before the last writes landed, or in
 *   the middle of one: a byte prefix of the old file, where zero bytes may stand for bytes that
 *   were being written): the old file's bytes past the common prefix are written into the new
 *   file and fdatasynced, so that it ends as the old one did: the appends are made again there,
 *   with the same seqs, which is what deciding them again against a journal that ends where the
 *   old one did before them would give;
 * - anything else (another history) is not the writer's to merge: after a write, the append is
 *   reported as CONFLICT (never acknowledged) and decided again against the new file, and what
 *   the old file held is kept as `journal.jsonl.replaced-<time>`; on taking the lock, the new
 *   file is read as it is (baton's own rewrites, `repair`, land here).
 *
 * The window that stays: a copy taken before an append landed and moved over the journal only
 * after the writer's last check (the process has exited, or it appends no more and lets the
 * lock go) loses that append; a read reports it (CORRUPT, `details.lost`) only when a snapshot,
 * checkpoint or registry row proves it (docs/storage.md).
 */

/** How long a write waits for a journal path that is briefly missing (a tool that deletes, then renames). */
const GONE_WAIT_MS = 200;
/** Replacements followed in a row before giving up: something replaces the journal over and over. */
const MAX_ROUNDS = 20;

/** True when the path of `h.journal` names another file than `h.fd`, or (when `gone`) none. */
export function journalReplaced(h: Handle, gone = true): boolean {
  const onDisk = fs.statSync(h.journal, { throwIfNoEntry: false });
  if (!onDisk) return gone;
  const id = fileIdOf(h);
  return onDisk.ino !== id.ino || onDisk.dev !== id.dev;
}

function fileIdOf(h: Handle): { ino: number; dev: number } {
  if (h.fileId === undefined) {
    const st = fs.fstatSync(h.fd);
    h.fileId = { ino: st.ino, dev: st.dev };
  }
  return h.fileId;
}

/**
 * How a check reacts to what it finds: `write` right after an append reached `h.fd` (the
 * append is acknowledged only if this returns; `h.lastSeq`/`h.end` describe the old file),
 * `lock` when the lock was just taken (`h.lastSeq` may be stale), `release` as the lock is let
 * go (never throws: the next writer checks again).
 */
export type FollowMode = 'write' | 'lock' | 'release';

/**
 * Makes `h.fd` the file at the journal's path again, carrying over what the old file holds
 * past an older copy (see the note above). Caller holds the session lock.
 */
export function followJournal(h: Handle, id: string, mode: FollowMode): void {
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    if (!journalReplaced(h)) return;
    const fd = openJournal(h, mode === 'write' ? GONE_WAIT_MS : 0);
    if (fd === null) {
      if (mode !== 'write') return; // gone or moved: the next locate() notices
      h.lastSeq = -1;
      throw new BatonError(
        'CORRUPT',
        `Session ${id}'s journal.jsonl disappeared while an append was written to it; the append was not recorded.`,
        {
          hint: `Put ${h.journal} back (from a backup) or remove the session's folder.`,
          details: { sessionId: id, journal: h.journal },
        },
      );
    }
    let found: Compared;
    try {
      found = compare(h, fd);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    if (found.kind === 'other' && mode === 'write') {
      // Not ours to merge; what the old file held (acknowledged appends among it) is kept.
      const savedTo = `${h.journal}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      fs.writeFileSync(savedTo, readAll(h.fd).subarray(0, h.end), { mode: FILE_MODE });
      switchTo(h, fd, null);
      throw new BatonError(
        'CONFLICT',
        `Session ${id}'s journal.jsonl was replaced by a file with another history while an append was written; the append was not recorded (the old journal is kept as ${path.basename(savedTo)}).`,
        {
          hint: hint('session.reread'),
          details: { sessionId: id, journalReplaced: true, savedTo: path.basename(savedTo) },
        },
      );
    }
    switchTo(h, fd, mode === 'write' ? found.end : null);
  }
  if (mode === 'release') return;
  h.lastSeq = -1;
  throw new BatonError(
    'STORE_UNAVAILABLE',
    `Session ${id}'s journal.jsonl was replaced ${MAX_ROUNDS} times in a row while it was written.`,
    {
      hint: 'Stop the program that keeps replacing the journal (a sync tool, an editor), then try again.',
      details: { sessionId: id, reason: 'journal_replaced', retryable: true },
    },
  );
}

/** Opens the file at the journal's path, waiting up to `waitMs` for it to come back; null when gone. */
function openJournal(h: Handle, waitMs: number): number | null {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return fs.openSync(h.journal, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || Date.now() >= until) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
      sleepSync(5);
    }
  }
}

function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(size);
  let n = 0;
  while (n < size) {
    const got = fs.readSync(fd, buf, n, size - n, n);
    if (got === 0) break;
    n += got;
  }
  return buf.subarray(0, n);
}

/** What the new journal holds: a copy of the old file's bytes (completed) or another history. */
interface Compared {
  kind: 'copy' | 'other';
  /** Where the new file's lines end when that is exactly where the old file's did, else null. */
  end: number | null;
}

/**
 * Compares the new journal `fd` with the old file `h.fd`: a 'copy' when it holds all the old
 * file's bytes, or an older copy of them (then the bytes it lacks are written into it first,
 * and fdatasynced), 'other' when it holds another history (nothing written).
 */
function compare(h: Handle, fd: number): Compared {
  const old = readAll(h.fd);
  const oldEnd = dataEndOf(old);
  const now = readAll(fd);
  const nowEnd = dataEndOf(now);
  let same = 0;
  const n = Math.min(oldEnd, nowEnd);
  while (same < n && old[same] === now[same]) same += 1;
  // Holds every byte of the old file (and more only if someone wrote it without the lock).
  if (same === oldEnd) return { kind: 'copy', end: nowEnd === oldEnd ? oldEnd : null };
  // Past the common prefix, an older copy holds only zero bytes where the old file has lines
  // (a copy made while a write was landing): JSON escapes a zero byte, so no line holds one.
  if (nowEnd > oldEnd) return { kind: 'other', end: null };
  for (let i = same; i < nowEnd; i++) if (now[i] !== 0 && now[i] !== old[i]) return { kind: 'other', end: null };
  let at = same;
  while (at < oldEnd) at += fs.writeSync(fd, old, at, oldEnd - at, at);
  if (now.length > oldEnd) fs.ftruncateSync(fd, oldEnd);
  fs.fdatasyncSync(fd);
  return { kind: 'copy', end: oldEnd };
}

/**
 * Makes `fd` the handle's journal. `end`: where its lines end, when a write just left the
 * handle's last seq and end describing exactly that (they still hold); else they are read again.
 */
function switchTo(h: Handle, fd: number, end: number | null): void {
  fs.closeSync(h.fd);
  h.fd = fd;
  h.fileId = undefined;
  if (end !== null && end === h.end) {
    h.room = Math.max(h.end, fs.fstatSync(fd).size);
  } else {
    h.lastSeq = -1;
    h.end = -1;
    h.room = -1;
  }
}
