import fs from 'node:fs';
import type { SessionSummary } from '../../domain/summary.js';
import { RowText } from '../row.js';
import type { ListResult, ListRowsResult, RepairReport } from '../types.js';
import { atomicWrite, tempName } from '../atomic-write.js';
import { moveAside, removeStaleTemps, sleepSync } from './fsutil.js';
import { FileLock } from './lock.js';
import { fileIno, fileStamp, listDirs, openLog, readTail, readWithIno } from './registry-files.js';
import type { Layout } from './paths.js';
import { countsMatch, deletedLine, foldRows, splitIndex } from './registry-text.js';
import type { Index } from './registry-text.js';

/** index.log is folded into index.json once it holds this many bytes past logOffset. */
const COMPACT_AFTER_BYTES = 256 * 1024;
/** index.log is rotated (folded in whole and started afresh) once it is this long. */
const ROTATE_AFTER_BYTES = 4 * 1024 * 1024;
/** Appends of one row that find the log renamed away, before giving up (a rotation takes milliseconds). */
const GENERATION_RETRIES = 3;
/** How long a reader that caught a rotation half done waits for it to end. */
const LOCK_WAIT_MS = 5_000;

/** What the log held past an offset. */
interface LogRead {
  /** Offset just past the last complete row. */
  end: number;
  /** Inode of the file read; null when there is no index.log. */
  ino: string | null;
}

/**
 * The registry cache: `index.json` (rows of every session plus how much of `index.log` they
 * include) and `index.log` (one row appended whenever a session's row changes). Appending a
 * row is a single small O_APPEND write, so writers never rewrite the registry. Readers fold
 * the log tail into the index; whoever sees a long tail compacts it with an atomic rewrite
 * of index.json. Rewrites take `index.lock` without waiting (a reader that finds it taken
 * leaves the rewrite to the holder) and happen only if index.json is still the one the
 * reader started from. A log past {@link ROTATE_AFTER_BYTES} is rotated: renamed away,
 * folded in whole, and replaced by an empty one, whose inode index.json names so that a
 * reader never counts an offset in the wrong generation. A writer that finds it appended to
 * a log renamed away appends its row again to the new one.
 * The cache is checked against the session folders on every read: a folder without a row is
 * returned as `missing` for the manager to derive, a row without a folder is dropped.
 *
 * index.json is plain JSON written with one row per line,
 * `{"format":"baton.index","v":2,"logOffset":N,"sessions":[` / rows / `]}`, so that it is read
 * by splitting lines rather than parsing megabytes; a file of any other shape that is still
 * valid JSON (edited by hand, or version 1) is parsed the slow way.
 */
export class Registry {
  private logFd: number | null = null;
  private readonly lock: FileLock;

  constructor(
    private readonly layout: Layout,
    private readonly now: () => Date,
    private readonly rotateAfterBytes = ROTATE_AFTER_BYTES,
    /** The store cannot be written (read-only.ts): rows are read and reconciled, never saved. */
    private readonly readOnly = false,
  ) {
    this.lock = new FileLock(layout.indexLock);
  }

  /** Appends a changed row. Not fsynced: the registry is a cache that `list --rebuild` restores. */
  record(row: SessionSummary): void {
    this.append(`${RowText.of(row).json}\n`);
  }

  /**
   * Logs that session `id` is gone: its row, whatever its revision, no longer counts (nor
   * proves acknowledged events), so the id may be taken again. Called after its folder was
   * moved away, under its session lock, so no row of the old session can follow it.
   */
  forget(id: string): void {
    this.append(deletedLine(id));
  }

  /**
   * Records the first row of a session just created: after a {@link forget} of its id in the
   * same write, so a row left by an earlier session of that id (a deletion cut short before
   * it forgot the id) never outranks it.
   */
  recordNew(row: SessionSummary): void {
    this.append(`${deletedLine(row.id)}${RowText.of(row).json}\n`);
  }

  /**
   * Logs that session `id`'s row may fall behind its journal, which ends at `revision`: written
   * before an append that changes the row, whose new row is recorded after it. A writer killed
   * in between leaves the marker, not a row that looks right and is not (a lease the row never
   * shows would keep `claim` from the session for good); readers list the session as
   * missing and derive its row again (FileStore.putSummaries stores it).
   */
  markInDoubt(id: string, revision: number): void {
    this.append(`${RowText.inDoubt(id, revision).json}\n`);
  }

  private append(line: string): void {
    for (let tries = 0; tries < GENERATION_RETRIES; tries++) {
      if (this.logFd === null) this.logFd = openLog(this.layout.indexLog);
      fs.writeSync(this.logFd, line);
      // A rotation that renamed the log before this write folded the old file before it, so
      // the row may be in neither generation: write it again (the newest revision wins).
      if (this.logIsCurrent(this.logFd)) return;
      fs.closeSync(this.logFd);
      this.logFd = null;
    }
  }

  private logIsCurrent(fd: number): boolean {
    try {
      return fs.fstatSync(fd, { bigint: true }).ino === fs.statSync(this.layout.indexLog, { bigint: true }).ino;
    } catch {
      return false;
    }
  }

  /** Revisions of the rows as last read by {@link revisionOf}, with the files' stamp then. */
  private revisions: { stamp: string; byId: Map<string, number> } | null = null;

  close(): void {
    if (this.logFd !== null) fs.closeSync(this.logFd);
    this.logFd = null;
  }

  /**
   * The revision the registry recorded for session `id` (index.json plus the log past it),
   * or null when it has no row. Reads only; a damaged index says nothing (null).
   */
  revisionOf(id: string): number | null {
    try {
      // Every full read of a journal asks (doctor and migrate once per session, watch once per
      // change): parse the registry again only when index.json or index.log changed. The
      // stamp is taken before the read, so a write during it only causes one more read.
      const stamp = `${fileStamp(this.layout.index)}|${fileStamp(this.layout.indexLog)}`;
      if (this.revisions?.stamp !== stamp) {
        const byId = new Map<string, number>();
        for (const [sid, row] of this.readBoth([], true).rows) {
          const rev = row.summary.revision;
          if (typeof rev === 'number') byId.set(sid, rev);
        }
        this.revisions = { stamp, byId };
      }
      return this.revisions.byId.get(id) ?? null;
    } catch {
      return null;
    }
  }

  /** Reads the registry as row objects, reconciled with the session folders on disk. */
  list(rebuild: boolean): ListResult {
    const r = this.listRows(rebuild);
    return { summaries: r.rows.map((row) => row.summary), missing: r.missing, repairs: r.repairs };
  }

  /** Reads the registry as row texts, reconciled with the session folders on disk. */
  listRows(rebuild: boolean): ListRowsResult {
    const repairs: RepairReport[] = [];
    const asked = rebuild;
    let read = rebuild ? null : this.readBoth(repairs);
    if (read && !read.consistent) {
      // index.json counts its offset in one generation of the log; read in the middle of a
      // rotation, the log may already be the next one. Read both again while no rotation
      // can run; an index whose log is gone for good (a crash mid-rotation, a hand edit)
      // cannot say which rows it lacks.
      // Read-only: no lock file can be made, and no rotation runs here; reading again is all it can do.
      if (this.readOnly) read = this.readBoth(repairs);
      else if (this.lock.tryOnce() || this.waitForLock()) {
        try {
          read = this.readBoth(repairs);
        } finally {
          this.lock.release();
        }
      }
      if (!read.consistent) {
        // Read-only (a copy or backup of a store: other inodes): the rows are derived from the
        // folders as on a rebuild, every time, and nothing is wrong with the sessions; not worth a notice.
        if (!this.readOnly)
          repairs.push({
            sessionId: null,
            kind: 'index_rebuilt',
            message:
              'index.json belongs to an index.log that is gone (a rotation cut short, or a hand edit); the registry was rebuilt from the session folders.',
            savedTo: null,
          });
        rebuild = true;
        read = null;
      }
    }
    const index = read ? read.index : null;
    const rows = read ? read.rows : new Map<string, RowText>();
    const log = read ? read.log : this.logState();
    const logOffset = index ? index.logOffset : 0;
    const _logEnd = log.end;

    // Creating, archiving or removing a session folder changes its parent folder's mtime; if
    // neither parent changed since the rows were last checked, the folder set is the same and
    // reading 10,000 directory entries can be skipped. The stamp is taken before reading.
    // The parents' link counts (2 + subfolders) must also match the rows, which catches an
    // index edited by hand.
    const { stamp: folders, live, archived } = this.foldersStamp();
    const missing: string[] = [];
    let changed = false;
    if (index && folders !== '' && folders === index.folders && countsMatch(rows, live, archived)) {
      return this.finish(rows, missing, repairs, rebuild, changed, index, logOffset, log, folders);
    }
    const onDisk = new Map<string, boolean>();
    for (const id of listDirs(this.layout.sessions)) onDisk.set(id, false);
    for (const id of listDirs(this.layout.archive)) if (!onDisk.has(id)) onDisk.set(id, true);

    for (const [id, isArchived] of onDisk) {
      const row = rows.get(id);
      if (!row) missing.push(id);
      else if (row.archived !== isArchived) {
        rows.set(id, row.withArchived(isArchived));
        changed = true;
      }
    }
    for (const id of rows.keys()) {
      if (!onDisk.has(id)) {
        rows.delete(id);
        changed = true;
      }
    }
    if (rebuild && !repairs.some((r) => r.kind === 'index_rebuilt') && (asked || !this.readOnly)) {
      const message = this.readOnly
        ? `Registry derived from ${onDisk.size} session folder(s); not saved, as the store cannot be written.`
        : `Registry rebuilt from ${onDisk.size} session folder(s).`;
      repairs.push({
        sessionId: null,
        kind: 'index_rebuilt',
        message,
        savedTo: null,
        ...(this.readOnly ? { repaired: false as const } : {}),
      });
    }
    // Rows found missing are derived by the manager and logged; until then the stamp must not
    // claim the folders were fully checked.
    const stamp = missing.length ? '' : folders;
    return this.finish(
      rows,
      missing,
      repairs,
      rebuild,
      changed || stamp !== index?.folders,
      index,
      logOffset,
      log,
      stamp,
    );
  }

  /** index.json and the log rows past its offset; `consistent` = both of one generation. */
  private readBoth(
    repairs: RepairReport[],
    readOnly = false,
  ): { index: Index | null; rows: Map<string, RowText>; log: LogRead; consistent: boolean } {
    const index = this.readIndex(repairs, readOnly);
    const rows = index ? index.rows : new Map<string, RowText>();
    const log = this.foldLog(rows, index ? index.logOffset : 0);
    return { index, rows, log, consistent: !index || index.log === null || index.log === log.ino };
  }

  /** Waits (up to a few seconds) until index.lock is taken by this process; false if not. */
  private waitForLock(): boolean {
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (Date.now() < deadline) {
      sleepSync(2);
      if (this.lock.tryOnce()) return true;
    }
    return false;
  }

  private finish(
    rows: Map<string, RowText>,
    missing: string[],
    repairs: RepairReport[],
    rebuild: boolean,
    changed: boolean,
    index: Index | null,
    logOffset: number,
    log: LogRead,
    folders: string,
  ): ListRowsResult {
    const rotate = log.end > this.rotateAfterBytes;
    if (this.readOnly) {
      // Nothing saved: the next read reconciles the same way.
    } else if (
      rotate ||
      rebuild ||
      changed ||
      log.end - logOffset > COMPACT_AFTER_BYTES ||
      (!index && log.end > 0) ||
      (index && (!index.fast || (index.log === null && log.ino !== null)))
    ) {
      // An index of an older shape is kept as index.json.bak when it is rewritten.
      this.saveIndex(rows, log, folders, index, rotate, rebuild);
    }
    const kept: RowText[] = [];
    // A row in doubt is handed back as missing, for the manager to derive from the journal.
    for (const row of rows.values()) {
      if (!row.inDoubt) kept.push(row);
      else missing.push(row.id);
    }
    return { rows: kept, missing, repairs };
  }

  /**
   * Rewrites index.json from `rows` (which include the log up to `log.end`), if index.lock is
   * free and index.json is still `base` or this is a rebuild (else another process is doing or did the same;
   * the registry is a cache and the next reader redoes it). With `rotate`, the log is
   * renamed away, what was appended to it since it was read is folded in, and index.json
   * names a new, empty log.
   */
  private saveIndex(
    rows: Map<string, RowText>,
    log: LogRead,
    folders: string,
    base: Index | null,
    rotate: boolean,
    rebuild: boolean,
  ): void {
    // A rebuild replaces whatever index.json holds; it waits for a rotation to finish.
    if (!this.lock.tryOnce() && !(rebuild && this.waitForLock())) return;
    try {
      if (!rebuild && fileIno(this.layout.index) !== (base?.self ?? null)) return;
      const backup = base !== null && !base.fast;
      if (!rotate || log.ino === null) {
        this.writeIndex(rows, log.end, folders, log.ino, backup);
        return;
      }
      removeStaleTemps(this.layout.root, 'index.log');
      const old = tempName(this.layout.indexLog);
      fs.renameSync(this.layout.indexLog, old);
      // Rows appended since the read are past log.end of the same file (a log of another
      // generation cannot be here: rotations rewrite index.json, under this lock).
      const fd = fs.openSync(old, 'r');
      try {
        foldRows(rows, readTail(fd, fs.fstatSync(fd, { bigint: true }).ino.toString() === log.ino ? log.end : 0).buf);
      } finally {
        fs.closeSync(fd);
      }
      const fresh = openLog(this.layout.indexLog);
      let ino: string;
      try {
        ino = fs.fstatSync(fresh, { bigint: true }).ino.toString();
      } finally {
        fs.closeSync(fresh);
      }
      this.writeIndex(rows, 0, folders, ino, backup);
      fs.rmSync(old, { force: true });
    } finally {
      this.lock.release();
    }
  }

  /**
   * mtimes (ns) of sessions/ and archive/ as a stamp ('' when either cannot be read), and how
   * many subfolders each holds according to its link count (-1 where the file system does
   * not count them).
   */
  private foldersStamp(): { stamp: string; live: number; archived: number } {
    try {
      const a = fs.statSync(this.layout.sessions, { bigint: true });
      const b = fs.statSync(this.layout.archive, { bigint: true });
      const subdirs = (n: bigint): number => (n >= 2n ? Number(n) - 2 : -1);
      return { stamp: `${a.mtimeNs}:${b.mtimeNs}`, live: subdirs(a.nlink), archived: subdirs(b.nlink) };
    } catch {
      return { stamp: '', live: -1, archived: -1 };
    }
  }

  /** The log's size and inode, without reading it. */
  private logState(): LogRead {
    try {
      const st = fs.statSync(this.layout.indexLog, { bigint: true });
      return { end: Number(st.size), ino: st.ino.toString() };
    } catch {
      return { end: 0, ino: null };
    }
  }

  /** index.json as read; one that is not an index is moved aside and reported, unless `readOnly`. */
  private readIndex(repairs: RepairReport[], readOnly = false): Index | null {
    const read = readWithIno(this.layout.index);
    if (read === null) return null;
    const text = read.buf.toString('utf8');
    const self = read.ino;
    const fast = splitIndex(text, self);
    if (fast) return fast;
    try {
      const parsed = JSON.parse(text) as { format?: unknown; logOffset?: unknown; sessions?: unknown };
      if (
        parsed.format !== 'baton.index' ||
        typeof parsed.logOffset !== 'number' ||
        typeof parsed.sessions !== 'object' ||
        parsed.sessions === null
      ) {
        throw new Error('not a baton index');
      }
      const list = (
        Array.isArray(parsed.sessions) ? parsed.sessions : Object.values(parsed.sessions)
      ) as SessionSummary[];
      const rows = new Map<string, RowText>();
      for (const s of list) if (s && typeof s.id === 'string') rows.set(s.id, RowText.of(s));
      return { logOffset: parsed.logOffset, folders: '', log: null, self, rows, fast: false };
    } catch (e) {
      if (readOnly) return null;
      if (this.readOnly) {
        const message = `index.json is unreadable (${(e as Error).message}); the registry was derived from the session folders, the file left as it is (the store cannot be written).`;
        repairs.push({ sessionId: null, kind: 'index_corrupt', message, savedTo: null, repaired: false });
        return null;
      }
      let savedTo: string | null = null;
      try {
        savedTo = moveAside(this.layout.index, this.now());
      } catch {
        // moved by another process already
      }
      repairs.push({
        sessionId: null,
        kind: 'index_corrupt',
        message: `index.json was unreadable (${(e as Error).message}); moved aside and rebuilt from the session folders.`,
        savedTo,
      });
      return null;
    }
  }

  /** Folds log rows after `offset` into `rows`; returns where the complete rows end, and which log it read. */
  private foldLog(rows: Map<string, RowText>, offset: number): LogRead {
    let fd: number;
    try {
      fd = fs.openSync(this.layout.indexLog, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { end: 0, ino: null };
      throw e;
    }
    try {
      const ino = fs.fstatSync(fd, { bigint: true }).ino.toString();
      // A log shorter than the offset was reset by hand: all of it is new.
      const read = readTail(fd, offset);
      return { end: read.start + foldRows(rows, read.buf), ino };
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Rewrites index.json with these rows, one per line. */
  private writeIndex(
    rows: Map<string, RowText>,
    logOffset: number,
    folders: string,
    log: string | null,
    backup = false,
  ): void {
    removeStaleTemps(this.layout.root, 'index.json');
    const body = [...rows.values()].map((r) => r.json).join(',\n');
    const logField = log === null ? '' : `"log":"${log}",`;
    atomicWrite(
      this.layout.index,
      `{"format":"baton.index","v":2,"logOffset":${logOffset},"folders":"${folders}",${logField}"sessions":[\n${body}${body ? '\n' : ''}]}\n`,
      { backup },
    );
  }
}
