/**
 * The core every SessionManager call goes through: load (snapshot + tail) → validate
 * (domain) → conditional append → result, with the manager's clock and identity. The verbs
 * built on it are in manager.ts.
 */
import { hint } from '../domain/hints.js';
import { settingEvents } from '../domain/settings.js';
import type { SettingValues } from '../domain/settings.js';
import fs from 'node:fs';
import os from 'node:os';
import { fold } from '../domain/apply.js';
import type { EventDraft, MeasuredFile } from '../domain/decide.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import type { Actor, NewEvent, StoredEvent } from '../domain/events.js';
import { validateId } from '../domain/ids.js';
import { assertFence, expiryEvents } from '../domain/lease.js';
import type { SessionState } from '../domain/state.js';
import { summarize, summaryChanged } from '../domain/summary.js';
import type { RepairReport, SessionStore } from '../store/types.js';
import { nodeCrypto } from './lazy.js';
import { DEFAULT_SNAPSHOT_EVERY } from './types.js';
import type { ChangeOptions, ChangeResult, ManagerOptions, TimedDraft } from './types.js';
import type { Workspace } from './workspace.js';

interface Loaded {
  state: SessionState;
  snapshotRevision: number;
}

const MAX_ATTEMPTS = 200;
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

  private actor(agent?: string | null): Actor {
    return { agent: agent ?? this.agent, pid: this.pid, host: this.host };
  }

  protected stamp(drafts: TimedDraft[], agent?: string | null): NewEvent[] {
    const time = this.now().toISOString();
    const actor = this.actor(agent);
    // A draft that carries its own time (an imported foreign event) keeps it.
    return drafts.map((d) => ({ ...d, time: d.time ?? time, actor: d.actor ?? actor }) as NewEvent);
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
    this.remember(id, { state: structuredClone(loaded.state), snapshotRevision: loaded.snapshotRevision });
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
  async setSettings(id: string, values: Partial<SettingValues> | ((s: SessionState) => Partial<SettingValues>), o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.change(id, (s) => ({ events: settingEvents(typeof values === 'function' ? values(s) : values), result: undefined }), o);
  }

  /**
   * Applies a change: `fn` validates against the current state and returns drafts. On a lost
   * race the state is re-read and `fn` runs again (unless `expectedRevision` was given).
   */
  async change<R>(id: string, fn: (s: SessionState) => { events: TimedDraft[]; result: R }, o: ChangeOptions = {}): Promise<ChangeResult<R>> {
    for (let attempt = 1; ; attempt++) {
      // The state this process wrote last is tried first: the append is conditional, so if
      // anyone else wrote since, it fails with CONFLICT and the session is read again.
      const cached = attempt === 1 && o.expectedRevision === undefined ? this.cache.get(id) : undefined;
      const { state, snapshotRevision } = cached ?? (await this.loadFull(id));
      if (o.expectedRevision !== undefined && o.expectedRevision !== state.revision) {
        throw new BatonError('CONFLICT', `Session ${id} is at revision ${state.revision}, not ${o.expectedRevision}.`, {
          hint: hint('session.reread'),
          details: { sessionId: id, expectedRevision: o.expectedRevision, revision: state.revision },
        });
      }
      const now = this.now().toISOString();
      assertFence(state, o.fencingToken, now);
      // Written down with this change: what readers already report about an expired lease.
      const pre = expiryEvents(state, now);
      const base = pre.length ? fold(state, this.stamp(pre, o.agent).map((e, i) => ({ ...e, seq: state.revision + i + 1 }) as StoredEvent), id)! : state;
      const { events: drafts, result } = fn(base);
      const events = this.stamp([...pre, ...drafts], o.agent);
      const stored = events.map((e, i) => ({ ...e, seq: state.revision + i + 1 }) as StoredEvent);
      const next = fold(state, stored, id)!;
      const before = summarize(state);
      const after = summarize(next);
      try {
        const opts = summaryChanged(before, after) ? { summary: after } : {};
        await this.store.append(id, state.revision, events, opts);
      } catch (e) {
        this.cache.delete(id);
        if (isBatonError(e, 'CONFLICT') && o.expectedRevision === undefined && attempt < MAX_ATTEMPTS) {
          if (!cached) await backoff(attempt);
          continue;
        }
        throw e;
      }
      let snapshotAt = snapshotRevision;
      if (next.revision - snapshotRevision >= this.snapshotEvery) {
        await this.store.writeSnapshot(id, { revision: next.revision, state: next }).then(
          () => (snapshotAt = next.revision),
          (e: unknown) => {
            // A snapshot only speeds up loading; losing this race to another writer is harmless.
            if (!isBatonError(e)) throw e;
          },
        );
      }
      this.remember(id, { state: next, snapshotRevision: snapshotAt });
      await this.changed(id, stored, next);
      return { state: next, events: stored, result };
    }
  }

  protected simple(id: string, fn: (s: SessionState) => EventDraft[], o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.change(id, (s) => ({ events: fn(s), result: undefined }), o);
  }



  /**
   * Creates a session from a complete initial journal built elsewhere (an import), keeping the
   * events' own times and actors. The first event must be `session.created`. Does not touch
   * the active pointer. `EXISTS` when the id is taken.
   */
  async createFrom(id: string, events: NewEvent[]): Promise<SessionState> {
    validateId(id);
    if (events[0]?.type !== 'session.created') throw new BatonError('BAD_INPUT', `The journal of ${id} must start with session.created.`, { hint: 'This is a bug in the caller.' });
    const stored = events.map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent);
    const state = fold(null, stored, id)!;
    await this.store.create(id, events, summarize(state));
    await this.changed(id, stored, state);
    return state;
  }


  protected withId(id: string, fn: (s: SessionState) => { events: EventDraft[]; id: string }, o: ChangeOptions): Promise<ChangeResult<string>> {
    return this.change(id, (s) => {
      const r = fn(s);
      return { events: r.events, result: r.id };
    }, o);
  }

  /** Told about every durable change, with the state after it. */
  protected async changed(id: string, events: readonly StoredEvent[], state: SessionState): Promise<void> {
    this.onChanged?.(id, events, state);
  }
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
