import fs from 'node:fs';
import { MAX_BACKOFF_MS } from './lock.js';
import type { FileLock } from './lock.js';
import type { Handle } from './handle.js';
import { sleepSync } from './fsutil.js';
import { giveBackRoom } from './append.js';
import { readTail } from './journal.js';
import { followJournal, journalReplaced } from './journal-follow.js';
import path from 'node:path';

/*
 * The session lock hand-over. A lock is kept until the event loop turns once with no append,
 * so a caller appending in a loop pays for one lock per burst instead of one per event; then
 * it lingers a few ms more (LINGER_MS), so that a server answering one request after another
 * (the MCP server, the dashboard) does not create and remove the lock file for each: those are
 * file system metadata changes that the next fdatasync has to commit too. Other processes wait
 * at most about that long: a burst or a lingering lock hands the lock over when another process
 * leaves a `.want` marker (checked every few ms). Every section under a session lock is
 * synchronous, so a lock of this process that is only lingering can be released at once when
 * another store instance here needs it (waiting for it would block the very event loop that
 * would release it). A process that exits releases the locks it kept (an exit handler).
 */

/** How often a burst holding a session lock looks for a waiting process. */
const HANDOVER_CHECK_MS = 5;
/** Longest a burst stands back for a waiting process before it competes for the lock again. */
const HANDOVER_WAIT_MS = 50;
/** How long a lock is kept after the event loop turned with no append (see above). */
const LINGER_MS = 25;

/** Session locks this process holds between sections (see the note above), by lock file. */
const lingering = new Map<string, Handle>();

let exitHook = false;
/** Releases every lock this process keeps when it exits (exit handlers run synchronously). */
function releaseAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const h of [...lingering.values()]) releaseNow(h);
  });
}

/** Takes (or keeps) the session lock of `h` for a synchronous section; see the note above. */
export function lockSession(h: Handle): void {
  if (h.lock.isHeld) {
    h.busy = true;
    // Lingering: in use again, so kept until the event loop turns once more.
    if (h.lingerUntil !== 0) {
      clearTimeout(h.release as NodeJS.Timeout);
      h.lingerUntil = 0;
      scheduleRelease(h);
    }
    const now = Date.now();
    if (now - h.checkedAt < HANDOVER_CHECK_MS) return;
    h.checkedAt = now;
    if (!h.lock.contended) return;
    releaseNow(h);
    // Stand back until a waiter has taken it (it removes its marker then), or a short bound
    // has passed: a fixed pause loses to a waiter that is slow to wake on a busy machine.
    const until = Date.now() + HANDOVER_WAIT_MS;
    do sleepSync(MAX_BACKOFF_MS / 4);
    while (h.lock.contended && Date.now() < until);
  }
  releaseLingering(h.lock.file, h);
  h.lock.acquire();
  h.holdAppends = 0;
  h.checkedAt = Date.now();
  lingering.set(h.lock.file, h);
  releaseAtExit();
  h.busy = false;
  // Scheduled first, so that a failure below still lets the lock go.
  scheduleRelease(h);
  followJournal(h, path.basename(h.dir), 'lock');
  // Read-free: a journal that still ends where this process last left it (same file, same
  // size) was not written since, so the last seq known then is still its end. The journal
  // only grows; the rewrites that shrink it (repair, recovery) replace the file.
  if (h.lastSeq >= 0 && (h.end < 0 || fs.fstatSync(h.fd).size !== h.end)) h.lastSeq = -1;
}

/**
 * Before a read: when the file at the journal's path is no longer the one `h.fd` holds
 * (`repair` here or in another process replaced it, or a tool moved a copy over it), follows
 * the new file under the lock (taken if need be), carrying over appends of this process that
 * an older copy lacks (journal-follow.ts). Reading through the old descriptor would read a file
 * nobody writes any more; reading the path first would miss those appends.
 */
export function reopenIfReplaced(h: Handle): void {
  if (h.readOnly !== null) {
    // A read-only store takes no lock: the new file is simply read (nothing of this process to carry over).
    let onDisk: fs.Stats;
    try {
      onDisk = fs.statSync(h.journal);
    } catch {
      return; // gone or moved: the next locate() notices
    }
    const open = fs.fstatSync(h.fd);
    if (onDisk.ino === open.ino && onDisk.dev === open.dev) return;
    const fd = fs.openSync(h.journal, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    fs.closeSync(h.fd);
    h.fd = fd;
    h.lastSeq = -1;
    h.end = -1;
    h.room = -1;
    h.fileId = undefined;
    return;
  }
  // A path that is gone (the folder was archived) is the next locate()'s to notice.
  if (!journalReplaced(h, false)) return;
  if (h.lock.isHeld) followJournal(h, path.basename(h.dir), 'lock');
  else lockSession(h);
}

/** Releases the lock once the event loop turns with no append since the last turn, and LINGER_MS passed. */
function scheduleRelease(h: Handle): void {
  h.release = setImmediate(() => {
    h.release = null;
    if (h.busy) {
      h.busy = false;
      scheduleRelease(h);
      return;
    }
    h.lingerUntil = Date.now() + LINGER_MS;
    linger(h);
  });
}

/** Keeps a quiet lock until LINGER_MS passed or another process wants it, looking every few ms. */
function linger(h: Handle): void {
  const t = setTimeout(() => {
    h.release = null;
    if (Date.now() >= h.lingerUntil || h.lock.contended) releaseNow(h);
    else linger(h);
  }, HANDOVER_CHECK_MS);
  // A lingering lock keeps no process alive: one that exits releases it (releaseAtExit).
  t.unref();
  h.release = t;
}

/** Releases a handle's session lock now (and forgets its linger). */
export function releaseNow(h: Handle): void {
  if (h.release) {
    if (h.lingerUntil !== 0) clearTimeout(h.release as NodeJS.Timeout);
    else clearImmediate(h.release as NodeJS.Immediate);
    h.release = null;
  }
  h.lingerUntil = 0;
  if (lingering.get(h.lock.file) === h) lingering.delete(h.lock.file);
  if (h.lock.isHeld) {
    // Last look before another process may write: a copy moved over the journal since the
    // last append gets this process's appends (journal-follow.ts).
    try {
      followJournal(h, path.basename(h.dir), 'release');
    } catch {
      // the next lock taken here checks again; another process meets the loss as CORRUPT
    }
    giveBackRoom(h);
  }
  h.lock.release();
}

/** Cuts short the linger of another handle of this process on the same lock file. */
export function releaseLingering(file: string, except: Handle | null): void {
  const other = lingering.get(file);
  if (other && other !== except) releaseNow(other);
}

/**
 * Runs `write` if the session's journal, read while no other process can write it, ends at
 * `revision`. `lock` is the session's lock: kept if this process holds it, else taken without
 * waiting (nothing runs when another process holds it) and let go only after `write`, so no
 * writer can log anything between the check and the write.
 */
export function whileJournalEndsAt(lock: FileLock, journal: string, revision: number, write: () => void): void {
  const held = lock.isHeld;
  if (!held && !lock.tryOnce()) return;
  try {
    const fd = fs.openSync(journal, 'r');
    let ends: boolean;
    try {
      ends = readTail(fd).lastSeq === revision;
    } finally {
      fs.closeSync(fd);
    }
    if (ends) write();
  } finally {
    if (!held) lock.release();
  }
}
