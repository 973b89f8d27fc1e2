import { BatonError } from '../domain/errors.js';
import type { NewEvent, StoredEvent } from '../domain/events.js';
import { validateId } from '../domain/ids.js';
import type { SessionSummary } from '../domain/summary.js';
import { checkCheckpoint, checkpointExists, checkpointNotFound, conflict, exists, notFound } from './errors.js';
import { MemoryCursorTable } from './cursors.js';
import { compareCheckpointIds } from './types.js';
import type {
  AppendOptions,
  Checkpoint,
  CheckpointRead,
  ListResult,
  LoadResult,
  SessionStore,
  Snapshot,
  StoreCapabilities,
  Tombstone,
  TombstoneInfo,
} from './types.js';

interface Entry {
  events: StoredEvent[];
  snapshot: Snapshot | null;
  archived: boolean;
  checkpoints: Map<string, Checkpoint>;
}

/**
 * The reference store: everything in memory, one process. Its behaviour is the contract
 * the conformance suite pins down for every other backend.
 */
export class MemoryStore implements SessionStore {
  readonly kind = 'memory';
  readonly location = 'memory:';
  readonly capabilities: StoreCapabilities = { multiProcess: false, multiMachine: false, durable: false };
  private readonly sessions = new Map<string, Entry>();
  private readonly summaries = new Map<string, SessionSummary>();
  private active: string | null = null;
  private readonly tombstones: Tombstone[] = [];
  private lockChain: Promise<unknown> = Promise.resolve();
  private readonly watchers = new Set<(c: { sessionId: string; revision: number }) => void>();
  /** Named positions of the store's readers (capability `cursors`). */
  readonly cursors = new MemoryCursorTable();

  private entry(id: string): Entry {
    const e = this.sessions.get(validateId(id));
    if (!e) throw notFound(id);
    return e;
  }

  async create(id: string, events: NewEvent[], summary: SessionSummary): Promise<{ revision: number }> {
    validateId(id);
    if (this.sessions.has(id)) throw exists(id);
    const stored = events.map((e, i) => clone({ ...e, seq: i + 1 }) as StoredEvent);
    this.sessions.set(id, { events: stored, snapshot: null, archived: false, checkpoints: new Map() });
    this.summaries.set(id, summary);
    this.notify(id, stored.length);
    return { revision: stored.length };
  }

  async exists(id: string): Promise<boolean> {
    return this.sessions.has(validateId(id));
  }

  async load(id: string): Promise<LoadResult> {
    const e = this.entry(id);
    const snap = e.snapshot;
    const events = e.events.filter((x) => !snap || x.seq > snap.revision).map(clone);
    return { snapshot: snap ? clone(snap) : null, events, revision: e.events.length, repairs: [] };
  }

  async readEvents(id: string, afterSeq = 0, limit?: number): Promise<StoredEvent[]> {
    return this.entry(id)
      .events.filter((x) => x.seq > afterSeq)
      .slice(0, limit)
      .map(clone);
  }

  async append(
    id: string,
    expectedRevision: number,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<{ revision: number }> {
    const e = this.entry(id);
    if (e.events.length !== expectedRevision) throw conflict(id, expectedRevision, e.events.length);
    for (const ev of events) e.events.push(clone({ ...ev, seq: e.events.length + 1 }) as StoredEvent);
    if (options.summary) this.summaries.set(id, options.summary);
    this.notify(id, e.events.length);
    return { revision: e.events.length };
  }

  async writeSnapshot(id: string, snapshot: Snapshot): Promise<void> {
    const e = this.entry(id);
    if (snapshot.revision > e.events.length) {
      throw new BatonError(
        'BAD_INPUT',
        `Snapshot revision ${snapshot.revision} is past the journal end ${e.events.length}.`,
      );
    }
    // Like the durable stores: an older snapshot arriving late never replaces a newer one.
    if (e.snapshot && e.snapshot.revision > snapshot.revision) return;
    e.snapshot = clone(snapshot);
  }

  async list(): Promise<ListResult> {
    const missing = [...this.sessions.keys()].filter((id) => !this.summaries.has(id));
    // Like a store on disk, the row's `archived` follows where the session lives.
    const summaries = [...this.summaries.values()].map((s) => ({
      ...clone(s),
      archived: this.sessions.get(s.id)?.archived ?? s.archived,
    }));
    return { summaries, missing, repairs: [] };
  }

  async putSummaries(rows: SessionSummary[]): Promise<void> {
    for (const r of rows) if (this.sessions.has(r.id)) this.summaries.set(r.id, clone(r));
  }

  async getActive(): Promise<string | null> {
    return this.active;
  }

  async setActive(id: string | null): Promise<void> {
    if (id !== null) this.entry(id);
    this.active = id;
  }

  async withWorkspaceLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lockChain.then(fn, fn);
    this.lockChain = run.catch(() => undefined);
    return run;
  }

  async archive(id: string): Promise<void> {
    this.entry(id).archived = true;
  }

  async isArchived(id: string): Promise<boolean> {
    return this.entry(id).archived;
  }

  async delete(id: string, expectedRevision: number, info: TombstoneInfo): Promise<Tombstone> {
    const e = this.entry(id);
    if (e.events.length !== expectedRevision) throw conflict(id, expectedRevision, e.events.length);
    const tombstone: Tombstone = {
      id,
      deletedAt: info.deletedAt,
      title: info.title,
      status: info.status,
      archived: e.archived,
    };
    this.sessions.delete(id);
    this.summaries.delete(id);
    this.tombstones.push(tombstone);
    return clone(tombstone);
  }

  async listTombstones(): Promise<Tombstone[]> {
    return this.tombstones.map(clone);
  }

  async repair(id: string): Promise<[]> {
    this.entry(id);
    return [];
  }

  async saveCheckpoint(id: string, checkpoint: Checkpoint): Promise<void> {
    const e = this.entry(id);
    const cpId = validateId(checkpoint.id, 'checkpoint id');
    checkCheckpoint(id, checkpoint, e.events.length);
    if (e.checkpoints.has(cpId)) throw checkpointExists(id, cpId);
    e.checkpoints.set(cpId, clone(checkpoint));
  }

  async listCheckpoints(id: string): Promise<CheckpointRead[]> {
    const e = this.entry(id);
    return [...e.checkpoints.keys()]
      .sort(compareCheckpointIds)
      .map((k) => ({ id: k, valid: true, checkpoint: clone(e.checkpoints.get(k)!) }));
  }

  async readCheckpoint(id: string, checkpointId: string): Promise<CheckpointRead> {
    const e = this.entry(id);
    const cp = e.checkpoints.get(validateId(checkpointId, 'checkpoint id'));
    if (!cp) throw checkpointNotFound(id, checkpointId);
    return { id: checkpointId, valid: true, checkpoint: clone(cp) };
  }

  /** Reports every create and append of this (in-process) store. */
  async watch(onChange: (c: { sessionId: string; revision: number }) => void): Promise<() => Promise<void>> {
    this.watchers.add(onChange);
    return async () => {
      this.watchers.delete(onChange);
    };
  }

  private notify(sessionId: string, revision: number): void {
    // After the append has returned, like a store that reports through another channel.
    for (const w of this.watchers) queueMicrotask(() => w({ sessionId, revision }));
  }

  async close(): Promise<void> {}
}

function clone<T>(v: T): T {
  return structuredClone(v);
}
