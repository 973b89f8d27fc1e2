/**
 * Runs: one worker's attempt on a session (a `baton run` command, an agent CLI conversation
 * bound by the hooks, an MCP connection, a program inside `manager.runs.hold`). Many runs may
 * work on one session at once, each on the phases it started or claimed. The session's status
 * follows from its runs: active while one is live; paused when the last one ends by choice;
 * interrupted, naming the dead run and what it had in flight, when a run dies with work in
 * flight and no other run is live (docs/runs.md).
 *
 * Pure: whether a run's process still exists is I/O, so callers pass what they found as
 * {@link Liveness.dead}; expiry is judged against {@link Liveness.now}.
 */
import type { EventDraft } from '../decide.js';
import { assertWritable, draft, findPhase } from '../decide.js';
import { BatonError } from '../errors.js';
import { hint } from '../hints.js';
import type { Phase, PlanStep, Run, RunEnd, RunKind, RunProcess, SessionState, StatusCause } from '../state.js';

export type { Run, RunEnd, RunKind, RunProcess };

/** Defaults: a run renews its liveness every 30 s and lapses 60 s after the last renewal. */
export const RUN_HEARTBEAT_MS = 30_000;
export const RUN_TTL_MS = 60_000;

/** What a caller knows about liveness now: the time, and runs found dead by a process check. */
export interface Liveness {
  now: string;
  /** Ids of runs whose process is known to be gone (checked on their host). */
  dead?: ReadonlySet<string>;
  /** Runs whose holder is gone but whose command's process group still runs (orphans), by id: the group's id. */
  orphans?: ReadonlyMap<string, number>;
}

/** The session's runs (none before the first). */
export function runsOf(s: SessionState): Run[] {
  return s.runs ?? [];
}

/** A run by id, or undefined. */
export function findRun(s: SessionState, runId: string): Run | undefined {
  return runsOf(s).find((r) => r.id === runId);
}

/** True when the run has not ended, has not lapsed and was not found dead. */
export function runLive(r: Run, l: Liveness): boolean {
  if (r.ended) return false;
  if (l.dead?.has(r.id)) return false;
  return r.expiresAt === null || Date.parse(r.expiresAt) > Date.parse(l.now);
}

/** Runs that are live now. */
export function liveRuns(s: SessionState, l: Liveness): Run[] {
  return runsOf(s).filter((r) => runLive(r, l));
}

/** Runs that have not recorded an end but are not live (lapsed, or found dead): deaths not yet written down. */
export function unrecordedDeaths(s: SessionState, l: Liveness): Run[] {
  return runsOf(s).filter((r) => !r.ended && !runLive(r, l));
}

/** "claude conversation 1a2b3c4d (pid 12 on h)" / "baton run `make` (pid 9 on h)". */
export function runLabel(r: Run): string {
  const who =
    r.kind === 'conversation'
      ? `${r.cli ?? 'agent'} conversation ${(r.agentSessionId ?? r.id).slice(0, 8)}`
      : r.kind === 'command'
        ? `baton run \`${(r.command ?? []).join(' ').slice(0, 60)}\``
        : r.kind === 'mcp'
          ? `MCP connection${r.agent ? ` of ${r.agent}` : ''}`
          : `program${r.agent ? ` ${r.agent}` : ''}`;
  return `${who} (${r.id}, pid ${r.process.pid} on ${r.process.host})`;
}

/** The phases in progress that `r` owns. */
export function runPhasesInFlight(s: SessionState, r: Run): Phase[] {
  return s.phases.filter((p) => p.status === 'in_progress' && p.owner === r.id);
}

/** "in flight: build (sub-step: tests)", of one run or of the whole session. */
function inFlightText(phases: Phase[]): string {
  return `in flight: ${phases.length ? phases.map((p) => (p.subStep ? `${p.id} (sub-step: ${p.subStep})` : p.id)).join(', ') : 'nothing'}`;
}

/**
 * The status readers should report, from the runs: a session recorded `active` whose runs
 * have all died or lapsed (none recorded a clean end) is `interrupted`, naming the dead run,
 * before anyone writes that down. Sessions without runs are as recorded.
 */
export function runsStatus(
  s: SessionState,
  l: Liveness,
): { status: SessionState['status']; cause: StatusCause | null } | null {
  if (s.status !== 'active') return null;
  const open = runsOf(s).filter((r) => !r.ended);
  if (!open.length || open.some((r) => runLive(r, l))) return null;
  const dead = open.at(-1)!;
  const at = l.dead?.has(dead.id) ? l.now : (dead.expiresAt ?? l.now);
  return {
    status: 'interrupted',
    cause: { cause: l.dead?.has(dead.id) ? 'run-died' : 'run-lapsed', at, detail: deathDetail(s, dead) },
  };
}

function deathDetail(s: SessionState, r: Run): string {
  const mine = runPhasesInFlight(s, r);
  return `${runLabel(r)}; ${inFlightText(mine.length ? mine : s.phases.filter((p) => p.status === 'in_progress'))}`;
}

/** Who starts a run. */
export interface RunStartInput {
  runId: string;
  kind: RunKind;
  agent: string | null;
  process: RunProcess;
  /** Lapses this long after each renewal; null: only a process check ends it (a conversation on a file store's host). */
  ttlMs: number | null;
  now: string;
  cli?: string | null;
  agentSessionId?: string | null;
  command?: string[] | null;
  /** The session lease the run holds (command, library). */
  token?: number | null;
  /** The work tree the run works in, when not the store's own (a git worktree). */
  worktree?: string | null;
  /** The phase whose lease the run holds with `token` instead of the session's (phase-lease.ts). */
  leasedPhase?: string | null;
}

function plus(now: string, ms: number): string {
  return new Date(Date.parse(now) + ms).toISOString();
}

/**
 * Starts a run (a no-op when a live run of that id exists): the deaths readers already see
 * are written down first, and a paused or interrupted session becomes active again.
 */
export function decideRunStart(s: SessionState, r: RunStartInput, l: Liveness): EventDraft[] {
  assertWritable(s);
  const known = findRun(s, r.runId);
  if (known && runLive(known, l)) return [];
  const out: EventDraft[] = [...decideDeaths(s, l)];
  // A death written just now may have stopped the session: this run takes it up again.
  const stopped = [...out].reverse().find((e) => e.type === 'session.interrupted' || e.type === 'session.paused');
  const status = stopped ? (stopped.type === 'session.paused' ? 'paused' : 'interrupted') : s.status;
  if (status === 'paused' || status === 'interrupted') out.push(draft('session.resumed', { from: status }));
  out.push(
    draft('run.started', {
      runId: r.runId,
      kind: r.kind,
      command: r.command ?? [],
      token: r.token ?? null,
      agent: r.agent,
      process: r.process,
      ttlMs: r.ttlMs,
      expiresAt: r.ttlMs === null ? null : plus(r.now, r.ttlMs),
      ...(r.cli ? { cli: r.cli } : {}),
      ...(r.agentSessionId ? { agentSessionId: r.agentSessionId } : {}),
      ...(r.worktree ? { worktree: r.worktree } : {}),
      ...(r.leasedPhase ? { leasedPhase: r.leasedPhase } : {}),
    }),
  );
  return out;
}

/**
 * Renews a live run's liveness; FENCED when it has ended or lapsed (it must start again).
 * `pgid`: the process group its command now runs in (recorded with the renewal).
 */
export function decideRunRenew(s: SessionState, runId: string, l: Liveness, pgid?: number): EventDraft[] {
  const r = findRun(s, runId);
  if (!r || !runLive(r, l)) {
    throw new BatonError(
      'FENCED',
      `Run ${runId} of session ${s.id} is ${r ? (r.ended ? `over (${r.ended.how}: ${r.ended.cause})` : 'lapsed') : 'unknown'}.`,
      {
        hint: 'Start a new run: the session may have been taken over meanwhile.',
        details: { sessionId: s.id, runId },
      },
    );
  }
  // A run without a TTL lives by its process check alone: nothing to renew.
  if (r.ttlMs === null) return [];
  return [draft('run.renewed', { runId, expiresAt: plus(l.now, r.ttlMs), ...(pgid ? { pgid } : {}) })];
}

/** How a run ends by its own choice. */
export interface RunEndInput {
  /** `finished`: its work is done; `paused`: stopped by the user, to go on later. */
  how: 'finished' | 'paused';
  cause: string;
  detail?: string | null;
  /** What the session becomes when this was its last live run (default paused). */
  session?: 'pause' | 'interrupt';
  exitCode?: number | null;
  signal?: string | null;
}

/**
 * Ends a run. The session is paused (or interrupted, for a command that failed) only when
 * no other run is live: one run's end never stops another's work.
 */
export function decideRunEnd(s: SessionState, runId: string, e: RunEndInput, l: Liveness): EventDraft[] {
  const r = findRun(s, runId);
  if (!r || r.ended) return [];
  const out: EventDraft[] = [
    draft('run.ended', {
      runId,
      how: e.how,
      command: r.command ?? [],
      exitCode: e.exitCode ?? null,
      signal: e.signal ?? null,
      cause: e.cause,
      ...(e.detail ? { detail: e.detail } : {}),
    }),
  ];
  const others = liveRuns(s, l).filter((x) => x.id !== runId);
  if (s.status === 'active' && !others.length) {
    const detail = `${runLabel(r)} ended; ${inFlightText(s.phases.filter((p) => p.status === 'in_progress'))}`;
    out.push(
      e.session === 'interrupt'
        ? draft('session.interrupted', { cause: e.cause, detail })
        : draft('session.paused', { cause: e.cause, detail }),
    );
  }
  return out;
}

/** What a dead run left, recovered by whoever found its death. */
export interface Salvage {
  /** Its plan as the transcript last had it, when the hooks missed the last change. */
  steps?: PlanStep[] | null;
  /** Its last tool calls, newest last ("Edit src/a.ts"). */
  lastTools?: string[];
  /** Tokens its transcript still held (already recorded as `tokens.recorded` with the death). */
  tokens?: number;
}

/**
 * Records a run's death (`cause`: `process-gone`, `lease-lapsed`, `disconnected`…) with what
 * was salvaged. When no other run is live, an active session becomes interrupted naming the
 * dead run and its work in flight (paused when it had nothing in flight).
 */
export function decideRunDeath(
  s: SessionState,
  runId: string,
  cause: string,
  salvage: Salvage | null,
  l: Liveness,
): EventDraft[] {
  const r = findRun(s, runId);
  if (!r || r.ended) return [];
  const others = liveRuns(s, l).filter((x) => x.id !== runId);
  return deathEvents(s, r, cause, salvage, others.length > 0);
}

function deathEvents(
  s: SessionState,
  r: Run,
  cause: string,
  salvage: Salvage | null,
  othersLive: boolean,
): EventDraft[] {
  const detail = deathDetail(s, r);
  const out: EventDraft[] = [
    draft('run.ended', {
      runId: r.id,
      how: 'died',
      command: r.command ?? [],
      exitCode: null,
      signal: null,
      cause,
      detail,
      ...(salvage ? { salvage } : {}),
    }),
  ];
  if (s.status === 'active' && !othersLive) {
    const inFlight = s.phases.some((p) => p.status === 'in_progress');
    out.push(
      inFlight
        ? draft('session.interrupted', { cause: 'run-died', detail: `${cause}: ${detail}` })
        : draft('session.paused', { cause: 'run-died', detail: `${cause}: ${detail}` }),
    );
  }
  return out;
}

/**
 * The deaths readers already see (lapsed runs, and runs found dead), written down: each
 * becomes `run.ended` (how `died`, with what `salvage` recovered of it), and the session
 * interrupted when no run is left live.
 */
export function decideDeaths(
  s: SessionState,
  l: Liveness,
  salvage: ReadonlyMap<string, Salvage | null> = new Map(),
): EventDraft[] {
  const gone = unrecordedDeaths(s, l);
  if (!gone.length) return [];
  const othersLive = liveRuns(s, l).length > 0;
  const out: EventDraft[] = [];
  gone.forEach((r, i) => {
    const last = i === gone.length - 1;
    const cause = l.dead?.has(r.id) ? 'process-gone' : 'lease-lapsed';
    // Only the last death decides the session's status, so one interruption is written.
    out.push(...deathEvents(s, r, cause, salvage.get(r.id) ?? null, othersLive || !last));
  });
  return out;
}

/**
 * The phase a record that names none goes to, for run `runId` (or agent `agent` outside a
 * run): the run's own phase in progress (the one it started last); else the only phase in
 * progress that no other live run owns; among several, the agent's, else the one started
 * last. A run's record never goes to a phase another live run works on (a conversation's
 * turns before it takes its phase are not the other run's work); outside a run, with every
 * phase in progress owned, they are the pool. Null when none applies (the record belongs to
 * the session). Never throws.
 */
export function recordPhase(s: SessionState, runId: string | null, agent: string | null, l: Liveness): Phase | null {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  const latest = (ps: Phase[]): Phase | null =>
    ps.length ? ps.reduce((a, b) => ((b.startedAt ?? '') > (a.startedAt ?? '') ? b : a)) : null;
  if (runId) {
    const mine = running.filter((p) => p.owner === runId);
    if (mine.length) return latest(mine);
  }
  const liveIds = new Set(liveRuns(s, l).map((r) => r.id));
  const free = running.filter((p) => !p.owner || p.owner === runId || !liveIds.has(p.owner));
  if (runId && !free.length) return null;
  const pool = free.length ? free : running;
  if (pool.length <= 1) return pool[0] ?? null;
  const agents = agent ? pool.filter((p) => p.agents.includes(agent)) : [];
  return latest(agents.length ? agents : pool);
}

/** Phases a run may claim now: pending ones whose blockers are done, and phases in progress whose owner is not live. */
export function claimablePhases(s: SessionState, l: Liveness, runId: string | null = null): Phase[] {
  const liveIds = new Set(liveRuns(s, l).map((r) => r.id));
  return s.phases.filter((p) => {
    if (p.status === 'in_progress') return !!p.owner && p.owner !== runId && !liveIds.has(p.owner);
    if (p.status !== 'pending') return false;
    return p.blockedBy.every((b) => {
      const dep = s.phases.find((x) => x.id === b);
      return !dep || dep.status === 'completed' || dep.status === 'skipped';
    });
  });
}

/**
 * A run takes a phase: `ref` names it, or null takes the first claimable. A pending phase is
 * started for the run; a phase in progress whose owner is dead or gone passes to it
 * (`phase.claimed`). Refused with LOCKED while a live run owns it (naming the owner and the
 * phases that are free), and also LOCKED when no phase is free (`details.free` is empty).
 */
export function decidePhaseClaim(
  s: SessionState,
  runId: string,
  ref: string | null,
  agent: string | null,
  l: Liveness,
): { events: EventDraft[]; phaseId: string } {
  assertWritable(s);
  const free = claimablePhases(s, l, runId);
  const p = ref === null ? free[0] : findPhase(s, ref);
  if (!p) {
    throw new BatonError(
      'LOCKED',
      `Session ${s.id} has no phase free to claim: every phase is done, blocked or owned by a live run.`,
      {
        hint: hint('phase.claim-free', { session: s.id, free: [] }),
        details: { sessionId: s.id, free: [] },
      },
    );
  }
  if (p.status === 'in_progress' && p.owner === runId) return { events: [], phaseId: p.id };
  if (!free.some((x) => x.id === p.id)) {
    const owner = p.owner ? findRun(s, p.owner) : undefined;
    const why =
      p.status === 'in_progress'
        ? owner
          ? `owned by ${runLabel(owner)}, which is live`
          : 'in progress outside any run'
        : `${p.status}${p.status === 'pending' ? ' and blocked' : ''}`;
    throw new BatonError('LOCKED', `Phase ${p.id} cannot be claimed: it is ${why}.`, {
      hint: hint('phase.claim-free', { session: s.id, free: free.map((x) => x.id) }),
      details: { sessionId: s.id, phase: p.id, owner: p.owner ?? null, free: free.map((x) => x.id) },
    });
  }
  const deaths = decideDeaths(s, l);
  if (p.status === 'pending')
    return {
      events: [...deaths, draft('phase.started', { phaseId: p.id, agent, forced: false, runId })],
      phaseId: p.id,
    };
  return {
    events: [...deaths, draft('phase.claimed', { phaseId: p.id, runId, from: p.owner ?? null })],
    phaseId: p.id,
  };
}

/**
 * Refuses with LOCKED a change that would stop other runs' work (switch, pause, start
 * --switch) while a live run other than `runId` works on the session, unless `force`.
 */
export function assertNoOtherLiveRun(
  s: SessionState,
  runId: string | null,
  what: string,
  l: Liveness,
  force = false,
): void {
  if (force) return;
  const others = liveRuns(s, l).filter((r) => r.id !== runId);
  if (!others.length) return;
  throw new BatonError(
    'LOCKED',
    `Cannot ${what}: session ${s.id} has ${others.length === 1 ? 'a live run' : `${others.length} live runs`}: ${others.map(runLabel).join('; ')}.`,
    {
      hint: hint('run.wait-or-force', { session: s.id }),
      details: { sessionId: s.id, runs: others.map((r) => r.id) },
    },
  );
}

/** A run as readers show it (`status --json`, MCP `session_status`, the resume plan). */
export interface RunView {
  id: string;
  kind: RunKind;
  agent: string | null;
  label: string;
  /**
   * `live`, `ended` (by choice or recorded dead), `dead` (lapsed or found gone, not yet written
   * down), or `orphaned`: its `baton run` is gone but its command still runs (`orphanPid`).
   */
  state: 'live' | 'ended' | 'dead' | 'orphaned';
  orphanPid?: number;
  phases: string[];
  startedAt: string;
  expiresAt: string | null;
  ended: RunEnd | null;
}

/** The session's runs as readers show them, newest last. */
export function runsView(s: SessionState, l: Liveness): RunView[] {
  return runsOf(s).map((r) => ({
    id: r.id,
    kind: r.kind,
    agent: r.agent,
    label: runLabel(r),
    state: l.orphans?.has(r.id) ? 'orphaned' : r.ended ? 'ended' : runLive(r, l) ? 'live' : 'dead',
    ...(l.orphans?.has(r.id) ? { orphanPid: l.orphans.get(r.id)! } : {}),
    phases: [...r.phases],
    startedAt: r.startedAt,
    expiresAt: r.expiresAt,
    ended: r.ended,
  }));
}

/**
 * What a reader should know of the runs, as lines for the resume plan and the handoff: who
 * works on what now, and each dead run with its phase, step and last files, and what to do.
 */
export function runNotes(s: SessionState, l: Liveness): string[] {
  const out: string[] = [];
  for (const r of liveRuns(s, l)) {
    const mine = runPhasesInFlight(s, r).map((p) => p.id);
    out.push(
      `Live: ${runLabel(r)} works on ${mine.length ? mine.join(', ') : 'no phase of its own'}; leave its phases to it (\`phase claim\` takes a free one).`,
    );
  }
  for (const r of runsOf(s)) {
    const died = r.ended?.how === 'died' || (!r.ended && !runLive(r, l));
    if (!died) continue;
    const phases = s.phases.filter((p) => p.owner === r.id && p.status === 'in_progress');
    if (!phases.length) continue;
    const at = r.ended?.at ?? r.expiresAt ?? l.now;
    for (const p of phases) {
      const files = p.files
        .filter((f) => !f.agent || f.agent === r.agent)
        .slice(-3)
        .map((f) => f.path);
      const step = p.subStep ?? p.steps?.find((x) => x.status === 'in_progress')?.name ?? null;
      out.push(
        `Dead: ${runLabel(r)} ${r.ended ? `died (${r.ended.cause})` : 'stopped renewing'} at ${at} on phase ${p.id}${step ? ` at step "${step}"` : ''}${files.length ? `; last files: ${files.join(', ')}` : ''}; claim it to go on from there (\`phase claim ${p.id}\`).`,
      );
    }
  }
  return out;
}
