import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { Actor, NewEvent, StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import type { SessionSummary } from '../../domain/summary.js';
import { checkCheckpoint, conflict, exists, notFound } from '../memory.js';
import type { AppendOptions, Checkpoint, CheckpointRead, ListResult, ListRowsResult, LoadResult, RepairReport, SessionStore, Snapshot, StoreCapabilities, Tombstone, TombstoneInfo } from '../types.js';
import { CheckpointFiles } from './checkpoints.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { fileDoctor } from './doctor.js';
import type { FileDoctorResult } from './doctor.js';
import { DIR_MODE, FILE_MODE, atomicWrite, fsyncDir, moveAside, readIfExists, removeStaleTemps, sleepSync } from './fsutil.js';
import { readTail, scanJournal } from './journal.js';
import type { Scan } from './journal.js';
import { FileLock, MAX_BACKOFF_MS } from './lock.js';
import { Layout, isPlainDir } from './paths.js';
import { Registry } from './registry.js';
import { Retention } from './retention.js';
import { watchJournals } from './watch.js';

/** Version of the on-disk layout this code writes. */
export const FILE_FORMAT_VERSION = 1;
/** Version of each journal line (`v`). */
export const EVENT_FORMAT_VERSION = 1;

/** Options of {@link FileStore}. */
export interface FileStoreOptions {
  /** The `.baton` directory. Created by {@link FileStore.init}. */
  root: string;
  now?: () => Date;
  lockTimeoutMs?: number;
  /** index.log is folded into index.json and started afresh past this many bytes (default 4 MiB). */
  registryLogMaxBytes?: number;
}

interface Handle {
  dir: string;
  journal: string;
  snapshotFile: string;
  lock: FileLock;
  fd: number;
  /** Last seq and end offset this process knows, valid while `size` matches the file. */
  lastSeq: number;
  end: number;
  release: NodeJS.Immediate | null;
  /** An append happened since the release was scheduled. */
  busy: boolean;
  /** When the lock was taken or last checked for a waiting process. */
  checkedAt: number;
}

/** How often a burst holding a session lock looks for a waiting process. */
const HANDOVER_CHECK_MS = 5;
/** Longest a burst stands back for a waiting process before it competes for the lock again. */
const HANDOVER_WAIT_MS = 50;

/** snapshot.json as stored: the state at `revision` and the journal offset of the next line. */
export interface SnapshotRecord {
  format: 'baton.snapshot';
  v: number;
  sessionId: string;
  revision: number;
  offset: number;
  state: Snapshot['state'];
}

/**
 * The default store: one folder per session under `.baton/sessions/`, an append-only
 * `journal.jsonl` whose lines carry checksums, a `snapshot.json` (+ `.bak`), a derived
 * registry cache, and the `active` pointer. Writers on one machine are serialised by a
 * per-session lock file; every append is conditional on the revision and fsynced before it
 * resolves. File I/O is synchronous on purpose: appends are tiny and the fsync dominates,
 * so the thread-pool round trips of async I/O would only add latency.
 */
export class FileStore implements SessionStore {
  readonly kind = 'file';
  readonly capabilities: StoreCapabilities = { multiProcess: true, multiMachine: false, durable: true };
  readonly layout: Layout;
  private readonly now: () => Date;
  private readonly lockTimeoutMs: number | undefined;
  private readonly handles = new Map<string, Handle>();
  private readonly registry: Registry;
  private readonly retention: Retention;
  /** Interrupted archives and deletions finished when the store was opened, reported by the next load or list. */
  private readonly notices: RepairReport[];
  private readonly actor: Actor = { agent: 'baton', pid: process.pid, host: os.hostname() };

  constructor(options: FileStoreOptions) {
    this.layout = new Layout(path.resolve(options.root));
    this.now = options.now ?? (() => new Date());
    this.lockTimeoutMs = options.lockTimeoutMs;
    this.registry = new Registry(this.layout, this.now, options.registryLogMaxBytes);
    this.checkFormat();
    this.retention = new Retention(this.layout, this.now, this.lockTimeoutMs);
    this.notices = this.retention.recover();
  }

  get location(): string {
    return this.layout.root;
  }

  /** True when a store (or at least its folder) exists at `root`. */
  static exists(root: string): boolean {
    return isPlainDir(path.resolve(root));
  }

  /** Creates an empty store at `root` (idempotent). */
  static init(root: string): void {
    const layout = new Layout(path.resolve(root));
    for (const d of [layout.root, layout.sessions, layout.archive]) fs.mkdirSync(d, { recursive: true, mode: DIR_MODE });
    if (!fs.existsSync(layout.meta)) atomicWrite(layout.meta, `${JSON.stringify({ format: 'baton.store', version: FILE_FORMAT_VERSION })}\n`);
  }

  private checkFormat(): void {
    const raw = readIfExists(this.layout.meta);
    if (raw === null) {
      if (!isPlainDir(this.layout.root)) {
        throw new BatonError('NO_STORE', `No baton store at ${this.layout.root}.`, { hint: hint('store.init') });
      }
      return;
    }
    let version: unknown;
    try {
      version = (JSON.parse(raw.toString('utf8')) as { version?: unknown }).version;
    } catch {
      return; // a damaged marker file says nothing about the data; the data checks itself
    }
    if (typeof version === 'number' && version > FILE_FORMAT_VERSION) {
      throw new BatonError('UNSUPPORTED_VERSION', `The store at ${this.layout.root} has format ${version}; this baton reads up to ${FILE_FORMAT_VERSION}.`, {
        hint: 'Upgrade baton (npm install -g baton@latest).',
      });
    }
  }

  private locate(id: string): { dir: string; archived: boolean } | null {
    validateId(id);
    const live = this.layout.sessionDir(id);
    if (isPlainDir(live)) return { dir: live, archived: false };
    const arch = this.layout.sessionDir(id, true);
    if (isPlainDir(arch)) return { dir: arch, archived: true };
    return null;
  }

  private handle(id: string): Handle {
    // While this process holds the lock nobody can move or write the session: skip the lookups.
    const held = this.handles.get(id);
    if (held?.lock.isHeld) return held;
    const found = this.locate(id);
    if (!found) throw notFound(id);
    let h = this.handles.get(id);
    if (h && h.dir === found.dir) return h;
    if (h) this.drop(id);
    const files = this.layout.files(found.dir);
    let fd: number;
    try {
      fd = fs.openSync(files.journal, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new BatonError('CORRUPT', `Session ${id} has no journal.jsonl.`, {
          hint: `Its folder ${found.dir} is incomplete; restore journal.jsonl from a backup or remove the folder.`,
        });
      }
      throw e;
    }
    h = { dir: found.dir, journal: files.journal, snapshotFile: files.snapshot, lock: new FileLock(files.lock, this.lockTimeoutMs), fd, lastSeq: -1, end: -1, release: null, busy: false, checkedAt: 0 };
    this.handles.set(id, h);
    return h;
  }

  private drop(id: string): void {
    const h = this.handles.get(id);
    if (!h) return;
    releaseNow(h);
    fs.closeSync(h.fd);
    this.handles.delete(id);
  }

  /*
   * The lock is kept until the event loop turns once, so a caller appending in a loop pays
   * for one lock per burst instead of one per event; other processes wait at most that long,
   * and a burst hands the lock over when another process leaves a `.want` marker (checked
   * every few ms). Every section under a session lock is synchronous, so a lock of this
   * process that is only lingering can be released at once when another store instance here
   * needs it (waiting for it would block the very event loop that would release it).
   */
  private lock(h: Handle): void {
    if (h.lock.isHeld) {
      h.busy = true;
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
    h.lastSeq = -1;
    h.checkedAt = Date.now();
    this.reopenIfReplaced(h);
    lingering.set(h.lock.file, h);
    h.busy = false;
    scheduleRelease(h);
  }

  /**
   * Reopens the journal when the file at its path is no longer the one `h.fd` holds: `repair`
   * (here or in another process) replaced it. Appending through the old descriptor would
   * write into a file nobody reads any more.
   */
  private reopenIfReplaced(h: Handle): void {
    let onDisk: fs.Stats;
    try {
      onDisk = fs.statSync(h.journal);
    } catch {
      return; // gone or moved: the next locate() notices
    }
    const open = fs.fstatSync(h.fd);
    if (onDisk.ino === open.ino && onDisk.dev === open.dev) return;
    const fd = fs.openSync(h.journal, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
    fs.closeSync(h.fd);
    h.fd = fd;
    h.lastSeq = -1;
    h.end = -1;
  }

  /** Brings `h.lastSeq`/`h.end` up to date and cuts a torn tail. Caller holds the lock. */
  private syncTail(id: string, h: Handle, repairs: RepairReport[]): void {
    // lastSeq is reset whenever the lock is (re)taken, so a known value is still current.
    if (h.lastSeq >= 0) return;
    const size = fs.fstatSync(h.fd).size;
    const tail = readTail(h.fd);
    if (tail.corrupt) {
      throw new BatonError('CORRUPT', `The end of session ${id}'s journal is damaged (more than a torn last line).`, {
        hint: hint('repair.keeps-lines', { session: id }),
        details: { sessionId: id, journal: h.journal },
      });
    }
    h.lastSeq = tail.lastSeq;
    h.end = tail.goodEnd;
    if (tail.torn) {
      const cut = Buffer.alloc(size - tail.goodEnd);
      fs.readSync(h.fd, cut, 0, cut.length, tail.goodEnd);
      const savedTo = `${h.journal}.torn-${this.now().toISOString().replace(/[:.]/g, '-')}`;
      fs.writeFileSync(savedTo, cut, { mode: FILE_MODE });
      fs.ftruncateSync(h.fd, tail.goodEnd);
      fs.fsyncSync(h.fd);
      this.write(h, [
        { type: 'repair.torn_tail', time: this.now().toISOString(), actor: this.actor, data: { truncatedBytes: cut.length, savedTo: path.basename(savedTo) } },
      ]);
      repairs.push({
        sessionId: id,
        kind: 'torn_tail',
        message: `Session ${id}: cut a torn last journal line (${cut.length} bytes, an append that was never acknowledged); kept in ${path.basename(savedTo)}.`,
        savedTo,
      });
    }
  }

  /** Writes events after `h.lastSeq` and fsyncs. Caller holds the lock and has synced the tail. */
  private write(h: Handle, events: NewEvent[]): number {
    let seq = h.lastSeq;
    let out = '';
    // Lines of a multi-event append name their batch, so that a crash that leaves only part of
    // it on disk is cut as a whole: an append is all or nothing.
    const batch = events.length > 1 ? { batch: [seq + 1, seq + events.length] } : {};
    for (const e of events) {
      seq += 1;
      out += `${encodeRecord({ v: EVENT_FORMAT_VERSION, seq, ...batch, ...stripSeq(e) })}\n`;
    }
    const length = Buffer.byteLength(out);
    try {
      // One write per batch: a crash can tear only its end, which the next open cuts.
      if (fs.writeSync(h.fd, out) !== length) throw new Error('short write to the journal');
      fs.fdatasyncSync(h.fd);
    } catch (e) {
      h.lastSeq = -1; // a partial write may be on disk: re-read the tail next time
      throw e;
    }
    h.lastSeq = seq;
    h.end += length;
    return seq;
  }

  async create(id: string, events: NewEvent[], summary: SessionSummary): Promise<{ revision: number }> {
    validateId(id);
    if (this.locate(id)) throw exists(id);
    const dir = this.layout.sessionDir(id);
    const tmp = `${dir}.creating-${process.pid}-${Date.now().toString(36)}`;
    fs.mkdirSync(tmp, { mode: DIR_MODE });
    const files = this.layout.files(tmp);
    let seq = 0;
    const body = events.map((e) => `${encodeRecord({ v: EVENT_FORMAT_VERSION, seq: ++seq, ...stripSeq(e) })}\n`).join('');
    const fd = fs.openSync(files.journal, 'wx', FILE_MODE);
    try {
      fs.writeSync(fd, body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(tmp);
    // The folder appears under its final name in one rename, so a half-made session is never seen.
    try {
      fs.renameSync(tmp, dir);
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      if (['ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) throw exists(id);
      throw e;
    }
    fsyncDir(this.layout.sessions);
    this.registry.record(summary);
    return { revision: seq };
  }

  async exists(id: string): Promise<boolean> {
    return this.locate(id) !== null;
  }

  async load(id: string): Promise<LoadResult> {
    const h = this.handle(id);
    if (!h.lock.isHeld) this.reopenIfReplaced(h);
    const repairs: RepairReport[] = this.notices.splice(0);
    const snap = this.readSnapshot(id, h, repairs);
    let scan = this.scanFrom(h, snap);
    if (scan.tornAt !== null) {
      this.lock(h);
      h.lastSeq = -1;
      this.syncTail(id, h, repairs);
      scan = this.scanFrom(h, snap);
    }
    if (scan.bad.length) {
      const first = scan.bad[0]!;
      throw new BatonError('CORRUPT', `Session ${id}'s journal has ${scan.bad.length} damaged line(s), first near byte ${first.offset} (${first.reason}).`, {
        hint: hint('repair.rebuilds', { session: id }),
        details: { sessionId: id, badLines: scan.bad.map((b) => ({ offset: b.offset, reason: b.reason })) },
      });
    }
    return { snapshot: snap ? { revision: snap.revision, state: snap.state } : null, events: scan.events, revision: scan.lastSeq, repairs };
  }

  private scanFrom(h: Handle, snap: SnapshotRecord | null): Scan {
    const size = fs.fstatSync(h.fd).size;
    const from = snap ? snap.offset : 0;
    const buf = Buffer.allocUnsafe(size - from);
    fs.readSync(h.fd, buf, 0, buf.length, from);
    const scan = scanJournal(buf, 0, snap ? snap.revision + 1 : 1);
    // Offsets in `scan` are relative to `from`.
    scan.goodEnd += from;
    if (scan.tornAt !== null) scan.tornAt += from;
    for (const b of scan.bad) b.offset += from;
    return scan;
  }

  /** The newest valid snapshot (snapshot.json, else .bak) that agrees with the journal. */
  private readSnapshot(id: string, h: Handle, repairs: RepairReport[]): SnapshotRecord | null {
    for (const file of [h.snapshotFile, `${h.snapshotFile}.bak`]) {
      const raw = readIfExists(file);
      if (raw === null) continue;
      const d = decodeRecord(raw.toString('utf8').trimEnd());
      const rec = d.ok ? (d.value as unknown as SnapshotRecord) : null;
      if (!rec || rec.format !== 'baton.snapshot' || rec.sessionId !== id || typeof rec.offset !== 'number') {
        let savedTo: string | null = null;
        try {
          savedTo = moveAside(file, this.now());
        } catch {
          // another process moved it first
        }
        repairs.push({
          sessionId: id,
          kind: 'snapshot_corrupt',
          message: `Session ${id}: ${path.basename(file)} is unreadable (${d.ok ? 'not a snapshot of this session' : d.reason}); moved aside, state rebuilt from the journal.`,
          savedTo,
        });
        continue;
      }
      if (rec.v > FILE_FORMAT_VERSION) {
        throw new BatonError('UNSUPPORTED_VERSION', `Session ${id}'s snapshot has format ${rec.v}; this baton reads up to ${FILE_FORMAT_VERSION}.`, {
          hint: 'Upgrade baton.',
        });
      }
      if (this.snapshotFits(h, rec)) return rec;
      repairs.push({ sessionId: id, kind: 'snapshot_stale', message: `Session ${id}: ${path.basename(file)} does not match the journal; ignored.`, savedTo: null });
    }
    return null;
  }

  /** A snapshot fits when the journal line at its offset is the event right after it. */
  private snapshotFits(h: Handle, rec: SnapshotRecord): boolean {
    const size = fs.fstatSync(h.fd).size;
    if (rec.offset > size || rec.offset < 0) return false;
    if (rec.offset === 0) return rec.revision === 0;
    const prev = Buffer.alloc(1);
    fs.readSync(h.fd, prev, 0, 1, rec.offset - 1);
    if (prev[0] !== 10) return false;
    if (rec.offset === size) return true;
    const head = Buffer.alloc(Math.min(64, size - rec.offset));
    fs.readSync(h.fd, head, 0, head.length, rec.offset);
    const m = /^\{"v":\d+,"seq":(\d+),/.exec(head.toString('utf8'));
    if (m !== null) return Number(m[1]) === rec.revision + 1;
    // A write torn before its seq was complete, right after the snapshot: the tail repair
    // cuts it away, so the snapshot still describes everything that was durable.
    return this.isUnterminatedTail(h, rec.offset, size);
  }

  /** True when the bytes from `offset` to the end hold no newline: one incomplete line. */
  private isUnterminatedTail(h: Handle, offset: number, size: number): boolean {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (let at = offset; at < size; at += chunk.length) {
      const n = fs.readSync(h.fd, chunk, 0, Math.min(chunk.length, size - at), at);
      if (chunk.subarray(0, n).includes(10)) return false;
    }
    return true;
  }

  async readEvents(id: string, afterSeq = 0): Promise<StoredEvent[]> {
    const h = this.handle(id);
    const buf = fs.readFileSync(h.journal);
    const scan = scanJournal(buf, 0, 1);
    if (scan.bad.length) {
      throw new BatonError('CORRUPT', `Session ${id}'s journal has ${scan.bad.length} damaged line(s).`, {
        hint: hint('repair.run', { session: id }),
      });
    }
    return scan.events.filter((e) => e.seq > afterSeq);
  }

  async append(id: string, expectedRevision: number, events: NewEvent[], options: AppendOptions = {}): Promise<{ revision: number }> {
    const h = this.handle(id);
    this.lock(h);
    const repairs: RepairReport[] = [];
    this.syncTail(id, h, repairs);
    if (h.lastSeq !== expectedRevision) throw conflict(id, expectedRevision, h.lastSeq);
    const revision = this.write(h, events);
    if (options.summary) this.registry.record({ ...options.summary, revision });
    return { revision };
  }

  async writeSnapshot(id: string, snapshot: Snapshot): Promise<void> {
    const h = this.handle(id);
    this.lock(h);
    this.syncTail(id, h, []);
    if (snapshot.revision > h.lastSeq) {
      throw new BatonError('BAD_INPUT', `Snapshot revision ${snapshot.revision} is past the journal end ${h.lastSeq}.`);
    }
    const offset = snapshot.revision === h.lastSeq ? h.end : this.offsetAfter(h, snapshot.revision);
    const rec: SnapshotRecord = { format: 'baton.snapshot', v: FILE_FORMAT_VERSION, sessionId: id, revision: snapshot.revision, offset, state: snapshot.state };
    removeStaleTemps(h.dir, path.basename(h.snapshotFile));
    atomicWrite(h.snapshotFile, `${encodeRecord(rec)}\n`, { backup: true });
  }

  private offsetAfter(h: Handle, revision: number): number {
    const scan = scanJournal(fs.readFileSync(h.journal), 0, 1);
    const i = scan.events.findIndex((e) => e.seq === revision);
    if (i === -1) throw new BatonError('BAD_INPUT', `Revision ${revision} is not in the journal.`);
    return scan.ends[i]!;
  }

  async list(options: { rebuild?: boolean } = {}): Promise<ListResult> {
    const r = this.registry.list(options.rebuild === true);
    r.repairs.unshift(...this.notices.splice(0));
    return r;
  }

  async listRows(options: { rebuild?: boolean } = {}): Promise<ListRowsResult> {
    const r = this.registry.listRows(options.rebuild === true);
    r.repairs.unshift(...this.notices.splice(0));
    return r;
  }

  async putSummaries(rows: SessionSummary[]): Promise<void> {
    this.registry.putMany(rows);
  }

  async getActive(): Promise<string | null> {
    const raw = readIfExists(this.layout.active);
    if (raw === null) return null;
    const id = raw.toString('utf8').trim();
    return id === '' ? null : id;
  }

  async setActive(id: string | null): Promise<void> {
    if (id === null) {
      fs.rmSync(this.layout.active, { force: true });
      return;
    }
    if (!this.locate(id)) throw notFound(id);
    atomicWrite(this.layout.active, `${id}\n`);
  }

  async withWorkspaceLock<T>(fn: () => Promise<T>): Promise<T> {
    const lock = new FileLock(this.layout.workspaceLock, this.lockTimeoutMs);
    // Held across `await`: wait without blocking, the holder may be a task of this process.
    await lock.acquireAsync();
    try {
      return await fn();
    } finally {
      lock.release();
    }
  }

  async archive(id: string): Promise<void> {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    if (found.archived) return;
    const held = this.lockFolder(id);
    if (held.found.archived) return held.lock.release();
    // Crash-safe: an intent marker makes the next open finish a move that was cut short.
    this.retention.archive(id, held.found.dir, held.lock);
  }

  async delete(id: string, expectedRevision: number, info: TombstoneInfo): Promise<Tombstone> {
    const { found, lock } = this.lockFolder(id);
    return this.retention.delete(id, found, lock, expectedRevision, info);
  }

  async listTombstones(): Promise<Tombstone[]> {
    return this.retention.listTombstones();
  }

  takeRepairs(): RepairReport[] {
    return this.notices.splice(0);
  }

  /**
   * Takes the session lock of `id` to move its folder, after dropping this process's handle.
   * A folder moved by another process while this one waited is looked up again.
   */
  private lockFolder(id: string): { found: { dir: string; archived: boolean }; lock: FileLock } {
    for (let attempt = 1; ; attempt++) {
      const found = this.locate(id);
      if (!found) throw notFound(id);
      this.drop(id);
      const lock = new FileLock(this.layout.files(found.dir).lock, this.lockTimeoutMs);
      releaseLingering(lock.file, null);
      try {
        lock.acquire();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 10) continue;
        throw e;
      }
      return { found, lock };
    }
  }

  sessionFolder(id: string): string | null {
    return this.locate(id)?.dir ?? null;
  }

  async isArchived(id: string): Promise<boolean> {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return found.archived;
  }

  async repair(id: string): Promise<RepairReport[]> {
    const h = this.handle(id);
    this.lock(h);
    const buf = fs.readFileSync(h.journal);
    const scan = scanJournal(buf, 0, 1);
    if (!scan.bad.length && scan.tornAt === null) return [];
    const repairs: RepairReport[] = [];
    const stamp = this.now().toISOString().replace(/[:.]/g, '-');
    const savedTo = `${h.journal}.corrupt-${stamp}`;
    fs.writeFileSync(savedTo, buf, { mode: FILE_MODE });
    // Rebuild: every readable event keeps its seq. Each unreadable line becomes a repair event
    // carrying its raw text, at the seq of an event missing before the next readable one (a
    // damaged line stands for the event it held). Missing seqs with no damaged line to fill
    // them (lines deleted by hand, two lines run together) get an empty repair event, and
    // damaged lines with no missing seq to take (duplicates, inserted junk) go after the last
    // event, so seq stays contiguous, no readable event moves and no byte is dropped.
    const lines = splitLines(buf);
    const out: string[] = [];
    let seq = 0;
    const unreadable: number[] = [];
    const time = this.now().toISOString();
    const pending: Array<{ raw: string; line: number }> = [];
    const unreadableEvent = (raw: string, line: number): void => {
      seq += 1;
      unreadable.push(line);
      out.push(encodeRecord({ v: EVENT_FORMAT_VERSION, seq, type: 'repair.unreadable_line', time, actor: this.actor, data: { raw: raw.slice(0, 1_000_000), line } }));
    };
    lines.forEach((raw, i) => {
      if (raw.trim() === '') return;
      const isLast = i === lines.length - 1;
      if (isLast && scan.tornAt !== null) return; // torn tail: cut, its bytes are in savedTo
      const d = decodeRecord(raw);
      const at = d.ok ? d.value['seq'] : undefined;
      const readable = d.ok && typeof d.value['type'] === 'string' && typeof at === 'number' && Number.isInteger(at) && at > seq;
      if (!readable) {
        pending.push({ raw, line: i + 1 });
        return;
      }
      while (seq + 1 < (at as number)) {
        const p = pending.shift();
        if (p) unreadableEvent(p.raw, p.line);
        else unreadableEvent('', i + 1);
      }
      out.push(raw);
      seq = at as number;
    });
    for (const p of pending) unreadableEvent(p.raw, p.line);
    seq += 1;
    out.push(encodeRecord({ v: EVENT_FORMAT_VERSION, seq, type: 'repair.journal', time, actor: this.actor, data: { savedTo: path.basename(savedTo), unreadableLines: unreadable } }));
    atomicWrite(h.journal, `${out.join('\n')}\n`);
    // The journal file was replaced: reopen it and drop the now-mismatched snapshots.
    for (const f of [h.snapshotFile, `${h.snapshotFile}.bak`]) fs.rmSync(f, { force: true });
    this.drop(id);
    repairs.push({
      sessionId: id,
      kind: 'journal_rewritten',
      message: `Session ${id}: journal rebuilt; ${unreadable.length} unreadable line(s) kept as repair events; the original is in ${path.basename(savedTo)}.`,
      savedTo,
    });
    return repairs;
  }

  private checkpoints(id: string): CheckpointFiles {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return new CheckpointFiles(this.layout, id, found.dir);
  }

  async saveCheckpoint(id: string, checkpoint: Checkpoint): Promise<void> {
    const h = this.handle(id);
    validateId(checkpoint.id, 'checkpoint id');
    // Read without the lock: the journal only grows, so its end now is a safe upper bound.
    checkCheckpoint(id, checkpoint, h.lock.isHeld && h.lastSeq >= 0 ? h.lastSeq : readTail(h.fd).lastSeq);
    new CheckpointFiles(this.layout, id, h.dir).save(checkpoint);
  }

  async listCheckpoints(id: string): Promise<CheckpointRead[]> {
    return this.checkpoints(id).list();
  }

  async readCheckpoint(id: string, checkpointId: string): Promise<CheckpointRead> {
    const files = this.checkpoints(id);
    validateId(checkpointId, 'checkpoint id');
    return files.get(checkpointId);
  }

  /** `baton doctor`: file-level checks, and fixes of temp files, stale locks and snapshots (see doctor.ts). */
  async doctor(options: { fix: boolean }): Promise<FileDoctorResult> {
    return fileDoctor(this.layout, { fix: options.fix, now: this.now(), formatVersion: FILE_FORMAT_VERSION });
  }

  /** Reports journal changes of live sessions: `fs.watch` on `sessions/`, debounced, with a fallback poll (see watch.ts). */
  watch(onChange: (c: { sessionId: string; revision: number }) => void): Promise<() => Promise<void>> {
    return watchJournals(this.layout, onChange);
  }

  async close(): Promise<void> {
    for (const id of [...this.handles.keys()]) this.drop(id);
    this.registry.close();
  }
}

/** Session locks of this process kept only until the event loop turns, by lock file. */
const lingering = new Map<string, Handle>();

/** Releases the lock once the event loop turns with no append since the last turn. */
function scheduleRelease(h: Handle): void {
  h.release = setImmediate(() => {
    h.release = null;
    if (h.busy) {
      h.busy = false;
      scheduleRelease(h);
      return;
    }
    releaseNow(h);
  });
}

/** Releases a handle's session lock now (and forgets its linger). */
function releaseNow(h: Handle): void {
  if (h.release) {
    clearImmediate(h.release);
    h.release = null;
  }
  if (lingering.get(h.lock.file) === h) lingering.delete(h.lock.file);
  h.lock.release();
}

/** Cuts short the linger of another handle of this process on the same lock file. */
function releaseLingering(file: string, except: Handle | null): void {
  const other = lingering.get(file);
  if (other && other !== except) releaseNow(other);
}

function stripSeq(e: NewEvent): NewEvent {
  const { seq: _s, v: _v, ...rest } = e as NewEvent & { seq?: number; v?: number };
  return rest as NewEvent;
}

function splitLines(buf: Buffer): string[] {
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
