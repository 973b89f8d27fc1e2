/**
 * A LangGraph thread as baton keeps it: which session holds it, and what its journal's
 * `graph.checkpoint` / `graph.writes` events say (the checkpoints of each namespace, the
 * channel values by version, the pending writes). Pure apart from hashing the id.
 */
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../manager/index.js';

/** Serialized bytes as an event keeps them: the serde's type and the bytes in base64. */
export type Typed = [string, string];

/** One `graph.checkpoint` event's data. */
export interface CheckpointRecord {
  ns: string;
  checkpointId: string;
  parentId: string | null;
  step: number | null;
  source: string | null;
  checkpoint: Typed;
  metadata: Typed;
  blobs: Array<{ channel: string; version: string; value: Typed }>;
}

/** One `graph.writes` event's data. */
export interface WritesRecord {
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  writes: Array<{ channel: string; idx: number; value: Typed }>;
}

/** A pending write as read back, with what orders it. */
export interface StoredWrite {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: Typed;
}

/** The session metadata key that marks a session as a LangGraph thread (its thread id). */
export const THREAD_KEY = 'langgraphThread';
/** The title every thread session gets, before its thread id. */
export const TITLE_PREFIX = 'LangGraph thread ';

const VALID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_ID = 128;

/**
 * The session id of a thread: the thread id itself when it is a valid session id (letters,
 * digits, `.`, `_`, `-`, at most 128 characters, no `..`), else a readable part of it and a
 * hash of the whole (`my-thread-3f9a…`), the same on every machine. The session records the
 * thread id, so two thread ids that would land on one session are told apart and refused.
 */
export function threadSessionId(threadId: string): string {
  if (VALID.test(threadId) && threadId.length <= MAX_ID && !threadId.includes('..')) return threadId;
  const hash = createHash('sha256').update(threadId, 'utf8').digest('hex').slice(0, 16);
  const slug = threadId
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX_ID - hash.length - 1)
    .replace(/[^A-Za-z0-9]+$/, '');
  return `${slug || 'thread'}-${hash}`;
}

/** What the journal of one thread session holds, by namespace. */
export class ThreadView {
  /** Checkpoints of each namespace in the order they were written. */
  readonly checkpoints = new Map<string, CheckpointRecord[]>();
  private readonly byId = new Map<string, CheckpointRecord>();
  private readonly blobs = new Map<string, Typed>();
  private readonly writes = new Map<string, Map<string, StoredWrite>>();

  constructor(
    readonly threadId: string,
    events: readonly StoredEvent[],
  ) {
    for (const e of events) {
      if (e.type === 'graph.checkpoint') this.addCheckpoint(e.data as CheckpointRecord);
      else if (e.type === 'graph.writes') this.addWrites(e.data as WritesRecord);
    }
  }

  /** The thread id a session's journal records, or null when it is not a LangGraph thread. */
  static threadOf(events: readonly StoredEvent[]): string | null {
    const first = events[0];
    if (first?.type !== 'session.created') return null;
    const v = first.data.metadata?.[THREAD_KEY];
    return typeof v === 'string' ? v : null;
  }

  private addCheckpoint(c: CheckpointRecord): void {
    const list = this.checkpoints.get(c.ns) ?? [];
    list.push(c);
    this.checkpoints.set(c.ns, list);
    this.byId.set(`${c.ns}\0${c.checkpointId}`, c);
    for (const b of c.blobs) this.blobs.set(`${c.ns}\0${b.channel}\0${b.version}`, b.value);
  }

  private addWrites(w: WritesRecord): void {
    const key = `${w.ns}\0${w.checkpointId}`;
    const m = this.writes.get(key) ?? new Map<string, StoredWrite>();
    this.writes.set(key, m);
    for (const x of w.writes) {
      const k = `${w.taskId},${x.idx}`;
      // As LangGraph's savers do: a regular write is kept once (a task's retry writes it
      // again), a special one (negative index: errors, interrupts) is replaced.
      if (x.idx >= 0 && m.has(k)) continue;
      m.set(k, { taskId: w.taskId, taskPath: w.taskPath, idx: x.idx, channel: x.channel, value: x.value });
    }
  }

  /** A checkpoint by id, or the newest one written to `ns` when `id` is absent. */
  find(ns: string, id: string | undefined): CheckpointRecord | undefined {
    if (id) return this.byId.get(`${ns}\0${id}`);
    const list = this.checkpoints.get(ns);
    return list?.[list.length - 1];
  }

  /** The serialized value of `channel` at `version` in `ns`, if one was stored. */
  blob(ns: string, channel: string, version: string): Typed | undefined {
    return this.blobs.get(`${ns}\0${channel}\0${version}`);
  }

  /** The pending writes against a checkpoint, unordered. */
  writesOf(ns: string, checkpointId: string): StoredWrite[] {
    return [...(this.writes.get(`${ns}\0${checkpointId}`)?.values() ?? [])];
  }
}

/** Bytes as an event keeps them. */
export function toTyped([type, bytes]: [string, Uint8Array]): Typed {
  return [type, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')];
}

/** The bytes an event kept, exactly as the serde wrote them. */
export function bytesOf(t: Typed): Uint8Array {
  return new Uint8Array(Buffer.from(t[1], 'base64'));
}
