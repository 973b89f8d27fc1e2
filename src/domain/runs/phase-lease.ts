/**
 * Phase leases: a run (`baton run --phase P`, `manager.runs.hold` with a phase) holds a lease
 * on one phase instead of the whole session, so runs on different phases of one session work
 * at once (DESIGN §5). The lease is the run itself: its TTL and renewals (`run.renewed`) are
 * the lease's, its `token` comes from the session's token series (the next lease of any kind
 * gets a higher one), and the phase's owner is the run. A write that carries a phase lease's
 * token is refused (`FENCED`) once that run has ended, lapsed, or lost its phase to another
 * run; writes of the runs on other phases are not touched. A whole-session lease and phase
 * leases exclude each other: the session lease is refused while a phase lease is live, and a
 * phase lease while the session lease is.
 *
 * Pure: process checks come in as {@link Liveness.dead}.
 */
import type { EventDraft } from '../decide.js';
import { assertWritable, draft } from '../decide.js';
import { BatonError } from '../errors.js';
import { hint } from '../hints.js';
import { decidePhaseClaim, decideRunStart, liveRuns, runLabel, runsOf } from './runs.js';
import type { Liveness, Run, RunStartInput } from './runs.js';
import type { SessionState } from '../state.js';

/** The live runs that hold a phase lease. */
export function livePhaseLeases(s: SessionState, l: Liveness): Run[] {
  return liveRuns(s, l).filter((r) => r.leasedPhase !== undefined);
}

/**
 * Refuses with `LOCKED` a lease on the whole session while runs hold leases on its phases
 * (unless `force`), naming each run and its phase.
 */
export function assertNoPhaseLeases(s: SessionState, l: Liveness, force = false): void {
  const held = force ? [] : livePhaseLeases(s, l);
  if (!held.length) return;
  throw new BatonError(
    'LOCKED',
    `Session ${s.id} cannot be held whole: ${held.length === 1 ? 'a run holds' : `${held.length} runs hold`} a lease on ${held.map((r) => `phase ${r.leasedPhase} (${runLabel(r)})`).join('; ')}.`,
    {
      hint: hint('run.wait-or-force', { session: s.id }),
      details: { sessionId: s.id, runs: held.map((r) => ({ runId: r.id, phase: r.leasedPhase })) },
    },
  );
}

/**
 * Starts run `r` holding a lease on phase `phase`, in one append: the deaths readers see are
 * written down, the run starts with the next fencing token, and the phase is started (pending)
 * or claimed (in progress under a dead run, or under no run) for it. `LOCKED` while the
 * session's lease is live (unless `force`: the caller ended a gone holder's lease first) or a
 * live run owns the phase (naming it and the phases that are free).
 */
export function decidePhaseRunStart(
  s: SessionState,
  r: Omit<RunStartInput, 'token' | 'leasedPhase'>,
  phase: string,
  l: Liveness,
  force = false,
): { events: EventDraft[]; token: number; phaseId: string } {
  assertWritable(s);
  const lease = s.lease ?? null;
  if (lease && Date.parse(lease.expiresAt) > Date.parse(l.now) && !force) {
    throw new BatonError(
      'LOCKED',
      `Session ${s.id} is held whole by ${lease.owner} (pid ${lease.pid} on ${lease.host}) until ${lease.expiresAt}: no run may lease one of its phases meanwhile.`,
      { hint: hint('lease.wait-or-force'), details: { sessionId: s.id, lease } },
    );
  }
  const token = (s.leaseToken ?? 0) + 1;
  const p = s.phases.find((x) => x.id === phase);
  // A phase in progress that no run owns (started at a terminal) is taken over; otherwise a claim.
  const claimed =
    p && p.status === 'in_progress' && !p.owner
      ? [draft('phase.claimed', { phaseId: p.id, runId: r.runId, from: null })]
      : decidePhaseClaim(s, r.runId, phase, r.agent, l).events.filter(
          (e) => e.type === 'phase.started' || e.type === 'phase.claimed',
        );
  // The deaths the claim would write are written by the start already.
  const start = decideRunStart(s, { ...r, token, leasedPhase: p?.id ?? phase }, l);
  return { events: [...start, ...claimed], token, phaseId: p?.id ?? phase };
}

/**
 * The fence of a write carrying `token` when it is a phase lease's: `FENCED` once its run
 * ended (taken over after a death, or finished), lapsed, or no longer owns its phase. Returns
 * false when `token` is no phase lease's (the session lease's fence applies), true when the
 * write may go on.
 */
export function phaseFence(s: SessionState, token: number, now: string): boolean {
  const r = runsOf(s).find((x) => x.leasedPhase !== undefined && x.token === token);
  if (!r) return false;
  const owner = s.phases.find((p) => p.id === r.leasedPhase)?.owner;
  const why = r.ended
    ? `its run ${r.id} is over (${r.ended.how}: ${r.ended.cause})`
    : r.expiresAt !== null && Date.parse(r.expiresAt) <= Date.parse(now)
      ? `its run ${r.id} lapsed at ${r.expiresAt}`
      : owner !== r.id
        ? `phase ${r.leasedPhase} passed to ${owner ?? 'no run'}`
        : null;
  if (why === null) return true;
  throw new BatonError('FENCED', `This writer's lease on phase ${r.leasedPhase} of session ${s.id} is gone: ${why}.`, {
    hint: hint('lease.fenced'),
    details: { sessionId: s.id, token, phase: r.leasedPhase, runId: r.id },
  });
}
