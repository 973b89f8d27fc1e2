import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import type { SessionSummary } from '../../domain/summary.js';
import { atomicWrite } from '../atomic-write.js';
import { checkCheckpoint, conflict, eventsLost, exists, notFound, readOnlyStore } from '../errors.js';
import type {
  AppendOptions,
  Checkpoint,
  CheckpointRead,
  ListResult,
  ListRowsResult,
  LoadResult,
  RepairReport,
  SessionStore,
  Snapshot,
  StoreCapabilities,
  Tombstone,
  TombstoneInfo,
} from '../types.js';
import { syncTail, writeEvents } from './append.js';
import type { Writer } from './append.js';
import { CheckpointFiles } from './checkpoints.js';
import { fileDoctor } from './doctor.js';
import type { FileDoctorResult } from './doctor.js';
import { readIfExists } from './fsutil.js';
import { checkStoreFormat, initStore } from './store-format.js';
import { recoverLostEvents, repairJournal } from './journal-repair.js';
import { provenRevision, readRacingWriters } from './loss.js';
import { readTail, scanJournal } from './journal.js';
import { FileLock } from './lock.js';
import { Layout, isPlainDir } from './paths.js';
import { Registry } from './registry.js';
import { Retention } from './retention.js';
import { lockSession, releaseLingering, releaseNow, reopenIfReplaced } from './session-lock.js';
import { putDerivedRows } from './derived-rows.js';
import type { Handle } from './handle.js';
import { FILE_FORMAT_VERSION, storeSnapshot } from './snapshot.js';
import { DerivedFiles } from './derived-files.js';
import { ListView } from './list-view.js';
import { makeSessionFolder } from './create.js';
import { nodeFs } from './io.js';
import type { StoreFs } from './io.js';
import { FileCursorTable } from './cursors.js';
import { FileStepResults } from './step-results.js';
import { watchJournals } from './watch.js';
import { withStoreErrors } from '../os-errors.js';
import { readOnlyReason } from './read-only.js';
import { openHandle } from './open-handle.js';
import { loadJournal } from './load.js';
import { eventsOfJournal } from './read-events.js';
import { eventPage } from './event-page.js';

/** Options of {@link FileStore}. */
export interface FileStoreOptions {
  /** The `.baton` directory. Created by {@link FileStore.init}. */
  root: string;
  now?: () => Date;
  lockTimeoutMs?: number;
  /** index.log is folded into index.json and started afresh past this many bytes (default 4 MiB). */
  registryLogMaxBytes?: number;
  /** The file-system calls of the write paths (default: Node's `fs`); tests inject failures (see io.ts). */
  fs?: StoreFs;
  /**
   * Never write, even when the store could be written (the dashboard): see read-only.ts.
   * Without it, a store that cannot be written (a read-only mount, another user's files) is
   * found out when opened and read the same way.
   */
  readOnly?: boolean;
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
  private readonly writer: Writer;
  /** What `list --json` printed last, while the registry is unchanged. */
  readonly listView: ListView;
  private readonly io: StoreFs;
  /** Named positions of the store's readers (capability `cursors`). */
  readonly cursors: FileCursorTable;
  /** Large results of durable steps, beside each journal (capability `step results`). */ readonly stepResults =
    withStoreErrors(
      new FileStepResults(
        (id) => this.sessionFolder(id),
        () => this.writable(),
      ),
      (method) => `The file store's step result ${method}`,
    );
  /** Why this store never writes (see read-only.ts), or null. */
  readonly readOnly: string | null;

  constructor(options: FileStoreOptions) {
    this.io = options.fs ?? nodeFs;
    this.layout = new Layout(path.resolve(options.root));
    this.now = options.now ?? (() => new Date());
    this.writer = { now: this.now, actor: { agent: 'baton', pid: process.pid, host: os.hostname() } };
    this.lockTimeoutMs = options.lockTimeoutMs;
    checkStoreFormat(this.layout);
    this.readOnly =
      options.readOnly === true ? 'opened read-only' : readOnlyReason(this.layout.root, this.layout.sessions);
    this.registry = new Registry(this.layout, this.now, options.registryLogMaxBytes, this.readOnly !== null);
    this.listView = new ListView(this.layout, this.readOnly !== null);
    this.retention = new Retention(this.layout, this.now, this.lockTimeoutMs);
    // Interrupted archives and deletions are finished by the next open that can write.
    this.notices = this.readOnly === null ? this.retention.recover() : [];
    this.cursors = withStoreErrors(
      new FileCursorTable(this.layout.cursors, this.lockTimeoutMs, () => this.writable()),
      (method) => `The file store's cursor ${method}`,
    );
    // A full disk, EIO, a read-only file system … reach the caller as STORE_UNAVAILABLE (STORE_READ_ONLY).
    // biome-ignore lint/correctness/noConstructorReturn: callers get the store behind its error translation
    return withStoreErrors(
      this,
      (method, args) => `The file store's ${method}${typeof args[0] === 'string' ? ` (session ${args[0]})` : ''}`,
    );
  }

  /**
   * Refuses a write (`STORE_READ_ONLY`) when the store, or the journal of handle `h`, cannot be
   * written: before a byte is written, naming the store (and the session folder that is not
   * writable inside a writable store).
   */
  private writable(h?: Handle): void {
    if (this.readOnly !== null) throw readOnlyStore(this.layout.root, this.readOnly);
    if (h?.readOnly) throw readOnlyStore(this.layout.root, `${h.readOnly} on ${h.dir}`);
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
    initStore(new Layout(path.resolve(root)));
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
    h = openHandle(this.layout, this.io, this.readOnly, this.lockTimeoutMs, id, found.dir);
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

  async create(id: string, events: NewEvent[], summary: SessionSummary): Promise<{ revision: number }> {
    validateId(id);
    this.writable();
    if (this.locate(id)) throw exists(id);
    makeSessionFolder(this.layout, this.io, id, events);
    this.recordRow(id, () => this.registry.recordNew(summary));
    return { revision: events.length };
  }

  async exists(id: string): Promise<boolean> {
    // While this process holds the session's lock nobody can move or delete it (as in handle()).
    if (this.handles.get(id)?.lock.isHeld) return true;
    return this.locate(id) !== null;
  }

  async load(id: string): Promise<LoadResult> {
    const h = this.handle(id);
    reopenIfReplaced(h);
    const repairs: RepairReport[] = this.notices.splice(0);
    return loadJournal(this.now, this.writer, id, h, repairs, (last) => this.guardLoss(id, h, last));
  }

  async readEvents(id: string, afterSeq = 0, limit?: number): Promise<StoredEvent[]> {
    const h = this.handle(id);
    reopenIfReplaced(h);
    if (limit !== undefined) return eventPage(id, h, afterSeq, limit);
    return readRacingWriters(h.journal, (buf) =>
      eventsOfJournal(id, h.journal, buf, afterSeq, (end, known) => this.guardLoss(id, h, end, known)),
    );
  }

  /**
   * `CORRUPT` when a snapshot, a checkpoint or (when `registry`) the registry row proves a
   * revision past `journalEnd`: acknowledged events were lost (see loss.ts).
   */
  private guardLoss(id: string, h: Handle, journalEnd: number, known?: ReadonlySet<string>, registry = true): void {
    const proof = provenRevision(id, {
      layout: this.layout,
      dir: h.dir,
      snapshotFile: h.snapshotFile,
      ...(known ? { knownCheckpoints: known } : {}),
      ...(registry ? { registryRevision: () => this.registry.revisionOf(id) } : {}),
    });
    if (proof && proof.revision > journalEnd) throw eventsLost(id, journalEnd, proof);
  }

  async append(
    id: string,
    expectedRevision: number,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<{ revision: number }> {
    const h = this.handle(id);
    this.writable(h);
    lockSession(h);
    const repairs: RepairReport[] = [];
    syncTail(this.writer, id, h, repairs, (last) => this.guardLoss(id, h, last));
    if (h.lastSeq !== expectedRevision) throw conflict(id, expectedRevision, h.lastSeq);
    // The row follows the journal: a process killed between the two leaves the marker.
    if (options.summary) this.recordRow(id, () => this.registry.markInDoubt(id, expectedRevision));
    const revision = writeEvents(h, events, this.io);
    if (options.summary) this.recordRow(id, () => this.registry.record({ ...options.summary!, revision }));
    return { revision };
  }

  /**
   * Writes a registry row (or its in-doubt marker) around a durable write. The write is
   * acknowledged whatever happens here: the registry is a cache (`list --rebuild` derives it
   * again), so a row that cannot be written (a full disk) must not turn an append that is on
   * disk into a reported failure, which a caller would retry and so record twice. The stale
   * row is reported by `doctor`.
   */
  private recordRow(id: string, write: () => void): void {
    try {
      write();
    } catch (e) {
      this.notices.push({
        sessionId: id,
        kind: 'index_corrupt',
        message: `Session ${id}: its registry row could not be written (${(e as Error).message}); \`baton list --rebuild\` derives it again.`,
        savedTo: null,
      });
    }
  }

  async writeSnapshot(id: string, snapshot: Snapshot): Promise<void> {
    const h = this.handle(id);
    this.writable(h);
    lockSession(h);
    syncTail(this.writer, id, h, []);
    if (snapshot.revision > h.lastSeq) {
      throw new BatonError('BAD_INPUT', `Snapshot revision ${snapshot.revision} is past the journal end ${h.lastSeq}.`);
    }
    storeSnapshot(id, h, snapshot, this.io);
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

  /** Stores rows derived from the journals, each under its session's lock (see derived-rows.ts). */
  async putSummaries(rows: SessionSummary[]): Promise<void> {
    // A cache: a store that cannot be written derives the rows again at the next read.
    if (this.readOnly !== null) return;
    putDerivedRows(
      rows,
      (id) => {
        const found = this.locate(id);
        if (!found) return null;
        const files = this.layout.files(found.dir);
        // The lock this process holds (an append lingering) is used as it is; otherwise a lock
        // object of its own, so that a handle's bookkeeping of its lock stays its own.
        const own = this.handles.get(id);
        return {
          lock: own?.lock.isHeld && own.dir === found.dir ? own.lock : new FileLock(files.lock, this.lockTimeoutMs),
          journal: files.journal,
        };
      },
      (row) => this.registry.record(row),
    );
  }

  async getActive(): Promise<string | null> {
    const raw = readIfExists(this.layout.active);
    if (raw === null) return null;
    const id = raw.toString('utf8').trim();
    return id === '' ? null : id;
  }

  async setActive(id: string | null): Promise<void> {
    this.writable();
    if (id === null) {
      fs.rmSync(this.layout.active, { force: true });
      return;
    }
    if (!this.locate(id)) throw notFound(id);
    atomicWrite(this.layout.active, `${id}\n`);
  }

  async withWorkspaceLock<T>(fn: () => Promise<T>): Promise<T> {
    // Taken only to change the workspace (start, switch, repoint).
    this.writable();
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
    this.writable();
    const held = this.lockFolder(id);
    if (held.found.archived) return held.lock.release();
    // Crash-safe: an intent marker makes the next open finish a move that was cut short.
    this.retention.archive(id, held.found.dir, held.lock);
  }

  async delete(id: string, expectedRevision: number, info: TombstoneInfo): Promise<Tombstone> {
    this.writable();
    const { found, lock } = this.lockFolder(id);
    // Forgotten under the lock, folder in place: a later session of this id starts clean (a failed move: `list` derives the row).
    const forget = () => this.recordRow(id, () => this.registry.forget(id));
    return this.retention.delete(id, found, lock, expectedRevision, info, forget);
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

  /** The `.baton` directory (capability `local directory`). */
  get directory(): string {
    return this.layout.root;
  }

  async readSessionFile(id: string, name: string): Promise<string | null> {
    return this.derived(id).read(name);
  }

  async writeSessionFile(id: string, name: string, text: string): Promise<void> {
    this.writable();
    this.derived(id).write(name, text);
  }

  async removeSessionFile(id: string, name: string): Promise<void> {
    this.writable();
    this.derived(id).remove(name);
  }

  private derived(id: string): DerivedFiles {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return new DerivedFiles(found.dir);
  }

  async isArchived(id: string): Promise<boolean> {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return found.archived;
  }

  async repair(id: string): Promise<RepairReport[]> {
    let h = this.handle(id);
    this.writable(h);
    lockSession(h);
    const repairs: RepairReport[] = [];
    // Lost events first: a rebuild would drop the snapshots the recovery starts from.
    const scan = scanJournal(fs.readFileSync(h.journal), 0, 1);
    const proof = provenRevision(id, {
      layout: this.layout,
      dir: h.dir,
      snapshotFile: h.snapshotFile,
      registryRevision: () => this.registry.revisionOf(id),
    });
    if (proof && proof.revision > scan.maxSeq) {
      repairs.push(recoverLostEvents(this.writer, id, h, proof));
      // The journal file was replaced: reopen it.
      this.drop(id);
      h = this.handle(id);
      lockSession(h);
    }
    const rebuilt = repairJournal(this.writer, id, h);
    if (rebuilt.length) this.drop(id);
    return [...repairs, ...rebuilt];
  }

  private checkpoints(id: string): CheckpointFiles {
    const found = this.locate(id);
    if (!found) throw notFound(id);
    return new CheckpointFiles(this.layout, id, found.dir);
  }

  async saveCheckpoint(id: string, checkpoint: Checkpoint): Promise<void> {
    const h = this.handle(id);
    validateId(checkpoint.id, 'checkpoint id');
    this.writable(h);
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
    if (options.fix) this.writable();
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
