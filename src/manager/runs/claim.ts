/**
 * Claiming: a pool of workers (processes, machines) shares one store, and each crashed or
 * stopped run must be resumed by exactly one of them. A claim reopens an interrupted session
 * (or one whose lease expired) and takes its lease in ONE conditional append, so of several
 * workers racing for the same session exactly one append succeeds; the others see the new
 * lease on their retry (`LOCKED`) and move on to the next candidate.
 */
import { fold } from '../../domain/apply.js';
import { decideSession } from '../../domain/decide.js';
import { BatonError, isBatonError } from '../../domain/errors.js';
import type { StoredEvent } from '../../domain/events.js';
import { decideAcquire, leaseOf } from '../../domain/runs/lease.js';
import type { Lease } from '../../domain/runs/lease.js';
import type { ResumePlan } from '../../domain/resume/resume-plan-types.js';
import type { SessionState, StatusCause } from '../../domain/state.js';
import type { SessionSummary } from '../../domain/summary.js';
import type { ManagerCore as SessionManager } from '../types.js';
import { Recovery } from '../resume/resume.js';
import { Leases } from './leases.js';
import { clearOrphans } from './orphans.js';
import { Runs } from './runs.js';
import { claimQueueOf } from '../../store/capabilities.js';
import { unrecordedDeaths } from '../../domain/runs/runs.js';

/** Options of {@link claimSession}. */
export interface ClaimOptions {
  /** Lease owner written into the journal (e.g. `claim:<agent>`). */
  owner: string;
  /** Lifetime of the claimed lease: the worker must start renewing it (`baton run`) before it ends. */
  ttlMs: number;
  agent?: string | null;
  /** End the command of a dead `baton run` still running here first (else the session is LOCKED, naming it). */
  endOrphans?: boolean;
}

/** What a successful claim hands the worker. */
export interface Claim {
  sessionId: string;
  title: string;
  /** The lease taken; its token is the worker's fencing token (`BATON_LEASE_TOKEN`). */
  lease: Lease;
  /** Session revision right after the claim. */
  revision: number;
  /** Why the session needed a worker (the cause it was interrupted with). */
  cause: StatusCause | null;
  /** The resume plan as of the claim: what was in flight, what to do next. */
  plan: ResumePlan;
}

/**
 * Sessions that need a worker, oldest interruption first: status `interrupted` (as readers
 * report it, so an active session whose lease expired counts), not archived. An active
 * session whose lease holder is gone from this machine is first made interrupted (see
 * Leases.endGoneHolder), so it counts at once.
 */
async function claimCandidates(m: SessionManager, agent: string | null = null): Promise<SessionSummary[]> {
  // A run that died on this machine leaves a live lease behind: ended now, its session is a
  // candidate at once instead of when the lease expires. Only active rows can be such (an
  // indexed registry reads just those, not every session of a big store).
  const leases = new Leases(m);
  for (const r of await m.list({ status: 'active' })) {
    if (r.leaseToken) await leases.endGoneHolder(r.id, agent);
    await endDeadRuns(m, r);
  }
  const rows = await m.list({ claimable: true });
  const when = (r: SessionSummary): string => r.cause?.at ?? r.updatedAt;
  return rows
    .filter((r) => r.status === 'interrupted' && !r.archived)
    .sort((a, b) => (when(a) < when(b) ? -1 : when(a) > when(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The order in which a claim tries sessions on a store without a claim queue: like
 * {@link claimCandidates}, but a row whose lease lapsed is not loaded first to see whether it
 * was renewed since (rows are not rewritten at each heartbeat): the claim's own conditional
 * append loads it and finds out, so a claim costs what it tries, not one load per lapsed
 * session. Many claimers start at once: each begins at a random one of the oldest few, so they
 * do not all race for the same session and retry down the same list (oldest first still holds
 * within a few places).
 */
async function claimOrder(m: SessionManager): Promise<string[]> {
  const now = Date.parse(m.time());
  const rows = await m.list({ claimable: true, recheck: false });
  const lapsed = (r: SessionSummary): boolean =>
    r.status === 'active' && !!r.leaseExpiresAt && Date.parse(r.leaseExpiresAt) <= now;
  const when = (r: SessionSummary): string => (lapsed(r) ? r.leaseExpiresAt! : (r.cause?.at ?? r.updatedAt));
  const sorted = rows
    .filter((r) => (r.status === 'interrupted' || lapsed(r)) && !r.archived)
    .sort((a, b) => (when(a) < when(b) ? -1 : when(a) > when(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const start = Math.floor(Math.random() * Math.min(sorted.length, SPREAD));
  return [...sorted.slice(start), ...sorted.slice(0, start)].map((r) => r.id);
}

/**
 * A run that died on this machine leaves a live lease behind: ended now, its session is a
 * candidate at once instead of when the lease expires. Only rows whose lease has not ended by
 * the row are looked at (a lapsed one is a candidate anyway, and the claim looks at its holder
 * then, see {@link takeOne}); a lease already seen (same token) is judged from `memo` without
 * loading the session again: one held on another machine or by a detached claim never
 * becomes this machine's gone holder, and one of this machine needs only a process check.
 * True when one was ended.
 */
async function endGoneHolders(m: SessionManager, agent: string | null, memo: ClaimMemo): Promise<boolean> {
  const leases = new Leases(m);
  const now = Date.parse(m.time());
  let ended = false;
  const rows = (await m.list({ status: 'active', recheck: false })).filter((r) => !r.archived);
  const live = (r: SessionSummary): boolean =>
    !!r.leaseToken && !!r.leaseExpiresAt && Date.parse(r.leaseExpiresAt) > now;
  await learnHolders(m, rows.filter(live), memo);
  for (const r of rows) {
    if (live(r)) {
      const seen = memo.leases.get(r.id);
      if (!seen || seen.token !== r.leaseToken || leases.holderGone(seen)) {
        const lease = leaseOf(await m.get(r.id));
        if (lease) memo.leases.set(r.id, lease);
        if (leases.holderGone(lease) && (await leases.endGoneHolder(r.id, agent))) ended = true;
      }
    }
    // The session's lease first (its holder gone: cause holder-gone), then runs holding none.
    ended = (await endDeadRuns(m, r)) || ended;
  }
  return ended;
}

/**
 * Learns who holds the leases of `rows` not seen yet (by token) from the store's claim queue
 * in one look (PostgreSQL: the latest `lease.acquired` of each, not the whole session), into
 * `memo`: a lease held elsewhere or by a detached claim is then judged without a load, and
 * one of this machine's whose holder is gone is loaded and ended as before. A holder of
 * another token than the row's is not taken (the session is loaded then).
 */
async function learnHolders(m: SessionManager, rows: SessionSummary[], memo: ClaimMemo): Promise<void> {
  const look = claimQueueOf(m.store)?.leaseHolders;
  const unseen = rows.filter((r) => memo.leases.get(r.id)?.token !== r.leaseToken);
  if (!look || !unseen.length) return;
  const holders = await look.call(
    claimQueueOf(m.store),
    unseen.map((r) => r.id),
  );
  for (const r of unseen) {
    const h = holders.get(r.id);
    if (!h || h.token !== r.leaseToken) continue;
    const at = r.leaseExpiresAt!;
    memo.leases.set(r.id, { ...h, acquiredAt: at, renewedAt: at, expiresAt: at });
  }
}

/**
 * Runs that hold no session lease (a `baton run --phase`, a conversation) and are found gone
 * on this machine or have all lapsed, written down dead: with no live run left the session is
 * interrupted, so a SIGKILLed phase run's session is a candidate at once, not after its TTL.
 * Only rows in doubt (Runs.rowInDoubt: a process check, no load) are looked at. True when a
 * death was written.
 */
async function endDeadRuns(m: SessionManager, row: SessionSummary): Promise<boolean> {
  const runs = new Runs(m);
  if (!runs.rowInDoubt(row, m.time())) return false;
  return (await runs.sweep(row.id)).length > 0;
}

/** How many of the oldest candidates concurrent claimers spread over. */
const SPREAD = 8;

/**
 * What a claimer learnt while trying: sessions whose lease turned out to be live (renewed
 * since their row was written) and until when, so a waiting claimer does not sleep past it;
 * and the first LOCKED refusal of a session whose dead run's
 * command still runs here.
 */
export interface ClaimMemo {
  liveUntil: Map<string, string>;
  /** The live leases looked at for a gone holder, by session (see endGoneHolders). */
  leases: Map<string, Lease>;
  orphaned: unknown;
}

/**
 * A memo for one claim (or one wait). The leases looked at are kept per manager (`m`): a
 * worker that claims in a loop learns each lease once, not at every claim that finds nothing.
 */
export function claimMemo(m?: SessionManager): ClaimMemo {
  let leases = m ? leasesSeen.get(m) : undefined;
  if (m && !leases) leasesSeen.set(m, (leases = new Map()));
  return { liveUntil: new Map(), leases: leases ?? new Map(), orphaned: null };
}

/** The leases each manager's claims looked at, by session (see {@link ClaimMemo}.leases). */
const leasesSeen = new WeakMap<SessionManager, Map<string, Lease>>();

/**
 * Claims one session that needs a worker, or returns null when none does. Candidates are
 * tried oldest first; one another worker got first is skipped, and so is one where the
 * command of a dead `baton run` still runs on this machine (unless `endOrphans`): when no
 * other could be claimed, that LOCKED refusal (naming the orphan's pid and command) is thrown.
 * On a store with a claim queue (PostgreSQL) each candidate is picked by one statement that
 * skips the ones other claimers are deciding on, so concurrent claimers never load the same
 * session in vain; elsewhere the candidates are listed and the conditional append decides.
 */
async function claimSession(m: SessionManager, o: ClaimOptions, memo: ClaimMemo = claimMemo(m)): Promise<Claim | null> {
  await useStoreClock(m);
  memo.orphaned = null;
  const now = m.time();
  for (const [id, until] of memo.liveUntil) if (until <= now) memo.liveUntil.delete(id);
  const queue = claimQueueOf(m.store);
  const pick = async (): Promise<Claimed | null> => {
    // Sessions found live before are tried again all the same: their holder may have died since.
    if (queue) return queue.next(now, [], (id) => takeOne(m, id, o, memo));
    for (const id of await claimOrder(m)) {
      const got = await takeOne(m, id, o, memo);
      if (got) return got;
    }
    return null;
  };
  // The sessions of this machine's dead holders only when nothing else is claimable: finding
  // them costs a look at every live lease, and their leases end soon anyway.
  let got = await pick();
  if (!got && (await endGoneHolders(m, o.agent ?? null, memo))) got = await pick();
  if (got) return finish(m, got);
  if (memo.orphaned) throw memo.orphaned;
  return null;
}

/**
 * One candidate: its gone holder (this machine's) ended, its dead runs written down (the
 * claimed session then reads active), a dead run's command still running here refused
 * (remembered in `memo`) unless `endOrphans`, then the claim's one conditional append.
 */
async function takeOne(m: SessionManager, id: string, o: ClaimOptions, memo: ClaimMemo): Promise<Claimed | null> {
  try {
    let s = await m.get(id);
    const leases = new Leases(m);
    if (leases.holderGone(leaseOf(s), s) && (await leases.endGoneHolder(id, o.agent ?? null))) s = await m.get(id);
    await clearOrphans(s, m.origin, { endOrphans: o.endOrphans === true });
    const runs = new Runs(m);
    if (unrecordedDeaths(s, runs.liveness(s)).length) await runs.sweep(id);
  } catch (e) {
    if (isBatonError(e, 'NOT_FOUND')) return null;
    if (!isBatonError(e, 'LOCKED')) throw e;
    memo.orphaned ??= e;
    return null;
  }
  return claimAppend(m, id, o, memo);
}

/** A session just claimed: its state right after the claim and why it needed a worker. */
interface Claimed {
  id: string;
  state: SessionState;
  cause: StatusCause | null;
}

/** The claim handed to the worker: the lease taken and the resume plan as of the claim. */
async function finish(m: SessionManager, c: Claimed): Promise<Claim> {
  const lease = leaseOf(c.state)!;
  const { plan } = await new Recovery(m).plan(c.id, { state: c.state });
  // The plan sees the lease just taken; warning the claimant about itself would mislead.
  const self = `${lease.owner} (pid ${lease.pid} on ${lease.host})`;
  plan.warnings = plan.warnings.filter((w) => !w.includes(self));
  return { sessionId: c.id, title: c.state.title, lease, revision: c.state.revision, cause: c.cause, plan };
}

/**
 * Claims session `id` if it still needs a worker: resumed and leased in one conditional
 * append. Null when another worker (or a person) got it first or it no longer needs one.
 */
async function tryClaim(m: SessionManager, id: string, o: ClaimOptions): Promise<Claim | null> {
  const got = await claimAppend(m, id, o, claimMemo());
  return got ? finish(m, got) : null;
}

/** {@link tryClaim} without the plan; a lease found live is remembered in `memo` with its end. */
async function claimAppend(m: SessionManager, id: string, o: ClaimOptions, memo: ClaimMemo): Promise<Claimed | null> {
  const seen: { cause: StatusCause | null } = { cause: null };
  let state: SessionState;
  try {
    const r = await m.change(
      id,
      (base) => {
        // `base` already has an expired lease written down (interrupted, lease-expired).
        if (base.status !== 'interrupted' || base.archived) {
          if (base.status === 'active' && base.lease) memo.liveUntil.set(id, base.lease.expiresAt);
          throw new BatonError('LOCKED', `Session ${id} no longer needs a worker (it is ${base.status}).`, {
            hint: 'Claim another one.',
          });
        }
        seen.cause = base.statusCause;
        const now = m.time();
        const resumed = decideSession(base, 'resume');
        const origin = m.origin;
        const after = fold(
          base,
          resumed.map(
            (d, i) =>
              ({
                ...d,
                time: now,
                actor: { agent: o.agent ?? null, ...origin },
                seq: base.revision + i + 1,
              }) as StoredEvent,
          ),
          id,
        )!;
        // The claimant exits at once and a worker goes on under the lease: detached, so its pid is no sign of life.
        const acquire = decideAcquire(after, {
          owner: o.owner,
          pid: origin.pid,
          host: origin.host,
          boot: origin.boot,
          detached: true,
          ttlMs: o.ttlMs,
          now,
        });
        return { events: [...resumed, ...acquire], result: undefined };
      },
      { agent: o.agent ?? null },
    );
    state = r.state;
  } catch (e) {
    // Another worker's claim (LOCKED), a session that changed status or went away meanwhile.
    if (isBatonError(e, 'LOCKED') || isBatonError(e, 'INVALID_TRANSITION') || isBatonError(e, 'NOT_FOUND')) return null;
    throw e;
  }
  return { id, state, cause: seen.cause };
}

/**
 * Judges by the store's clock when it has one (PostgreSQL: the server's): workers on many
 * machines then agree on when a lease ended, whatever their own clocks say. Measured again
 * when the last measure is over a second old (a claimer in a loop pays one round trip a
 * second for it, not one per claim), so a clock that drifts or jumps is followed.
 */
async function useStoreClock(m: SessionManager): Promise<void> {
  const store = m.store;
  if (!store.serverTime) return;
  const last = clockRead.get(m);
  if (last !== undefined && performance.now() - last < CLOCK_EVERY_MS) return;
  await m.syncClock(() => store.serverTime!());
  clockRead.set(m, performance.now());
}

/** When each manager last measured its store's clock (a monotonic time). */
const clockRead = new WeakMap<SessionManager, number>();
/** How long a measure of the store's clock is trusted. */
const CLOCK_EVERY_MS = 1_000;

/** Options of {@link claimWait}. */
export interface WaitOptions {
  /** Look again at least this often (a lease can expire without any write to watch). */
  pollMs: number;
  /** Give up after this long (null: wait until stopped). */
  timeoutMs: number | null;
  /** Stops waiting (SIGINT/SIGTERM); the claim then returns null. */
  signal?: AbortSignal;
  /** Called once, when the first look found nothing and the wait begins (the change feed is open). */
  onWaiting?: () => void;
  /** Called when a look failed because the store could not be reached (retryable); the wait goes on. */
  onTrouble?: (message: string) => void;
  /**
   * Called once per orphan set, when the only session that needs a worker is held by the
   * command of a dead `baton run` still running here (`message` names its pid and command):
   * the wait goes on until it exits (or `endOrphans` was asked for).
   */
  onOrphan?: (message: string) => void;
}

/**
 * Claims a session, waiting until one needs a worker. Woken by the store's claim queue when
 * it has one (a session was interrupted, announced by the writer that said so; on
 * PostgreSQL a LISTEN), else by its change feed ({@link SessionStore.watch}); by the earliest
 * lease end it knows of (a lease lapses without any write to hear); and by the poll, the
 * safety net. A wake that comes while a look is under way makes the next look start at once.
 * A session held by an orphan (the command of a dead `baton run` still running here) is
 * waited for until the orphan exits, unless `endOrphans`. Null after the timeout or when
 * `signal` aborts.
 */
async function claimWait(m: SessionManager, o: ClaimOptions, w: WaitOptions): Promise<Claim | null> {
  const deadline = w.timeoutMs === null ? Infinity : Date.now() + w.timeoutMs;
  let wake: (() => void) | null = null;
  let woken = false;
  const onWake = (): void => {
    woken = true;
    wake?.();
  };
  const queue = claimQueueOf(m.store);
  const stop = queue ? await queue.listen(onWake) : m.store.watch ? await m.store.watch(onWake) : null;
  const memo = claimMemo(m);
  let waiting = false;
  let orphanSaid = '';
  try {
    for (;;) {
      if (w.signal?.aborted) return null;
      woken = false;
      let untilExpiry: number | null = null;
      try {
        const claim = await claimSession(m, o, memo);
        if (claim) return claim;
        untilExpiry = await nextLeaseEnd(m, memo);
      } catch (e) {
        // An orphan still works on the session: no takeover while it runs, so wait for it to exit.
        if (isBatonError(e, 'LOCKED') && (e.details as { orphans?: unknown } | undefined)?.orphans) {
          if (orphanSaid !== e.message) w.onOrphan?.(e.message);
          orphanSaid = e.message;
        }
        // A store that cannot be reached for a while (a partition, a restart) is waited out:
        // a pool of workers must still be there when it is back.
        else if (
          !isBatonError(e, 'STORE_UNAVAILABLE') ||
          (e.details as { retryable?: boolean } | undefined)?.retryable !== true
        )
          throw e;
        else w.onTrouble?.(e.message);
      }
      const left = deadline - Date.now();
      if (left <= 0) return null;
      if (!waiting) {
        waiting = true;
        w.onWaiting?.();
      }
      if (woken) continue;
      const delay = Math.max(10, Math.min(w.pollMs, left, untilExpiry ?? Infinity));
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, delay);
        function done(): void {
          clearTimeout(t);
          wake = null;
          w.signal?.removeEventListener('abort', done);
          resolve();
        }
        wake = done;
        w.signal?.addEventListener('abort', done);
      });
    }
  } finally {
    await stop?.();
  }
}

/**
 * Milliseconds until the earliest lease end this claimer knows of (plus a margin), or null:
 * those its registry rows hold, and those it found live when it tried a session whose row
 * lagged the renewals. An end already past is skipped: the row lags behind the heartbeats
 * (renewals do not rewrite it), so that run is alive (the claim just tried found so, and
 * remembered its real end), and waking for it would spin.
 */
async function nextLeaseEnd(m: SessionManager, memo: ClaimMemo): Promise<number | null> {
  const now = Date.parse(m.time());
  const ends = [...memo.liveUntil.values()].map((t) => Date.parse(t));
  for (const r of await m.list({ status: 'active', recheck: false }))
    if (r.leaseExpiresAt && !r.archived) ends.push(Date.parse(r.leaseExpiresAt));
  let best: number | null = null;
  for (const end of ends) {
    const ms = end - now + 5;
    if (ms > 5 && (best === null || ms < best)) best = ms;
  }
  return best;
}

/**
 * Claiming sessions that need a worker (`manager.claims`, `baton claim`). Each method's
 * contract is the function it names.
 */
export class Claims {
  constructor(private readonly m: SessionManager) {}

  /** See {@link claimCandidates}. */
  candidates(): Promise<SessionSummary[]> {
    return claimCandidates(this.m);
  }

  /** See {@link claimSession}. */
  claim(o: ClaimOptions): Promise<Claim | null> {
    return claimSession(this.m, o);
  }

  /** See {@link tryClaim}. */
  tryClaim(id: string, o: ClaimOptions): Promise<Claim | null> {
    return tryClaim(this.m, id, o);
  }

  /** See {@link claimWait}. */
  wait(o: ClaimOptions, w: WaitOptions): Promise<Claim | null> {
    return claimWait(this.m, o, w);
  }
}
