/**
 * The core every SessionManager call goes through: load (snapshot + tail) → validate
 * (domain) → conditional append → result, with the manager's clock and identity. The
 * recording verbs built on it are in records.ts, the sub-objects and lifecycle in manager.ts.
 */
import { clonePlain } from '../domain/clone.js';
import { hint } from '../domain/hints.js';
import { settingEvents } from '../domain/settings.js';
import { decideMetadata } from '../domain/metadata.js';
import type { SettingValues } from '../domain/settings.js';
import fs from 'node:fs';
import os from 'node:os';
import { fold } from '../domain/apply.js';
import type { EventDraft, MeasuredFile } from '../domain/decide.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import type { Actor, NewEvent, StoredEvent } from '../domain/events.js';
import { validateId } from '../domain/ids.js';
import { assertFence, expiryEvents } from '../domain/runs/lease.js';
import type { SessionState } from '../domain/state.js';
import { sameSummaryInputs, summarize, summaryChanged } from '../domain/summary.js';
import type { SessionSummary } from '../domain/summary.js';
import type { RepairReport, SessionStore } from '../store/types.js';
import { nodeCrypto } from './lazy.js';
import { DEFAULT_SNAPSHOT_EVERY } from './types.js';
import type { ChangeOptions, ChangeResult, ManagerOptions, TimedDraft } from './types.js';
import type { Workspace } from './workspace.js';

interface Loaded {
  state: SessionState;
  snapshotRevision: number;
  /**
   * summarize(state), once computed, or an earlier summary that differs from it only in
   * revision and updatedAt (sameSummaryInputs): every change compares the summary before and after.
   */
  summary?: SessionSummary;
}

const MAX_ATTEMPTS = 200;
/** Most changes written as one group (one append). */
const MAX_GROUP = 256;

/** A change waiting in a session's queue. */
interface Queued {
  fn: (s: SessionState) => { events: TimedDraft[]; result: unknown };
  o: ChangeOptions;
  resolve: (r: ChangeResult<unknown>) => void;
  reject: (e: unknown) => void;
}

/** A queued change validated against the state before it: what it appends and leaves. */
interface Decided {
  p: Queued;
  stored: StoredEvent[];
  next: SessionState;
  result: unknown;
}

/** The changes of one session waiting to be written, and whether a drain is writing them. */
interface ChangeQueue {
  waiting: Queued[];
  running: boolean;
  /** Size of the last group written: more than one means writers are concurrent. */
  lastGroup: number;
}
/** Sessions whose last state a manager keeps (a long-lived server touches many). */
const MAX_CACHED = 16;

/**
 * Loads sessions and applies changes. A change that loses a race is re-validated against the
 * fresh state and retried, which is safe because validation runs again; a caller that passes
 * `expectedRevision` gets `CONFLICT` instead.
 */
export class SessionCore {
  readonly store: SessionStore;
  protected readonly now: () => Date;
  protected readonly rand: (n: number) => Uint8Array;
  protected readonly agent: string | null;
  private readonly pid: number;
  private readonly host: string;
  /** Undefined until first read (see {@link origin}). */
  private boot: string | null | undefined;
  private readonly snapshotEvery: number;
  protected readonly measure: ((path: string) => MeasuredFile) | undefined;
  protected readonly onRepair: (r: RepairReport) => void;
  /** Problems that did not stop a call. */
  protected readonly onWarning: (message: string) => void;
  private readonly onChanged: ((id: string, events: readonly StoredEvent[], state: SessionState) => void) | undefined;
  /** The folder the session works in (recorded files, git), when known. */
  readonly workspace: Workspace | null;
  /** Last state this manager read or wrote, per session; only a first guess for the next change. */
  private readonly cache = new Map<string, Loaded>();
  /** Snapshots being written, per session (see snapshot()). */
  private readonly snapshotting = new Map<string, Promise<void>>();
  /** Changes waiting to be written, per session (group commit). */
  private readonly queues = new Map<string, ChangeQueue>();
  /** The clock this manager was given; {@link now} is it moved by {@link syncClock}. */
  protected readonly ownClock: () => Date;
  private clockOffset = 0;

  constructor(o: ManagerOptions) {
    this.store = o.store;
    const clock = o.now ?? (() => new Date());
    this.ownClock = clock;
    // Moved by syncClock (claims on a store with a clock of its own); 0 otherwise.
    this.now = () => (this.clockOffset === 0 ? clock() : new Date(clock().getTime() + this.clockOffset));
    this.rand = o.randomBytes ?? ((n) => nodeCrypto().randomBytes(n));
    this.agent = o.agent ?? null;
    this.pid = o.pid ?? process.pid;
    this.host = o.host ?? os.hostname();
    this.boot = o.bootId;
    this.snapshotEvery = o.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    this.measure = o.measure;
    this.onRepair = o.onRepair ?? (() => undefined);
    // Interrupted archives and deletions the store finished when it was opened.
    for (const r of this.store.takeRepairs?.() ?? []) this.onRepair(r);
    this.onChanged = o.onChanged;
    this.onWarning = o.onWarning ?? (() => undefined);
    this.workspace = o.workspace ?? null;
  }

  /**
   * From now on, reads the time by `read` (a clock elsewhere, e.g. the store's): the offset
   * between that clock and this manager's own is measured now, against the midpoint of the
   * read. A worker that claims sessions judges lease expiry (and stamps what it writes) by
   * the store's clock ({@link SessionStore.serverTime}), not by its own machine's. Returns the offset.
   */
  async syncClock(read: () => Promise<Date>): Promise<number> {
    const t0 = this.ownClock().getTime();
    const other = (await read()).getTime();
    const t1 = this.ownClock().getTime();
    const offset = Math.round(other - (t0 + t1) / 2);
    this.clockOffset = Number.isFinite(offset) ? offset : 0;
    return this.clockOffset;
  }

  /** The manager's clock, as ISO-8601. */
  time(): string {
    return this.now().toISOString();
  }

  /** pid, host and boot id this manager writes as (the boot id is read once, when first asked for). */
  get origin(): { pid: number; host: string; boot: string | null } {
    if (this.boot === undefined) this.boot = readBootId();
    return { pid: this.pid, host: this.host, boot: this.boot };
  }

  /** Refuses new work past a `stop` budget (set by the manager, which knows the pricing table). */
  protected budgetGuard: ((s: SessionState, drafts: readonly TimedDraft[], agent: string | null) => void) | null = null;

  private actor(agent?: string | null, run?: string): Actor {
    return run
      ? { agent: agent ?? this.agent, pid: this.pid, host: this.host, run }
      : { agent: agent ?? this.agent, pid: this.pid, host: this.host };
  }

  /**
   * `drafts` stamped with `time` and the actor, and numbered from `after + 1`: the events as
   * they will be stored, and as they are appended (a store writes an event's seq from its
   * position). A draft that carries its own time or actor (an imported foreign event) keeps
   * it. One object per event, built field by field, because every change makes them.
   */
  protected numbered(
    drafts: TimedDraft[],
    agent: string | null | undefined,
    time: string,
    after: number,
    run?: string,
  ): StoredEvent[] {
    const actor = this.actor(agent, run);
    const out = new Array<StoredEvent>(drafts.length);
    for (let i = 0; i < drafts.length; i++) {
      const d = drafts[i]!;
      out[i] = (
        d.time === undefined && d.actor === undefined
          ? { type: d.type, data: d.data, time, actor, seq: after + i + 1 }
          : { ...d, time: d.time ?? time, actor: d.actor ?? actor, seq: after + i + 1 }
      ) as StoredEvent;
    }
    return out;
  }

  private async loadFull(id: string): Promise<Loaded> {
    validateId(id);
    const r = await this.store.load(id);
    r.repairs.forEach(this.onRepair);
    const state = fold(r.snapshot?.state ?? null, r.events, id);
    if (!state) {
      throw new BatonError('CORRUPT', `Session ${id} has no session.created event.`, {
        hint: hint('repair.empty-journal', { session: id }),
      });
    }
    state.id = id;
    return { state, snapshotRevision: r.snapshot?.revision ?? 0 };
  }

  /** The current state of a session, read from the store. Treat returned states as read-only. */
  async get(id: string): Promise<SessionState> {
    const loaded = await this.loadFull(id);
    // A read followed by a change (a hook binds, then records) loads the session once: the
    // change tries this state first, and its conditional append catches anyone who wrote
    // since. A private copy, so a caller that mutates what it got cannot skew the next change.
    this.remember(id, { state: clonePlain(loaded.state), snapshotRevision: loaded.snapshotRevision });
    return loaded.state;
  }

  /** Keeps `loaded` as the first guess for the next change of `id` (a few sessions at most). */
  private remember(id: string, loaded: Loaded): void {
    this.cache.delete(id);
    this.cache.set(id, loaded);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
  }

  /**
   * Changes settings of session `id` (the one way they are written): `values`, or what `fn`
   * returns for the current state (it may refuse by throwing), each as a `metadata.set` event
   * under its key (see domain/settings.ts). Nothing to write: no event.
   */
  async setSettings(
    id: string,
    values: Partial<SettingValues> | ((s: SessionState) => Partial<SettingValues>),
    o: ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    return this.change(
      id,
      (s) => ({ events: settingEvents(typeof values === 'function' ? values(s) : values), result: undefined }),
      o,
    );
  }

  /**
   * Sets caller metadata `key` of session `id` to `value` (any JSON value up to 64 KiB; null
   * sets it to null), one `metadata.set` event; `status --json` shows it under `metadata`.
   * Keys baton keeps itself are refused (`BAD_INPUT`; see domain/metadata.ts).
   */
  setMetadata(id: string, key: string, value: unknown, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.change(id, () => ({ events: decideMetadata(key, value), result: undefined }), o);
  }

  /**
   * Applies a change: `fn` validates against the current state and returns drafts. On a lost
   * race the state is re-read and `fn` runs again (unless `expectedRevision` was given).
   *
   * Group commit: changes of one session made concurrently in this process queue up and are
   * written together, one append (one write, one fsync) for the whole group, each `fn` run
   * against the state its predecessors in the group left. Nothing resolves before the group's
   * append is durable; a change whose `fn` refuses is rejected alone, and the rest go on.
   */
  change<R>(
    id: string,
    fn: (s: SessionState) => { events: TimedDraft[]; result: R },
    o: ChangeOptions = {},
  ): Promise<ChangeResult<R>> {
    return new Promise<ChangeResult<R>>((resolve, reject) => {
      let q = this.queues.get(id);
      if (!q) {
        q = { waiting: [], running: false, lastGroup: 1 };
        this.queues.set(id, q);
      }
      q.waiting.push({ fn, o, resolve, reject } as Queued);
      if (q.running) return;
      q.running = true;
      const run = (): void => void this.drain(id, q!);
      // Alone (the common case): at once. After a group: once the event loop turns, so that
      // every writer whose change was just acknowledged has queued its next one.
      if (q.lastGroup > 1) setImmediate(run);
      else queueMicrotask(run);
    });
  }

  /** Writes the queued changes of `id` group by group until none is left. */
  private async drain(id: string, q: ChangeQueue): Promise<void> {
    try {
      while (q.waiting.length) {
        const group = q.waiting.splice(0, MAX_GROUP);
        q.lastGroup = group.length;
        try {
          await this.commitGroup(id, group);
        } catch (e) {
          // Whatever failed unexpectedly: every change of the group not settled yet fails with it.
          for (const p of group) p.reject(e);
        }
        // Let the callers just resolved queue their next change before deciding to stop.
        if (!q.waiting.length) await new Promise<void>((r) => (q.lastGroup > 1 ? setImmediate(r) : queueMicrotask(r)));
      }
    } finally {
      q.running = false;
      if (q.waiting.length) {
        q.running = true;
        setImmediate(() => void this.drain(id, q));
      } else if (this.queues.get(id) === q) this.queues.delete(id);
    }
  }

  /** Validates and appends one group of changes; settles every one of them. */
  private async commitGroup(id: string, group: Queued[]): Promise<void> {
    let pending = group;
    for (let attempt = 1; ; attempt++) {
      // The state this process wrote last is tried first: the append is conditional, so if
      // anyone else wrote since, it fails with CONFLICT and the session is read again. A strict
      // compare-and-set (expectedRevision) is judged against a fresh read, as it always was.
      const strict = pending.some((p) => p.o.expectedRevision !== undefined);
      const cached = attempt === 1 && !strict ? this.cache.get(id) : undefined;
      let loaded: Loaded;
      try {
        loaded = cached ?? (await this.loadFull(id));
      } catch (e) {
        for (const p of pending) p.reject(e);
        return;
      }
      const decided = this.decide(id, loaded.state, pending);
      // A refusal judged on the remembered state may be another writer's doing (an error it
      // recorded, a session deleted and made again): judge it again on what is stored.
      if (cached && decided.some((d) => 'error' in d)) {
        this.cache.delete(id);
        continue;
      }
      const accepted = decided.filter((d): d is Decided => !('error' in d));
      for (const d of decided) if ('error' in d) d.p.reject(d.error);
      if (!accepted.length) return;
      const last = accepted[accepted.length - 1]!.next;
      const before = loaded.summary ?? summarize(loaded.state);
      // Events that leave the row alone (token records, notes): the summary before still
      // answers summaryChanged; only its revision and time are behind, and those are not compared.
      const after = sameSummaryInputs(loaded.state, last) ? before : summarize(last);
      try {
        const opts = summaryChanged(before, after) ? { summary: after } : {};
        const events = accepted.flatMap((d) => d.stored);
        // Changes that decided nothing (a run claiming its own phase) write nothing: PostgreSQL refuses an empty append.
        if (events.length) await this.store.append(id, loaded.state.revision, events, opts);
      } catch (e) {
        this.cache.delete(id);
        if (isBatonError(e, 'CONFLICT') && attempt < MAX_ATTEMPTS) {
          // A caller that named the revision it expects gets the CONFLICT; the others decide again.
          for (const d of accepted) if (d.p.o.expectedRevision !== undefined) d.p.reject(e);
          pending = accepted.filter((d) => d.p.o.expectedRevision === undefined).map((d) => d.p);
          if (!pending.length) return;
          if (!cached) await backoff(attempt);
          continue;
        }
        for (const d of accepted) d.p.reject(e);
        return;
      }
      this.remember(id, { state: last, snapshotRevision: loaded.snapshotRevision, summary: after });
      for (const d of accepted) {
        try {
          this.changed(id, d.stored, d.next);
          d.p.resolve({ state: d.next, events: d.stored, result: d.result });
        } catch (e) {
          d.p.reject(e);
        }
      }
      if (last.revision - loaded.snapshotRevision >= this.snapshotEvery) this.snapshot(id, last);
      this.afterCommit();
      return;
    }
  }

  /**
   * Writes a snapshot of `state`, after the changes that reached it were answered: a snapshot
   * only speeds up loading, so it stays off the acknowledgement path (on PostgreSQL it is a
   * commit of its own). One per session at a time. When it lands, the state kept then learns
   * of it, whichever changes came meanwhile, so the next is due `snapshotEvery` later. Losing
   * a race to another writer is harmless, and no failure of it fails anything.
   */
  private snapshot(id: string, state: SessionState): void {
    if (this.snapshotting.has(id)) return;
    const write = (s: SessionState): Promise<void> => this.store.writeSnapshot(id, { revision: s.revision, state: s });
    const done = (state.history ? write(state) : this.withHistory(id, state).then(write))
      .then(
        () => {
          const kept = this.cache.get(id);
          if (kept && kept.state.revision >= state.revision && kept.snapshotRevision < state.revision)
            kept.snapshotRevision = state.revision;
        },
        (e: unknown) => {
          if (!isBatonError(e)) this.onWarning(`snapshot of ${id} not written: ${(e as Error)?.message ?? String(e)}`);
        },
      )
      .finally(() => this.snapshotting.delete(id));
    this.snapshotting.set(id, done);
  }

  /** `state`, or when folded before histories existed (an old snapshot's), replayed whole to carry one: once per session (else the write starts at once). */
  private async withHistory(id: string, state: SessionState): Promise<SessionState> {
    if (state.history) return state;
    const full = fold(
      null,
      (await this.store.readEvents(id)).filter((e) => e.seq <= state.revision),
      id,
    );
    return full?.revision === state.revision && full.history ? full : state;
  }

  /** Resolves once the snapshots being written (if any) have landed or failed. */
  protected async snapshotsWritten(): Promise<void> {
    while (this.snapshotting.size) await Promise.all(this.snapshotting.values());
  }

  /** Runs each queued change's `fn` in order, each against the state the ones before it left. */
  private decide(id: string, start: SessionState, pending: Queued[]): Array<Decided | { p: Queued; error: unknown }> {
    let state = start;
    return pending.map((p) => {
      try {
        const o = p.o;
        if (o.expectedRevision !== undefined && o.expectedRevision !== state.revision) {
          throw new BatonError(
            'CONFLICT',
            `Session ${id} is at revision ${state.revision}, not ${o.expectedRevision}.`,
            {
              hint: hint('session.reread'),
              details: { sessionId: id, expectedRevision: o.expectedRevision, revision: state.revision },
            },
          );
        }
        // One reading of the clock per change: its fence check, expiry and event times agree.
        const now = this.now().toISOString();
        assertFence(state, o.fencingToken, now);
        // Written down with this change: what readers already report about an expired lease.
        const pre = expiryEvents(state, now);
        const base = pre.length ? fold(state, this.numbered(pre, o.agent, now, state.revision), id)! : state;
        const { events: drafts, result } = p.fn(base);
        this.budgetGuard?.(base, drafts, o.agent ?? this.agent);
        const stored = this.numbered(pre.length ? [...pre, ...drafts] : drafts, o.agent, now, state.revision, o.run);
        const next = fold(state, stored, id)!;
        state = next;
        return { p, stored, next, result };
      } catch (error) {
        return { p, error };
      }
    });
  }

  protected simple(
    id: string,
    fn: (s: SessionState) => EventDraft[],
    o: ChangeOptions = {},
  ): Promise<ChangeResult<undefined>> {
    return this.change(id, (s) => ({ events: fn(s), result: undefined }), o);
  }

  /**
   * Creates a session from a complete initial journal built elsewhere (an import), keeping the
   * events' own times and actors. The first event must be `session.created`. Does not touch
   * the active pointer. `EXISTS` when the id is taken.
   */
  async createFrom(id: string, events: NewEvent[]): Promise<SessionState> {
    validateId(id);
    if (events[0]?.type !== 'session.created')
      throw new BatonError('BAD_INPUT', `The journal of ${id} must start with session.created.`, {
        hint: 'This is a bug in the caller.',
      });
    const stored = events.map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent);
    const state = fold(null, stored, id)!;
    await this.store.create(id, events, summarize(state));
    this.changed(id, stored, state);
    this.afterCommit();
    return state;
  }

  protected withId(
    id: string,
    fn: (s: SessionState) => { events: EventDraft[]; id: string },
    o: ChangeOptions,
  ): Promise<ChangeResult<string>> {
    return this.change(
      id,
      (s) => {
        const r = fn(s);
        return { events: r.events, result: r.id };
      },
      o,
    );
  }

  /**
   * Told about every durable change, with the state after it, before its caller is answered:
   * only bookkeeping belongs here (what changed), no I/O, so that an update costs its append.
   */
  protected changed(id: string, events: readonly StoredEvent[], state: SessionState): void {
    this.onChanged?.(id, events, state);
  }

  /** Called once a group of changes was acknowledged: the place to start work derived from them. */
  protected afterCommit(): void {}
}

/** This boot of the machine (Linux), or null where the kernel does not say. */
function readBootId(): string | null {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2 + attempt, 25);
  return new Promise((r) => setTimeout(r, ms));
}
