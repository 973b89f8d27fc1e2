/**
 * `manager.runs.hold(sessionId, fn, options)`: a program (or `baton run`) works on a session
 * as one run. It takes the session lease and starts a run in one append, renews both on a
 * timer, fences every write made through its handle, and records the run's end once (retried
 * while the store is away, never written twice). A holder that is killed stops renewing: its
 * run lapses (another host learns of it by the TTL) or is found gone on its host at once, and
 * a takeover fences its late writes (docs/runs.md).
 */
import { decideAcquire, decideRelease, decideRenew, goneText, leaseOf } from '../../domain/runs/lease.js';
import { BatonError } from '../../domain/errors.js';
import {
  decideRunDeath,
  decideRunEnd,
  decideRunRenew,
  decideRunStart,
  findRun,
  RUN_HEARTBEAT_MS,
  RUN_TTL_MS,
  runsOf,
} from '../../domain/runs/runs.js';
import type { RunEndInput, RunStartInput } from '../../domain/runs/runs.js';
import { decidePhaseRunStart } from '../../domain/runs/phase-lease.js';
import { draft } from '../../domain/decide.js';
import type { EventDraft } from '../../domain/decide.js';
import type { SessionState } from '../../domain/state.js';
import { BUDGET_CHECK_MS, BudgetWatch, overStop } from '../spend/budget-watch.js';
import { LeaseKeeper } from './lease-keeper.js';
import { Leases } from './leases.js';
import { clearOrphans } from './orphans.js';
import type { OrphanOptions } from './orphans.js';
import { END_RETRY_MS, endRetrying } from './run-end.js';
import type { ChangeOptions, ChangeResult, ManagerCore } from '../types.js';
import type { Liveness } from '../../domain/runs/runs.js';

/** What a hold needs of `manager.runs` (runs.ts holds this file's functions: no import back). */
export interface Runs {
  liveness(s: SessionState): Liveness;
  claimPhase(sessionId: string, runId: string, phase: string | null, o?: ChangeOptions): Promise<ChangeResult<string>>;
}

/** How a run is held. */
export interface HoldOptions extends OrphanOptions {
  /** `library` (default) or `command` (`baton run`). */
  kind?: 'library' | 'command';
  agent?: string | null;
  /** The lease's owner name (default: the agent, else `<kind>:<pid>`). */
  owner?: string;
  /** The lease and the run lapse this long after each renewal (default 60 s). */
  ttlMs?: number;
  /** Renewal interval (default 30 s); shorter than `ttlMs`. */
  heartbeatMs?: number;
  /** Take the lease even though another live run holds it. */
  force?: boolean;
  /** The command the run runs (`baton run`). */
  command?: string[] | null;
  /**
   * Hold a lease on this phase only (start or claim it for the run) instead of the whole
   * session: runs on other phases go on at once (docs/runs.md). With `adoptToken` (a lease
   * `baton claim` took on the whole session) the phase is claimed under that lease instead.
   */
  phase?: string | null;
  /** A lease taken by `baton claim` (its BATON_LEASE_TOKEN) to go on under instead of taking a new one. */
  adoptToken?: number;
  /** How long recording the end is retried while the store is unreachable (default 30 s). */
  endRetryMs?: number;
  /** Told of troubles that do not stop the run (a failed heartbeat, an end being retried) and of a takeover of a gone holder. */
  onNotice?(message: string): void;
  /** The lease is lost (another run took over) or ran out unrenewed: stop working (the handle's signal fires too). */
  onLost?(why: string): void;
  /** How often the budgets are judged, ms (default 5 s; 0: never). Past a `stop` budget the run stops as on a lost lease. */
  budgetCheckMs?: number;
  /** A budget with policy stop is exceeded: stop working (the handle's signal fires too, with BUDGET_EXCEEDED). */
  onBudget?(why: string): void;
}

/** What `fn` gets: the run, its fencing token, and when to stop. */
export interface HeldRun {
  readonly sessionId: string;
  readonly runId: string;
  /** The lease's fencing token: writes made with it are FENCED once another run took over. */
  readonly token: number;
  /** Fires when the lease is lost or ran out without a renewal: stop writing. */
  readonly signal: AbortSignal;
  /** Pass to every manager change made in this run: `{ agent, fencingToken, run }`. */
  readonly options: ChangeOptions & { fencingToken: number; run: string };
  /** Claims a phase for the run (null: the first free one); see `manager.runs.claimPhase`. */
  claimPhase(phase: string | null): Promise<string>;
  /** Records the process group the run's command runs in: the run is gone only when the whole group is. */
  setProcessGroup(pgid: number): Promise<void>;
}

/** What became of a held run (see {@link holdRun}). */
export interface HoldOutcome<T> {
  runId: string;
  token: number;
  /** `fn`'s value, or its error. */
  value?: T;
  error?: unknown;
  /** Why the lease was lost (FENCED, or it ran out and another run took over), or null. */
  lost: string | null;
  /** Why a budget stopped the run (BUDGET_EXCEEDED's message), or null; its end's cause is then `budget-exceeded`. */
  budget?: string | null;
  /** The end recorded (its cause) and the session's status after it; null when it could not be written. */
  end: { cause: string; status: SessionState['status'] } | null;
}

/** How the end of a held run is recorded, from fn's outcome. */
export type EndOf<T> = (o: { value?: T; error?: unknown }) => RunEndInput;

const defaultEnd: EndOf<unknown> = (o) =>
  o.error === undefined
    ? { how: 'finished', cause: 'run-completed' }
    : {
        how: 'finished',
        cause: 'error',
        detail: String((o.error as Error)?.message ?? o.error).slice(0, 500),
        session: 'interrupt',
      };

/** Takes the lease and starts the run (after refusing or ending orphans, ending a gone holder's lease). */
async function acquire(
  m: ManagerCore,
  runs: Runs,
  id: string,
  o: HoldOptions,
  ttlMs: number,
): Promise<{ runId: string; token: number }> {
  const leases = new Leases(m);
  await leases.useStoreClock();
  const agent = o.agent ?? null;
  const kind = o.kind ?? 'library';
  const start = {
    kind,
    agent,
    process: { pid: m.origin.pid, host: m.origin.host, boot: m.origin.boot },
    ttlMs,
    cli: null,
    command: o.command ?? null,
  };
  if (o.phase && o.adoptToken === undefined) return acquirePhase(m, runs, id, o, o.phase, start);
  await clearOrphans(await m.get(id), m.origin, o);
  if (o.adoptToken !== undefined && (await leases.adoptable(id, o.adoptToken))) {
    const token = o.adoptToken;
    const r = await m.change(
      id,
      (s) => {
        const runId = `run-${runsOf(s).length + 1}`;
        return {
          events: [
            ...decideRenew(s, token, ttlMs, m.time()),
            ...decideRunStart(s, { ...start, runId, token, now: m.time() }, runs.liveness(s)),
          ],
          result: runId,
        };
      },
      { agent, fencingToken: token },
    );
    return { runId: r.result, token };
  }
  const gone = await leases.endGoneHolder(id, agent);
  if (gone) o.onNotice?.(`the lease's holder is gone (${goneText(gone)}); taking the session over`);
  if ((await m.get(id)).status !== 'active') await m.resume(id, agent);
  const owner = o.owner ?? agent ?? `${kind}:${m.origin.pid}`;
  const r = await m.change(
    id,
    (s) => {
      const now = m.time();
      const l = runs.liveness(s);
      const acq = decideAcquire(
        s,
        {
          owner,
          pid: m.origin.pid,
          host: m.origin.host,
          boot: m.origin.boot,
          ttlMs,
          now,
          ...(l.dead ? { dead: l.dead } : {}),
        },
        o.force === true,
      );
      const token = acq.find((e) => e.type === 'lease.acquired')?.data as { token?: number } | undefined;
      const t = token?.token ?? leaseOf(s)!.token;
      const runId = `run-${runsOf(s).length + 1}`;
      return {
        events: [...acq, ...decideRunStart(s, { ...start, runId, token: t, now }, l)],
        result: { runId, token: t },
      };
    },
    { agent },
  );
  return r.result;
}

/**
 * Starts the run holding a lease on `phase` alone (phase-lease.ts): refused while an orphan of
 * a whole-session run or of a run on this phase still runs (unless `endOrphans`), while the
 * session's lease is live (a gone holder's is ended first), or while a live run owns the phase.
 */
async function acquirePhase(
  m: ManagerCore,
  runs: Runs,
  id: string,
  o: HoldOptions,
  phase: string,
  start: Omit<RunStartInput, 'runId' | 'now'>,
): Promise<{ runId: string; token: number }> {
  const s0 = await m.get(id);
  // An orphan left on another phase works there, not here: it does not stand in this run's way.
  const mine = runsOf(s0).filter((r) => r.leasedPhase === undefined || r.leasedPhase === phase);
  await clearOrphans({ ...s0, runs: mine }, m.origin, o);
  const gone = await new Leases(m).endGoneHolder(id, start.agent);
  if (gone) o.onNotice?.(`the lease's holder is gone (${goneText(gone)}); taking the session over`);
  const r = await m.change(
    id,
    (s) => {
      const runId = `run-${runsOf(s).length + 1}`;
      const d = decidePhaseRunStart(s, { ...start, runId, now: m.time() }, phase, runs.liveness(s), o.force === true);
      return { events: d.events, result: { runId, token: d.token } };
    },
    { agent: start.agent },
  );
  return r.result;
}

/** Claims `phase` for the run; a phase in progress that no run owns (started at a terminal) is taken over too. */
async function claimFor(
  m: ManagerCore,
  runs: Runs,
  id: string,
  runId: string,
  phase: string | null,
  o: ChangeOptions,
): Promise<string> {
  const s = await m.get(id);
  const p = phase === null ? undefined : s.phases.find((x) => x.id === phase);
  if (p && p.status === 'in_progress' && !p.owner) {
    await m.change(
      id,
      () => ({ events: [draft('phase.claimed', { phaseId: p.id, runId, from: null })], result: undefined }),
      o,
    );
    return p.id;
  }
  return (await runs.claimPhase(id, runId, phase, o)).result;
}

/**
 * Holds session `id` as one run while `fn` works (see the file comment). Resolves with what
 * became of it; never throws after the run started (fn's error is in the outcome). Before
 * it: LOCKED while another live run holds the lease (unless `force`) or an orphan of a dead
 * `baton run` still runs (unless `endOrphans`).
 */
export async function holdRun<T>(
  m: ManagerCore,
  runs: Runs,
  id: string,
  fn: (h: HeldRun) => Promise<T>,
  o: HoldOptions = {},
  endOf: EndOf<T> = defaultEnd,
): Promise<HoldOutcome<T>> {
  const ttlMs = o.ttlMs ?? RUN_TTL_MS;
  const heartbeatMs = o.heartbeatMs ?? Math.min(RUN_HEARTBEAT_MS, Math.floor(ttlMs / 2));
  if (!(heartbeatMs > 0 && heartbeatMs < ttlMs)) {
    throw new BatonError(
      'BAD_INPUT',
      `The heartbeat (${heartbeatMs} ms) must be shorter than the lease lifetime (${ttlMs} ms).`,
      { hint: 'e.g. heartbeat 30s, ttl 60s' },
    );
  }
  // Past a stop budget already: refused before anything starts (raising it lets the run go on).
  const over = overStop(m, await m.get(id), o.agent ?? null, o.phase ?? null);
  if (over) throw over;
  const { runId, token } = await acquire(m, runs, id, o, ttlMs);
  const ac = new AbortController();
  const { keeper, handle, phaseLease } = await keepRun(m, runs, id, { runId, token, ttlMs, heartbeatMs }, o, ac);
  const watch = new BudgetWatch(
    m,
    id,
    { agent: o.agent ?? null, phase: o.phase ?? null, everyMs: o.budgetCheckMs ?? BUDGET_CHECK_MS },
    (e) => {
      o.onBudget?.(e.message);
      ac.abort(e);
    },
  );
  keeper.start();
  watch.start();
  const done: { value?: T; error?: unknown } = {};
  try {
    if (o.phase && !phaseLease) await handle.claimPhase(o.phase);
    done.value = await fn(handle);
  } catch (e) {
    done.error = e;
  } finally {
    keeper.stop();
    watch.stop();
  }
  return endHeld(m, runs, handle, { keeper, budget: watch.stopped, ttlMs }, done, o, endOf);
}

/**
 * The lease keeper of a held run (renewing the lease, or the run alone when it holds a phase
 * lease; a lost or lapsed lease fires `ac`) and the handle `fn` gets.
 */
async function keepRun(
  m: ManagerCore,
  runs: Runs,
  id: string,
  run: { runId: string; token: number; ttlMs: number; heartbeatMs: number },
  o: HoldOptions,
  ac: AbortController,
): Promise<{ keeper: LeaseKeeper; handle: HeldRun; phaseLease: boolean }> {
  const { runId, token, ttlMs, heartbeatMs } = run;
  const options = { agent: o.agent ?? null, fencingToken: token, run: runId };
  let pgid: number | undefined;
  // A phase lease is the run itself: renewing the run renews the lease (and the fence checks it).
  const phaseLease = findRun(await m.get(id), runId)?.leasedPhase !== undefined;
  const renewOnce = async (): Promise<string | undefined> => {
    const leases = new Leases(m);
    await leases.useStoreClock();
    const r = await m.change(
      id,
      (s) => ({
        events: [
          ...(phaseLease ? [] : decideRenew(s, token, ttlMs, m.time())),
          ...decideRunRenew(s, runId, runs.liveness(s), pgid),
        ],
        result: undefined,
      }),
      options,
    );
    return phaseLease ? (findRun(r.state, runId)?.expiresAt ?? undefined) : r.state.lease?.expiresAt;
  };
  const held = await m.get(id);
  const keeper = new LeaseKeeper(
    { renew: renewOnce, now: () => m.time() },
    {
      ttlMs,
      heartbeatMs,
      expiresAt: (phaseLease ? findRun(held, runId)?.expiresAt : leaseOf(held)?.expiresAt) ?? m.time(),
    },
    {
      onLost: (why) => {
        o.onLost?.(why);
        ac.abort(new BatonError('FENCED', why));
      },
      onLapsed: (at) => {
        const why = `the lease ran out at ${at} without a renewal (store unreachable?)`;
        o.onLost?.(why);
        ac.abort(new BatonError('FENCED', why));
      },
      onTrouble: (message) => o.onNotice?.(`heartbeat failed: ${message}`),
    },
  );
  const handle: HeldRun = {
    sessionId: id,
    runId,
    token,
    signal: ac.signal,
    options,
    claimPhase: (phase) => claimFor(m, runs, id, runId, phase, options),
    setProcessGroup: async (g) => {
      pgid = g;
      await renewOnce();
    },
  };
  return { keeper, handle, phaseLease };
}

/**
 * Records the end of a held run once `fn` is done: as lost when the lease was (or, after a
 * lapse, the store says it was), as stopped by a budget, else as `endOf` says (retried while
 * the store is away; FENCED at that point is recorded as lost).
 */
async function endHeld<T>(
  m: ManagerCore,
  runs: Runs,
  handle: HeldRun,
  held: { keeper: LeaseKeeper; budget: BatonError | null; ttlMs: number },
  done: { value?: T; error?: unknown },
  o: HoldOptions,
  endOf: EndOf<T>,
): Promise<HoldOutcome<T>> {
  const { sessionId: id, runId, token, options } = handle;
  const { keeper, budget, ttlMs } = held;
  const base = { runId, token, ...done, budget: budget?.message ?? null };
  // A lapse: learn from the store what became of the lease before recording anything.
  if (keeper.lost === null && keeper.lapsed !== null && !(await keeper.settle(2 * ttlMs + 30_000)))
    return { ...base, lost: `lease ran out at ${keeper.lapsed}`, end: null };
  if (keeper.lost !== null)
    return {
      ...base,
      lost: keeper.lost,
      end: await recordLost(m, runs, id, runId, token, keeper.lost, endOf(done), o).catch(() => null),
    };
  const e: RunEndInput = budget
    ? { ...endOf(done), how: 'finished', cause: 'budget-exceeded', detail: budget.message, session: 'pause' }
    : endOf(done);
  let fenced: string | null = null;
  const end = await endRetrying(
    () => writeEnd(m, runs, id, runId, token, e, options),
    async () => {
      const s = await m.get(id);
      const ended = findRun(s, runId)?.ended;
      return ended ? { cause: ended.cause, status: s.status } : null;
    },
    {
      withinMs: o.endRetryMs ?? END_RETRY_MS,
      onRetry: (msg) => o.onNotice?.(`the end of the run could not be recorded yet (${msg}); retrying`),
    },
  ).catch(async (err: unknown) => {
    if (!(err instanceof BatonError) || err.code !== 'FENCED') throw err;
    // Taken over between the last heartbeat and the end: recorded as lost, the new holder's work untouched.
    fenced = err.message;
    return recordLost(m, runs, id, runId, token, err.message, e, o);
  });
  return { ...base, lost: fenced, end };
}

async function writeEnd(
  m: ManagerCore,
  runs: Runs,
  id: string,
  runId: string,
  token: number,
  e: RunEndInput,
  o: ChangeOptions,
): Promise<{ cause: string; status: SessionState['status'] }> {
  const r = await m.change(
    id,
    (s) => {
      const events = decideRunEnd(s, runId, e, runs.liveness(s));
      if (leaseOf(s)?.token === token) events.push(...decideRelease(s, token, m.time()));
      return { events, result: undefined };
    },
    o,
  );
  return { cause: e.cause, status: r.state.status };
}

/**
 * The run lost its lease: written without the lease (it would be FENCED), as a death that
 * changes nothing of the session but its history, so the new holder's work goes on (a lease
 * that ran out unclaimed is written down as expired, and the session interrupted, with it).
 */
async function recordLost(
  m: ManagerCore,
  runs: Runs,
  id: string,
  runId: string,
  token: number,
  why: string,
  e: RunEndInput,
  o: HoldOptions,
): Promise<{ cause: string; status: SessionState['status'] }> {
  const r = await m.change(
    id,
    (s) => {
      const events: EventDraft[] = decideRunDeath(s, runId, 'lease-lost', null, runs.liveness(s)).filter(
        (ev) => ev.type === 'run.ended',
      );
      // Another worker may have written the run down as dead already (its lease lapsed, then the
      // session was claimed): the run's own account is kept as history all the same.
      if (!events.length)
        events.push(
          draft('run.ended', {
            runId,
            how: 'died',
            command: findRun(s, runId)?.command ?? [],
            exitCode: null,
            signal: null,
            cause: 'lease-lost',
          }),
        );
      // Who holds the session now, when someone does: what the next reader of the history wants to know.
      const now = leaseOf(s);
      const detail =
        now && now.token !== token
          ? `${why}; now held by ${now.owner} (pid ${now.pid} on ${now.host}) with token ${now.token}`
          : why;
      for (const ev of events)
        Object.assign(ev.data as object, { detail, token, exitCode: e.exitCode ?? null, signal: e.signal ?? null });
      return { events, result: undefined };
    },
    { agent: o.agent ?? null, run: runId },
  );
  return { cause: 'lease-lost', status: r.state.status };
}
