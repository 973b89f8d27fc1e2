/**
 * Leases: which writer holds a session, until when, and with which fencing token. A lease
 * lives in the journal like everything else (`lease.acquired`, `lease.renewed`,
 * `lease.released`); taking one is a conditional append, so of two writers racing for an
 * expired lease exactly one wins, and it gets a higher token. A write that carries an older
 * token is refused with `FENCED`, so a writer that lost its lease (a zombie) cannot
 * overwrite its successor. All functions here are pure; time comes in as an argument.
 */
import type { EventDraft } from '../decide.js';
import { assertWritable, draft } from '../decide.js';
import { BatonError } from '../errors.js';
import { hint } from '../hints.js';
import type { HolderGoneReason } from '../events.js';
import type { Lease, SessionState, StatusCause } from '../state.js';
import { decideDeaths, runsStatus } from './runs.js';
import { assertNoPhaseLeases, phaseFence } from './phase-lease.js';

export type { Lease };

/** Defaults: renew every 30 s, expire 60 s after the last renewal. */
export const DEFAULT_HEARTBEAT_MS = 30_000;
export const DEFAULT_LEASE_TTL_MS = 60_000;

/** Who asks for a lease. */
export interface LeaseRequest {
  owner: string;
  pid: number;
  host: string;
  ttlMs: number;
  now: string;
  /** The requester's machine's boot id, if known (see {@link Lease.boot}). */
  boot?: string | null;
  /** The requester exits at once and another process goes on under the lease (see {@link Lease.detached}). */
  detached?: boolean;
  /** Runs a process check found gone (their phase leases no longer stand in the way). */
  dead?: ReadonlySet<string>;
}

/** The session's lease, or null (also for states folded before leases existed). */
export function leaseOf(s: SessionState): Lease | null {
  return s.lease ?? null;
}

/** True when the lease's expiry is at or before `now`. */
export function leaseExpired(lease: Lease, now: string): boolean {
  return Date.parse(lease.expiresAt) <= Date.parse(now);
}

function plus(now: string, ms: number): string {
  return new Date(Date.parse(now) + ms).toISOString();
}

/**
 * The status a reader should report: a session that says `active` but whose lease expired
 * is `interrupted` with cause `lease-expired` (its writer vanished), and one whose runs have
 * all died or lapsed is `interrupted` naming the dead run (runs.ts `runsStatus`), at once,
 * before anyone writes that down. `dead`: runs a process check found gone.
 */
export function effectiveStatus(
  s: SessionState,
  now: string,
  dead?: ReadonlySet<string>,
): { status: SessionState['status']; cause: StatusCause | null } {
  const lease = leaseOf(s);
  if (s.status === 'active' && lease && leaseExpired(lease, now)) {
    return {
      status: 'interrupted',
      cause: { cause: 'lease-expired', at: lease.expiresAt, detail: inFlightDetail(s, lease) },
    };
  }
  return runsStatus(s, { now, ...(dead ? { dead } : {}) }) ?? { status: s.status, cause: s.statusCause };
}

/** "held by A (pid 1 on h); in flight: build (sub-step: tests)". */
export function inFlightDetail(s: SessionState, lease: Lease | null): string {
  const phases = s.phases
    .filter((p) => p.status === 'in_progress')
    .map((p) => (p.subStep ? `${p.id} (sub-step: ${p.subStep})` : p.id));
  const who = lease ? `held by ${lease.owner} (pid ${lease.pid} on ${lease.host})` : 'no lease';
  return `${who}; in flight: ${phases.length ? phases.join(', ') : 'nothing'}`;
}

/**
 * Events that record, on the next write, what readers already report: the lease expired,
 * runs lapsed, and the session is interrupted. Empty when nothing expired.
 */
export function expiryEvents(s: SessionState, now: string): EventDraft[] {
  const lease = leaseOf(s);
  const out: EventDraft[] = [];
  if (lease && leaseExpired(lease, now)) {
    out.push(draft('lease.expired', { token: lease.token, owner: lease.owner, expiresAt: lease.expiresAt }));
    if (s.status === 'active')
      out.push(draft('session.interrupted', { cause: 'lease-expired', detail: inFlightDetail(s, lease) }));
  }
  // Lapsed runs too; the session's interruption is written once.
  const after = out.length && s.status === 'active' ? { ...s, status: 'interrupted' as const } : s;
  return [...out, ...decideDeaths(after, { now })];
}

/**
 * Refuses with `LOCKED` when a live lease of someone else holds the session (unless
 * `force`); returns false when the live lease is the requester's own (a renewal), true when
 * the session may be leased anew. Checks nothing else (see {@link decideAcquire}).
 */
export function assertLeaseFree(
  s: SessionState,
  r: Pick<LeaseRequest, 'owner' | 'pid' | 'host' | 'now'>,
  force = false,
): boolean {
  const lease = leaseOf(s);
  if (!lease || leaseExpired(lease, r.now) || force) return true;
  if (lease.owner === r.owner && lease.pid === r.pid && lease.host === r.host) return false;
  throw new BatonError(
    'LOCKED',
    `Session ${s.id} is leased to ${lease.owner} (pid ${lease.pid} on ${lease.host}) until ${lease.expiresAt}.`,
    {
      hint: hint('lease.wait-or-force'),
      details: { sessionId: s.id, lease },
    },
  );
}

/**
 * Takes the lease: refused with `LOCKED` while another owner's lease is still valid (unless
 * `force`); an expired lease is taken over with the next token. The same owner and pid
 * re-acquiring simply renews.
 */
export function decideAcquire(s: SessionState, r: LeaseRequest, force = false): EventDraft[] {
  assertWritable(s);
  if (!Number.isInteger(r.ttlMs) || r.ttlMs <= 0) {
    throw new BatonError('BAD_INPUT', `A lease must last a positive number of milliseconds; got ${r.ttlMs}.`, {
      hint: hint('option.example', { option: 'ttl', value: '60s' }),
    });
  }
  const lease = leaseOf(s);
  if (!assertLeaseFree(s, r, force) && lease)
    return [draft('lease.renewed', { token: lease.token, expiresAt: plus(r.now, r.ttlMs) })];
  assertNoPhaseLeases(s, { now: r.now, ...(r.dead ? { dead: r.dead } : {}) }, force);
  return [
    ...expiryEvents(s, r.now),
    draft('lease.acquired', {
      owner: r.owner,
      pid: r.pid,
      host: r.host,
      token: leaseTokenOf(s) + 1,
      expiresAt: plus(r.now, r.ttlMs),
      takeover: lease !== null && lease.token > 0,
      ...(r.boot ? { boot: r.boot } : {}),
      ...(r.detached ? { detached: true } : {}),
    }),
  ];
}

/** What is known of a lease's holder that is gone: its pid, its host, and why it is known. */
export interface GoneHolder {
  pid: number;
  host: string;
  reason: HolderGoneReason;
}

/** "pid 12 on h has exited" / "… was on h before it rebooted". */
export function goneText(g: GoneHolder): string {
  return g.reason === 'rebooted'
    ? `pid ${g.pid} ran on ${g.host} before it rebooted`
    : `pid ${g.pid} on ${g.host} has exited`;
}

/**
 * Events that end the live lease of a holder known to be gone (its process exited, or its
 * machine rebooted since): the lease ends now (`lease.expired` with `holderGone`) and an
 * active session becomes interrupted (cause `holder-gone`), so it can be taken over at once
 * instead of after the lease's lifetime. Empty when there is no live lease, when it is no
 * longer the lease with `token` (someone else took it meanwhile), or when it is detached.
 */
export function holderGoneEvents(s: SessionState, token: number, gone: GoneHolder, now: string): EventDraft[] {
  const lease = leaseOf(s);
  if (!lease || lease.token !== token || lease.detached || leaseExpired(lease, now)) return [];
  const out: EventDraft[] = [
    draft('lease.expired', { token: lease.token, owner: lease.owner, expiresAt: now, holderGone: gone }),
  ];
  if (s.status === 'active')
    out.push(
      draft('session.interrupted', { cause: 'holder-gone', detail: `${goneText(gone)}; ${inFlightDetail(s, lease)}` }),
    );
  return out;
}

/** The highest fencing token ever issued for the session (0 before the first lease). */
export function leaseTokenOf(s: SessionState): number {
  return s.leaseToken ?? 0;
}

/**
 * Refuses a write that carries a fencing token older than the session's newest one
 * (`FENCED`), or one whose lease has expired or been released. Writes without a token
 * (a person at a terminal) are not fenced. A phase lease's token is judged by its run
 * (phase-lease.ts `phaseFence`).
 */
export function assertFence(s: SessionState, token: number | undefined, now: string): void {
  if (token === undefined || phaseFence(s, token, now)) return;
  const lease = leaseOf(s);
  const newest = leaseTokenOf(s);
  if (token < newest || (token === newest && (!lease || lease.token !== token))) {
    throw new BatonError(
      'FENCED',
      `This writer's lease (token ${token}) is no longer valid for session ${s.id}${lease ? `: ${lease.owner} holds token ${lease.token}` : ''}.`,
      {
        hint: hint('lease.fenced'),
        details: { sessionId: s.id, token, current: lease?.token ?? null },
      },
    );
  }
  if (token > newest) {
    throw new BatonError('FENCED', `Fencing token ${token} was never issued for session ${s.id}.`, {
      hint: hint('lease.use-run-token'),
      details: { sessionId: s.id, token },
    });
  }
  if (lease && leaseExpired(lease, now)) {
    throw new BatonError('FENCED', `This writer's lease on session ${s.id} expired at ${lease.expiresAt}.`, {
      hint: hint('lease.take-new'),
      details: { sessionId: s.id, token, expiresAt: lease.expiresAt },
    });
  }
}

/** Renews the lease held with `token` (heartbeat). */
export function decideRenew(s: SessionState, token: number, ttlMs: number, now: string): EventDraft[] {
  assertFence(s, token, now);
  return [draft('lease.renewed', { token, expiresAt: plus(now, ttlMs) })];
}

/** Releases the lease held with `token`. */
export function decideRelease(s: SessionState, token: number, now: string): EventDraft[] {
  assertFence(s, token, now);
  return [draft('lease.released', { token })];
}
