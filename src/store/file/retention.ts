/**
 * Crash-safe archive and delete for the file store, and the tombstones of deleted sessions.
 *
 * Moving a session folder is one atomic rename, but an archive or delete is more than that
 * (a lock file to drop, a tombstone to record, a folder to remove), and a process can die
 * between the steps. So each one first writes an **intent marker** `pending/<id>.json`
 * (`{op, id, from, to, …}`, atomically), then renames, then finishes, then removes the
 * marker. Every open of the store looks for markers whose process is gone and finishes
 * (or, when that cannot be done safely, rolls back) the operation they describe:
 *
 * - archive: `sessions/<id>` → `archive/<id>`. Still in `sessions/`: the move is done now
 *   (the journal already records `session.archived`, which is appended before the move);
 *   already in `archive/`: only the dead process's lock file is removed. Both folders
 *   present: nothing is moved (rolled back), and the report says so.
 * - delete: `sessions/<id>` or `archive/<id>` → `trash/<id>-<stamp>`, then the tombstone
 *   (carried by the marker) is appended to `tombstones.jsonl`, then the trash folder is
 *   removed. Every step is completed on the next open; a deletion is never undone.
 *
 * Folders left in `trash/` that no marker names are removed on open.
 *
 * Test hook: `BATON_TEST_CRASH_AT=<step>` (or `<op>:<step>`, op `archive` or `delete`) makes
 * the process kill itself with SIGKILL at that step, so tests can interrupt an operation for
 * real. Steps: `after-marker`, `after-rename`, and for delete also `after-tombstone`,
 * `after-trash`. Read only here; never set it outside tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { conflict } from '../errors.js';
import type { RepairReport, Tombstone, TombstoneInfo } from '../types.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { DIR_MODE, FILE_MODE, TEMP_PATTERN, atomicWrite, fsyncDir } from '../atomic-write.js';
import { deadWriter, moveAside, pidAlive, readIfExists, sleepSync } from './fsutil.js';
import { FOREIGN_STALE_MS, FileLock } from './lock.js';
import type { Layout } from './paths.js';
import { isPlainDir } from './paths.js';
import { asTombstone, isValidId, journalEnd, readDir } from './retention-reads.js';

/** A step of an archive or delete at which the test hook may kill the process. */
export type CrashStep = 'after-marker' | 'after-rename' | 'after-tombstone' | 'after-trash';

type Op = 'archive' | 'delete';

/** The intent marker `pending/<id>.json`. Paths are relative to the store root, with `/`. */
interface Marker {
  format: 'baton.pending';
  v: 1;
  op: Op;
  id: string;
  from: string;
  to: string;
  pid: number;
  host: string;
  startedAt: string;
  /** Delete only: what the registry keeps of the session. */
  tombstone?: Tombstone;
}

/** Kills this process at `step` when the test hook asks for it. */
function crashPoint(op: Op, step: CrashStep): void {
  const want = process.env['BATON_TEST_CRASH_AT'];
  if (!want || (want !== step && want !== `${op}:${step}`)) return;
  process.kill(process.pid, 'SIGKILL');
  for (;;) sleepSync(1_000); // SIGKILL is not handled; wait for it to land
}

/** The archive, delete and recovery steps over one store's folders. */
export class Retention {
  constructor(
    private readonly layout: Layout,
    private readonly now: () => Date,
    private readonly lockTimeoutMs: number | undefined,
  ) {}

  // ---- archive and delete ---------------------------------------------------------------

  /**
   * Moves the live folder `from` of session `id` to the archive. The caller holds `lock`, the
   * session lock inside `from`; it is gone (moved and removed) when this returns or throws.
   */
  archive(id: string, from: string, lock: FileLock): void {
    const to = this.layout.sessionDir(id, true);
    let marker: string;
    try {
      if (fs.existsSync(to)) {
        throw new BatonError(
          'EXISTS',
          `Session ${id} already has an archived folder (archive/${id}) besides its live one; nothing was moved.`,
          {
            hint: hint('doctor.compare-folders'),
            details: { sessionId: id },
          },
        );
      }
      fs.mkdirSync(this.layout.archive, { recursive: true, mode: DIR_MODE });
      marker = this.writeMarker('archive', id, from, to);
    } catch (e) {
      lock.release();
      throw e;
    }
    crashPoint('archive', 'after-marker');
    this.move(from, to, marker, lock);
    crashPoint('archive', 'after-rename');
    // The lock file travelled with the folder.
    fs.rmSync(this.layout.files(to).lock, { force: true });
    this.removeMarker(marker);
  }

  /**
   * Deletes session `id` (folder `found.dir`) if its journal ends at `expectedRevision`, and
   * records its tombstone. The caller holds `lock`, the session lock inside the folder.
   * `beforeMove` runs once the revision was checked and the intent recorded, just before the
   * folder moves to the trash (the registry forgets the id there).
   */
  delete(
    id: string,
    found: { dir: string; archived: boolean },
    lock: FileLock,
    expectedRevision: number,
    info: TombstoneInfo,
    beforeMove: () => void = () => {},
  ): Tombstone {
    const stamp = `${this.now().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    const trash = this.layout.trashDir(id, stamp);
    const tombstone: Tombstone = {
      id,
      deletedAt: info.deletedAt,
      title: info.title,
      status: info.status,
      archived: found.archived,
    };
    let marker: string;
    try {
      const revision = journalEnd(id, this.layout.files(found.dir).journal);
      if (revision !== expectedRevision) throw conflict(id, expectedRevision, revision);
      fs.mkdirSync(this.layout.trash, { recursive: true, mode: DIR_MODE });
      marker = this.writeMarker('delete', id, found.dir, trash, tombstone);
    } catch (e) {
      lock.release();
      throw e;
    }
    crashPoint('delete', 'after-marker');
    beforeMove();
    this.move(found.dir, trash, marker, lock);
    crashPoint('delete', 'after-rename');
    this.appendTombstone(tombstone);
    crashPoint('delete', 'after-tombstone');
    fs.rmSync(trash, { recursive: true, force: true });
    crashPoint('delete', 'after-trash');
    this.removeMarker(marker);
    return tombstone;
  }

  /** Renames `from` to `to` and makes both directory entries durable; on failure the marker goes. */
  private move(from: string, to: string, marker: string, lock: FileLock): void {
    try {
      fs.renameSync(from, to);
    } catch (e) {
      this.removeMarker(marker);
      lock.release();
      throw e;
    }
    fsyncDir(path.dirname(from));
    fsyncDir(path.dirname(to));
  }

  private writeMarker(op: Op, id: string, from: string, to: string, tombstone?: Tombstone): string {
    fs.mkdirSync(this.layout.pending, { recursive: true, mode: DIR_MODE });
    const file = this.layout.pendingFile(id);
    const m: Marker = {
      format: 'baton.pending',
      v: 1,
      op,
      id,
      from: this.rel(from),
      to: this.rel(to),
      pid: process.pid,
      host: os.hostname(),
      startedAt: this.now().toISOString(),
      ...(tombstone ? { tombstone } : {}),
    };
    // Replaces a marker a process that died left for this id: the newest intent wins.
    atomicWrite(file, `${JSON.stringify(m)}\n`);
    return file;
  }

  private removeMarker(file: string): void {
    fs.rmSync(file, { force: true });
    fsyncDir(path.dirname(file));
  }

  private rel(p: string): string {
    return path.relative(this.layout.root, p).split(path.sep).join('/');
  }

  private abs(rel: string): string {
    return path.join(this.layout.root, ...rel.split('/'));
  }

  // ---- tombstones -----------------------------------------------------------------------

  /** Every tombstone, oldest deletion first; damaged lines are skipped. */
  listTombstones(): Tombstone[] {
    const raw = readIfExists(this.layout.tombstones);
    if (raw === null) return [];
    const out: Tombstone[] = [];
    const seen = new Set<string>();
    for (const line of raw.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      const d = decodeRecord(line);
      if (!d.ok) continue;
      const t = asTombstone(d.value);
      if (!t) continue;
      // Finishing a deletion after a crash may record its tombstone a second time.
      const key = `${t.id}\n${t.deletedAt}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(t);
    }
    return out.sort((a, b) => (a.deletedAt < b.deletedAt ? -1 : a.deletedAt > b.deletedAt ? 1 : 0));
  }

  private tombstoneRecorded(t: Tombstone): boolean {
    return this.listTombstones().some((x) => x.id === t.id && x.deletedAt === t.deletedAt);
  }

  /** Appends one tombstone line (checksummed like journal lines) and fsyncs it. */
  private appendTombstone(t: Tombstone): void {
    const fd = fs.openSync(
      this.layout.tombstones,
      fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
      FILE_MODE,
    );
    let created = false;
    try {
      const size = fs.fstatSync(fd).size;
      created = size === 0;
      let prefix = '';
      if (size > 0) {
        // A line cut short by a crash must not swallow this one.
        const last = Buffer.alloc(1);
        fs.readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 10) prefix = '\n';
      }
      const { id, deletedAt, title, status, archived } = t;
      fs.writeSync(fd, `${prefix}${encodeRecord({ id, deletedAt, title, status, archived })}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (created) fsyncDir(this.layout.root);
  }

  // ---- recovery -------------------------------------------------------------------------

  /**
   * Finishes (or rolls back) every archive and delete whose process died, then empties the
   * trash of folders no marker names. Operations of live processes are left alone.
   */
  recover(): RepairReport[] {
    const reports: RepairReport[] = [];
    // The trash is listed before the markers are read: a folder that appears in the trash
    // after this listing is not removed, and one listed here has its marker written already.
    const trash = readDir(this.layout.trash);
    for (const name of readDir(this.layout.pending)) {
      const full = path.join(this.layout.pending, name);
      if (TEMP_PATTERN.test(name)) {
        if (deadWriter(name) !== null) fs.rmSync(full, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const id = name.slice(0, -'.json'.length);
      if (!isValidId(id)) continue;
      try {
        const r = this.recoverOne(id);
        if (r) reports.push(r);
      } catch (e) {
        reports.push({
          sessionId: id,
          kind: 'pending_failed',
          message: `Session ${id}: could not finish an interrupted archive or deletion (${(e as Error).message}); it is tried again on the next open.`,
          savedTo: null,
        });
      }
    }
    if (trash.length) {
      const named = new Set<string>();
      for (const name of readDir(this.layout.pending)) {
        if (!name.endsWith('.json')) continue;
        const m = this.readMarker(path.join(this.layout.pending, name));
        if (m && m !== 'invalid') named.add(m.to);
      }
      for (const name of trash) {
        if (TEMP_PATTERN.test(name) || named.has(`trash/${name}`)) continue;
        fs.rmSync(path.join(this.layout.trash, name), { recursive: true, force: true });
      }
    }
    return reports;
  }

  private recoverOne(id: string): RepairReport | null {
    const file = this.layout.pendingFile(id);
    const first = this.readMarker(file);
    if (first === null || (first !== 'invalid' && this.inProgress(first, file))) return null;
    // One recoverer per marker: others wait, then find it gone.
    const lock = new FileLock(`${file.slice(0, -'.json'.length)}.lock`, this.lockTimeoutMs);
    lock.acquire();
    try {
      const m = this.readMarker(file);
      if (m === null) return null;
      if (m === 'invalid') {
        const savedTo = moveAside(file, this.now());
        return {
          sessionId: id,
          kind: 'pending_failed',
          message: `Session ${id}: the marker of an interrupted archive or deletion is unreadable; moved aside, nothing done.`,
          savedTo,
        };
      }
      if (this.inProgress(m, file)) return null;
      return m.op === 'archive' ? this.finishArchive(m, file) : this.finishDelete(m, file);
    } finally {
      lock.release();
    }
  }

  /** True while the process that wrote the marker may still be working on it. */
  private inProgress(m: Marker, file: string): boolean {
    if (m.host === os.hostname()) return m.pid !== process.pid && pidAlive(m.pid);
    try {
      return Date.now() - fs.statSync(file).mtimeMs < FOREIGN_STALE_MS;
    } catch {
      return false;
    }
  }

  private finishArchive(m: Marker, file: string): RepairReport | null {
    const from = this.abs(m.from);
    const to = this.abs(m.to);
    let report: RepairReport | null = null;
    if (isPlainDir(from) && !fs.existsSync(to)) {
      const lock = this.lockIn(from);
      if (lock) {
        fs.mkdirSync(this.layout.archive, { recursive: true, mode: DIR_MODE });
        fs.renameSync(from, to);
        fsyncDir(path.dirname(from));
        fsyncDir(path.dirname(to));
        fs.rmSync(this.layout.files(to).lock, { force: true });
        report = {
          sessionId: m.id,
          kind: 'archive_completed',
          message: `Session ${m.id}: finished an interrupted archive (moved to ${m.to}).`,
          savedTo: null,
        };
      }
    } else if (isPlainDir(to) && !fs.existsSync(from)) {
      // Moved already: only the lock file of the process that died is left. Taking the lock
      // breaks it (its owner is gone); releasing removes it.
      this.lockIn(to)?.release();
      report = {
        sessionId: m.id,
        kind: 'archive_completed',
        message: `Session ${m.id}: finished an interrupted archive (it was already in ${m.to}).`,
        savedTo: null,
      };
    } else if (fs.existsSync(from) && fs.existsSync(to)) {
      report = {
        sessionId: m.id,
        kind: 'archive_rolled_back',
        message: `Session ${m.id}: an interrupted archive could not be finished, as both ${m.from} and ${m.to} exist; nothing was moved (the live folder is the one used). Compare them, remove one, then archive again.`,
        savedTo: null,
      };
    }
    this.removeMarker(file);
    return report;
  }

  private finishDelete(m: Marker, file: string): RepairReport {
    const from = this.abs(m.from);
    const trash = this.abs(m.to);
    const t = m.tombstone!;
    const recorded = this.tombstoneRecorded(t);
    // The folder went to the trash before the tombstone was written, and the trash is emptied
    // only after: with neither, the rename never happened. (A folder at `from` after the
    // rename is a new session that took the freed id; it is not touched.)
    if (!recorded && !fs.existsSync(trash) && isPlainDir(from)) {
      const lock = this.lockIn(from);
      if (lock) {
        fs.mkdirSync(this.layout.trash, { recursive: true, mode: DIR_MODE });
        fs.renameSync(from, trash);
        fsyncDir(path.dirname(from));
        fsyncDir(path.dirname(trash));
      }
    }
    if (!recorded) this.appendTombstone(t);
    fs.rmSync(trash, { recursive: true, force: true });
    this.removeMarker(file);
    return {
      sessionId: m.id,
      kind: 'delete_completed',
      message: `Session ${m.id}: finished an interrupted deletion (tombstone recorded, folder removed).`,
      savedTo: null,
    };
  }

  /** Takes the session lock inside `dir` (breaking a dead owner's); null when the folder went away meanwhile. */
  private lockIn(dir: string): FileLock | null {
    const lock = new FileLock(this.layout.files(dir).lock, this.lockTimeoutMs);
    try {
      lock.acquire();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return isPlainDir(dir) ? lock : null;
  }

  /** A marker as read: null when there is none, 'invalid' when it cannot be trusted. */
  private readMarker(file: string): Marker | 'invalid' | null {
    let raw: Buffer | null;
    try {
      raw = readIfExists(file);
    } catch {
      return 'invalid';
    }
    if (raw === null) return null;
    let m: Marker;
    try {
      m = JSON.parse(raw.toString('utf8')) as Marker;
    } catch {
      return 'invalid';
    }
    return this.markerFits(m, path.basename(file, '.json')) ? m : 'invalid';
  }

  /** A marker is acted on only when its paths are exactly the ones its op and id allow. */
  private markerFits(m: Marker, id: string): boolean {
    if (
      !m ||
      typeof m !== 'object' ||
      m.format !== 'baton.pending' ||
      m.id !== id ||
      typeof m.pid !== 'number' ||
      typeof m.host !== 'string'
    )
      return false;
    const live = this.rel(this.layout.sessionDir(id));
    const archived = this.rel(this.layout.sessionDir(id, true));
    if (m.op === 'archive') return m.from === live && m.to === archived;
    if (
      m.op !== 'delete' ||
      (m.from !== live && m.from !== archived) ||
      !asTombstone(m.tombstone) ||
      m.tombstone?.id !== id
    )
      return false;
    const prefix = `trash/${id}-`;
    return typeof m.to === 'string' && m.to.startsWith(prefix) && /^[A-Za-z0-9-]+$/.test(m.to.slice(prefix.length));
  }
}
