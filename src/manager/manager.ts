import os from 'node:os';
import { fold } from '../domain/apply.js';
import * as decide from '../domain/decide.js';
import type { EventDraft, MeasuredFile, PhaseActionOptions } from '../domain/decide.js';
import { BatonError, isBatonError } from '../domain/errors.js';
import type { Actor, NewEvent, PhaseSpec, StoredEvent } from '../domain/events.js';
import { generateId, validateId } from '../domain/ids.js';
import { assertFence, effectiveStatus, expiryEvents } from '../domain/lease.js';
import type { BmadIdOptions, IdFormat } from '../domain/ids.js';
import type { FileAction, SessionState, SessionStatus } from '../domain/state.js';
import { summarize, summaryChanged } from '../domain/summary.js';
import type { SessionSummary } from '../domain/summary.js';
import type { PhaseAction, SessionAction } from '../domain/transitions.js';
import { RowText, rowsToJsonArray } from '../store/row.js';
import type { RepairReport, SessionStore, Tombstone } from '../store/types.js';
import { AgentHooks } from './agent-hooks.js';
import { Checkpoints } from './checkpoints.js';
import * as retention from './retention.js';
import type { CleanupOptions, CleanupResult } from './retention.js';
import { nodeCrypto } from './lazy.js';
import { loadPricing } from './pricing-file.js';
import type { PricingTable } from '../domain/pricing.js';
import { decideCostBudget } from '../domain/cost.js';
import { Transcripts } from './transcripts.js';
import type { Workspace } from './workspace.js';

/** A draft that may carry its own time and actor (events imported from a foreign file). */
export type TimedDraft = EventDraft & { time?: string; actor?: Actor };

/** Snapshot every this many events by default: bounds the tail replayed on load. */
export const DEFAULT_SNAPSHOT_EVERY = 200;

/** What the manager needs from the outside world; every field has a real default. */
export interface ManagerOptions {
  store: SessionStore;
  now?: () => Date;
  randomBytes?: (n: number) => Uint8Array;
  /** Agent name attributed to events when a call names none. */
  agent?: string | null;
  pid?: number;
  host?: string;
  snapshotEvery?: number;
  /** Measures a file for the manifest (sha256, size); null when it cannot be read. */
  measure?: (path: string) => MeasuredFile;
  /** Receives repairs the store made while reading (torn tails, corrupt snapshots…). */
  onRepair?: (r: RepairReport) => void;
  /** Told about every change once it is durable (e.g. to refresh a handoff file or a mirror), with the state after it. */
  onChanged?: (id: string, events: readonly StoredEvent[], state: SessionState) => void;
  /** Where checkpoints hash recorded files and ask git; none: no git info, files unmeasured. */
  workspace?: Workspace | null;
  /** Take a checkpoint whenever a phase completes (default true; a session can opt out). */
  autoCheckpoint?: boolean;
  /** Receives problems that did not stop the call (an automatic checkpoint not taken). */
  onWarning?: (message: string) => void;
  /** Where the hook log's fallback folder is found (HOME, XDG_STATE_HOME); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The pricing override file (a file store's `.baton/pricing.json`, or `BATON_PRICING`); none: built-in prices only. */
  pricingFile?: string | null;
}

/** Input of {@link SessionManager.start}. */
export interface StartInput {
  title: string;
  id?: string;
  idFormat?: IdFormat;
  bmad?: BmadIdOptions;
  phases?: PhaseSpec[];
  /** Token budget; numeric strings from the CLI are accepted and checked. */
  budget?: number | string | null;
  contextSummary?: string | null;
  metadata?: Record<string, unknown>;
  /** Pause the active session instead of refusing with ACTIVE_EXISTS. */
  switch?: boolean;
  agent?: string | null;
}

/** Per-call options of a change. */
export interface ChangeOptions {
  agent?: string | null;
  /** Strict compare-and-set: fail with CONFLICT unless the session is at this revision. */
  expectedRevision?: number;
  /** Fencing token of the lease this writer holds (`BATON_LEASE_TOKEN`); an outdated one is FENCED. */
  fencingToken?: number;
}

/** Result of a change. */
export interface ChangeResult<R = undefined> {
  state: SessionState;
  events: StoredEvent[];
  result: R;
}

interface Loaded {
  state: SessionState;
  snapshotRevision: number;
}

const MAX_ATTEMPTS = 200;

/**
 * The one entry point of every surface: load → validate (domain) → conditional append →
 * result. A change that loses a race is re-validated against the fresh state and retried,
 * which is safe because validation runs again; a caller that passes `expectedRevision`
 * gets `CONFLICT` instead.
 */
export class SessionManager {
  readonly store: SessionStore;
  private readonly now: () => Date;
  private readonly rand: (n: number) => Uint8Array;
  private readonly agent: string | null;
  private readonly pid: number;
  private readonly host: string;
  private readonly snapshotEvery: number;
  private readonly measure: ((path: string) => MeasuredFile) | undefined;
  private readonly onRepair: (r: RepairReport) => void;
  private readonly onChanged: ((id: string, events: readonly StoredEvent[], state: SessionState) => void) | undefined;
  /** Checkpoints: take, list, show, validate, restore (see checkpoints.ts). */
  readonly checkpoints: Checkpoints;
  /** What agent CLI hooks record, and the hook log's problems (see agent-hooks.ts). */
  readonly hooks: AgentHooks;
  /** Transcript ingestion: token use read from agent CLI transcripts (see transcripts.ts). */
  readonly transcripts: Transcripts;
  /** The folder the session works in (recorded files, git), when known. */
  readonly workspace: Workspace | null;
  /** The pricing override file, if any (see {@link pricing}). */
  readonly pricingFile: string | null;
  private pricingTable: PricingTable | null = null;
  /** Last state this manager wrote, per session; only a first guess for the next change. */
  private readonly cache = new Map<string, Loaded>();
  /** The clock this manager was given; {@link now} is it moved by {@link syncClock}. */
  private readonly ownClock: () => Date;
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
    this.snapshotEvery = o.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    this.measure = o.measure;
    this.onRepair = o.onRepair ?? (() => undefined);
    // Interrupted archives and deletions the store finished when it was opened.
    for (const r of this.store.takeRepairs?.() ?? []) this.onRepair(r);
    this.onChanged = o.onChanged;
    this.workspace = o.workspace ?? null;
    this.hooks = new AgentHooks(this, o.env ?? {});
    this.transcripts = new Transcripts(this);
    this.pricingFile = o.pricingFile ?? null;
    this.checkpoints = new Checkpoints(this, { now: this.now, workspace: o.workspace ?? null, auto: o.autoCheckpoint ?? true, onWarning: o.onWarning ?? (() => undefined) });
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

  /** pid and host this manager writes as. */
  get origin(): { pid: number; host: string } {
    return { pid: this.pid, host: this.host };
  }

  private actor(agent?: string | null): Actor {
    return { agent: agent ?? this.agent, pid: this.pid, host: this.host };
  }

  private stamp(drafts: TimedDraft[], agent?: string | null): NewEvent[] {
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
        hint: `Its journal is empty or damaged; run \`baton repair --session ${id}\`.`,
      });
    }
    state.id = id;
    return { state, snapshotRevision: r.snapshot?.revision ?? 0 };
  }

  /** The current state of a session, read from the store. Treat returned states as read-only. */
  async get(id: string): Promise<SessionState> {
    return (await this.loadFull(id)).state;
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
          hint: 'Re-read the session (`baton status`) and decide again.',
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
      this.cache.set(id, { state: next, snapshotRevision: snapshotAt });
      this.onChanged?.(id, stored, next);
      return { state: next, events: stored, result };
    }
  }

  private simple(id: string, fn: (s: SessionState) => EventDraft[], o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.change(id, (s) => ({ events: fn(s), result: undefined }), o);
  }

  // ---- sessions -------------------------------------------------------------------------

  /**
   * Creates a session and makes it the active one. Refuses with `ACTIVE_EXISTS` while another
   * session is active, unless `switch` is set, which pauses that one first.
   */
  async start(input: StartInput): Promise<SessionState> {
    const title = decide.text(input.title, 'title', { max: 1000 });
    const phases = decide.validatePhases(input.phases ?? []);
    const budget = input.budget === undefined || input.budget === null ? null : decide.positive(input.budget, 'budget');
    const idFormat = input.idFormat ?? 'date';
    const id = input.id !== undefined ? validateId(input.id) : generateId(idFormat, title, { now: this.now(), randomBytes: this.rand }, input.bmad);
    return this.store.withWorkspaceLock(async () => {
      await this.pauseActiveFor(id, input.switch === true, input.agent);
      const events = this.stamp(
        [decide.draft('session.created', { title, idFormat: input.id !== undefined ? 'explicit' : idFormat, phases, budgetMax: budget, contextSummary: input.contextSummary ?? null, metadata: input.metadata ?? {} })],
        input.agent,
      );
      const state = fold(null, events.map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent), id)!;
      await this.store.create(id, events, summarize(state));
      this.onChanged?.(id, events.map((e, i) => ({ ...e, seq: i + 1 }) as StoredEvent), state);
      await this.store.setActive(id);
      return state;
    });
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
    this.onChanged?.(id, stored, state);
    return state;
  }

  /** Pauses the active session (if any, and not `except`), or refuses when `allow` is false. */
  private async pauseActiveFor(except: string, allow: boolean, agent?: string | null): Promise<void> {
    const current = await this.activeSession();
    if (!current || current.id === except || current.status !== 'active') return;
    if (!allow) {
      throw new BatonError('ACTIVE_EXISTS', `Session ${current.id} ("${current.title}") is active.`, {
        hint: 'Pass --switch to pause it and go on, or run `baton pause` / `baton complete` first.',
        details: { active: current.id },
      });
    }
    await this.simple(current.id, (s) => decide.decideSession(s, 'pause', `switched to ${except}`, 'switched'), { agent });
  }

  /** The session the active pointer names, or null (a dangling pointer is reported and ignored). */
  async activeSession(): Promise<SessionState | null> {
    const id = await this.store.getActive();
    if (!id) return null;
    try {
      return await this.get(id);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND') || isBatonError(e, 'BAD_INPUT')) {
        this.onRepair({ sessionId: null, kind: 'active_dangling', message: `The active pointer names ${JSON.stringify(id)}, which does not exist; ignored.`, savedTo: null });
        return null;
      }
      throw e;
    }
  }

  /**
   * Which session a command acts on: `explicit` (from --session or BATON_SESSION), else the
   * active pointer; with neither, `NO_ACTIVE_SESSION` naming the candidates.
   */
  async resolve(explicit?: string | null): Promise<string> {
    // An explicit empty id is a mistake to report, not a request for the active session.
    if (explicit !== undefined && explicit !== null) return validateId(explicit);
    const active = await this.store.getActive();
    if (active) {
      try {
        validateId(active);
        if (await this.store.exists(active)) return active;
      } catch {
        // fall through to the error below
      }
    }
    const { summaries } = await this.store.list();
    const open = summaries.filter((s) => !s.archived && ['active', 'paused', 'interrupted', 'failed'].includes(s.status)).map((s) => s.id);
    throw new BatonError('NO_ACTIVE_SESSION', active ? `The active pointer names ${JSON.stringify(active)}, which does not exist.` : 'No active session.', {
      hint: open.length ? `Pass --session with one of: ${open.slice(0, 10).join(', ')}${open.length > 10 ? ', …' : ''} (or \`baton switch <id>\`).` : 'Start one with `baton start "<title>"`.',
      details: { candidates: open },
    });
  }

  /** Makes `id` the active session, pausing the one that was active. */
  async switchTo(id: string, agent?: string | null): Promise<SessionState> {
    validateId(id);
    return this.store.withWorkspaceLock(async () => {
      const target = await this.get(id);
      // Validate before pausing anything: the table says which statuses may become active.
      if (target.status !== 'active') decide.decideSession(target, 'resume');
      await this.pauseActiveFor(id, true, agent);
      let state = target;
      if (target.status !== 'active') state = (await this.simple(id, (s) => decide.decideSession(s, 'resume'), { agent })).state;
      await this.store.setActive(id);
      return state;
    });
  }

  /** Makes a paused, interrupted or failed session active again (and the workspace's active one). */
  async resume(id: string, agent?: string | null): Promise<SessionState> {
    const s = await this.get(id);
    if (s.status === 'active') {
      throw new BatonError('INVALID_TRANSITION', `Session ${id} is already active.`, { hint: 'Go on working in it.' });
    }
    return this.switchTo(id, agent);
  }

  /** Applies a lifecycle verb; a session that ends stops being the workspace's active one. */
  async lifecycle(id: string, action: Exclude<SessionAction, 'resume'>, detail: string | null = null, o: ChangeOptions = {}): Promise<SessionState> {
    const r = await this.simple(id, (s) => decide.decideSession(s, action, detail), o);
    if (['completed', 'failed', 'abandoned'].includes(r.state.status)) await this.clearActiveIf(id);
    return r.state;
  }

  private async clearActiveIf(id: string): Promise<void> {
    await this.store.withWorkspaceLock(async () => {
      if ((await this.store.getActive()) === id) await this.store.setActive(null);
    });
  }

  /** Archives a session that is not running: records it, then moves it to the archive. */
  async archive(id: string, o: ChangeOptions = {}): Promise<SessionState> {
    const current = await this.get(id);
    if (current.archived && !(await this.store.isArchived(id))) {
      // Recorded as archived, but the move did not happen (a crash in between): finish it.
      await this.store.archive(id);
      await this.clearActiveIf(id);
      return current;
    }
    const r = await this.simple(id, (s) => decide.decideArchive(s), o);
    await this.store.archive(id);
    await this.clearActiveIf(id);
    return r.state;
  }

  /** Pins a session: `cleanup` never archives or deletes it. */
  async pin(id: string, reason: string | null = null, o: ChangeOptions = {}): Promise<SessionState> {
    return (await retention.pin(this, id, true, reason, o)).state;
  }

  /** Unpins a session. */
  async unpin(id: string, reason: string | null = null, o: ChangeOptions = {}): Promise<SessionState> {
    return (await retention.pin(this, id, false, reason, o)).state;
  }

  /** Deletes a session that is not running and not pinned, leaving a tombstone (see retention.ts). */
  delete(id: string, o: ChangeOptions = {}): Promise<Tombstone> {
    return retention.deleteSession(this, validateId(id), o);
  }

  /** Archives or deletes old finished sessions (see retention.ts). */
  cleanup(o: CleanupOptions = {}): Promise<CleanupResult> {
    return retention.cleanup(this, o);
  }

  /** Tombstones of deleted sessions, newest deletion first. */
  tombstones(): Promise<Tombstone[]> {
    return retention.tombstones(this);
  }

  /**
   * Registry rows, newest first, derived for sessions the cache lacks. Archived ones only
   * with `all`. Rows stay JSON text until a field is needed (see {@link RowText}).
   */
  async listRows(filter: { status?: SessionStatus; all?: boolean; rebuild?: boolean } = {}): Promise<RowText[]> {
    const opts = { rebuild: filter.rebuild === true };
    const r = this.store.listRows
      ? await this.store.listRows(opts)
      : await this.store.list(opts).then((l) => ({ rows: l.summaries.map((s) => RowText.of(s)), missing: l.missing, repairs: l.repairs }));
    r.repairs.forEach(this.onRepair);
    const derived: SessionSummary[] = [];
    for (const id of r.missing) {
      try {
        derived.push(summarize(await this.get(id)));
      } catch (e) {
        if (!isBatonError(e)) throw e;
        this.onRepair({ sessionId: id, kind: 'index_rebuilt', message: `Session ${id} could not be read for the registry: ${e.message}`, savedTo: null });
      }
    }
    if (derived.length) await this.store.putSummaries(derived);
    const now = this.time();
    const rows = [...r.rows, ...derived.map((s) => RowText.of(s))];
    for (let i = 0; i < rows.length; i++) if (leaseLapsed(rows[i]!, now)) rows[i] = await this.recheck(rows[i]!, now);
    return rows
      .filter((row) => (filter.all ? true : !row.archived))
      .filter((row) => (filter.status ? row.status === filter.status : true))
      .map((row) => ({ row, createdAt: row.createdAt, id: row.id }))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id.localeCompare(b.id)))
      .map((x) => x.row);
  }

  /** Registry rows as a JSON array, one row per line, printed as stored (see {@link listRows}). */
  async listJson(filter: { status?: SessionStatus; all?: boolean; rebuild?: boolean } = {}): Promise<string> {
    return rowsToJsonArray(await this.listRows(filter));
  }

  /** Registry rows as objects (see {@link listRows}). */
  async list(filter: { status?: SessionStatus; all?: boolean; rebuild?: boolean } = {}): Promise<SessionSummary[]> {
    return (await this.listRows(filter)).map((row) => row.summary);
  }

  /** Events after `since`. */
  async log(id: string, since = 0): Promise<StoredEvent[]> {
    validateId(id);
    return this.store.readEvents(id, since);
  }

  /** Rebuilds a damaged journal (see {@link SessionStore.repair}). */
  async repair(id: string): Promise<RepairReport[]> {
    validateId(id);
    return this.store.repair(id);
  }

  // ---- phases and records ---------------------------------------------------------------

  /** start | complete | fail | skip | retry a phase. */
  async phase(id: string, ref: string, action: PhaseAction, o: PhaseActionOptions & ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    const agent = o.agent ?? this.agent;
    const r = await this.simple(id, (s) => decide.decidePhase(s, ref, action, { ...o, agent }), o);
    // The automatic checkpoint's event is part of the result, so the revision returned is current.
    const cp = action === 'complete' ? await this.checkpoints.afterPhase(r, o) : null;
    return cp ? { ...r, state: cp.state, events: [...r.events, ...cp.events] } : r;
  }

  /** Records reaching a sub-step of an in-progress phase. */
  substep(id: string, ref: string, name: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideSubstep(s, ref, name), o);
  }

  /** Records files, hashing each one now (sha256 and size; null for a deleted file). */
  files(id: string, action: FileAction, paths: string[], phase: string | null, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    const measured = paths.map((p): MeasuredFile => (action === 'deleted' || !this.measure ? { path: p, sha256: null, size: null } : this.measure(p)));
    const agent = o.agent ?? this.agent;
    return this.simple(id, (s) => decide.decideFiles(s, action, measured, phase, agent), o);
  }

  /** Records an error; the result is its id. */
  error(id: string, input: decide.ErrorInput, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    return this.change(id, (s) => {
      const r = decide.decideError(s, { ...input, agent });
      return { events: r.events, result: r.errorId };
    }, o);
  }

  /** Resolves an error. */
  resolveError(id: string, errorId: string, resolution: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideResolve(s, errorId, resolution), o);
  }

  /** Records token use. */
  tokens(id: string, input: Omit<decide.TokensInput, 'agent'> & { agent?: string | null }, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    if (!agent) throw new BatonError('BAD_INPUT', 'Token use must name the agent.', { hint: 'Pass --agent NAME (or set BATON_AGENT).' });
    return this.simple(id, (s) => decide.decideTokens(s, { ...input, agent }), o);
  }

  /** Sets the token budget (null clears it). */
  budget(id: string, max: number | null, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideBudget(s, max), o);
  }

  /** Sets the cost budget in US dollars (null clears it); numeric strings are accepted and checked. */
  costBudget(id: string, maxUsd: number | string | null, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decideCostBudget(s, maxUsd), o);
  }

  /**
   * The pricing table in effect: built-in prices with the pricing file's rows over them, read
   * once per manager. A malformed file is a `BAD_INPUT` naming it.
   */
  pricing(): PricingTable {
    this.pricingTable ??= loadPricing(this.pricingFile);
    return this.pricingTable;
  }

  /** Records a decision; the result is its id. */
  decision(id: string, input: decide.DecisionInput, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = input.agent ?? o.agent ?? this.agent;
    return this.withId(id, (s) => decide.decideDecision(s, { ...input, agent }), o);
  }

  /** Adds a finding; the result is its id. */
  finding(id: string, input: { text: string; severity?: string | null; phase?: string | null }, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => decide.decideFinding(s, { ...input, agent }), o);
  }

  /** Removes a finding. */
  removeFinding(id: string, findingId: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideFindingRemove(s, findingId), o);
  }

  /** Adds a note; the result is its id. */
  note(id: string, input: { text: string; phase?: string | null }, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => decide.decideNote(s, { ...input, agent }), o);
  }

  /** Adds a milestone; the result is its id. */
  milestone(id: string, input: { title: string; targetDate?: string | null }, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    return this.withId(id, (s) => decide.decideMilestone(s, input), o);
  }

  /** Marks a milestone done. */
  milestoneDone(id: string, ref: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideMilestoneDone(s, ref), o);
  }

  /** Records an artifact; the result is its id. */
  artifact(id: string, input: { path: string; kind?: string | null; description?: string | null; phase?: string | null }, o: ChangeOptions = {}): Promise<ChangeResult<string>> {
    const agent = o.agent ?? this.agent;
    return this.withId(id, (s) => decide.decideArtifact(s, { ...input, agent }), o);
  }

  /** Replaces the context summary. */
  context(id: string, summary: string, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.simple(id, (s) => decide.decideContext(s, summary), o);
  }

  /**
   * A row whose recorded lease expiry has passed ({@link leaseLapsed}), checked against its
   * session (rows are not rewritten at each heartbeat): still renewed, it is shown with the
   * current expiry; lapsed, as interrupted (lease-expired).
   */
  private async recheck(row: RowText, now: string): Promise<RowText> {
    const expires = row.leaseExpiresAt!;
    let s: SessionState;
    try {
      s = await this.get(row.id);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      return RowText.of({ ...row.summary, status: 'interrupted', cause: { cause: 'lease-expired', at: expires, detail: null } });
    }
    const eff = effectiveStatus(s, now);
    return RowText.of({ ...summarize(s), status: eff.status, cause: eff.cause });
  }

  private withId(id: string, fn: (s: SessionState) => { events: EventDraft[]; id: string }, o: ChangeOptions): Promise<ChangeResult<string>> {
    return this.change(id, (s) => {
      const r = fn(s);
      return { events: r.events, result: r.id };
    }, o);
  }
}


/** An active row whose recorded lease expiry has passed by `now`. */
function leaseLapsed(row: RowText, now: string): boolean {
  if (row.status !== 'active') return false;
  const expires = row.leaseExpiresAt;
  return expires !== null && Date.parse(expires) <= Date.parse(now);
}

function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2 + attempt, 25);
  return new Promise((r) => setTimeout(r, ms));
}
