/**
 * How run events fold into a session (src/domain/runs/runs.ts): the runs list, each phase's owner,
 * and file conflicts. Records from before runs had ids fold too: a `baton run`'s
 * `run.started` without `runId` becomes run `r<seq>`, and a `run.ended` without one ends the
 * last command run still open.
 */
import type { EventDataMap, StoredEvent } from '../events.js';
import type { Run, SessionState } from '../state.js';

type Fold<K extends keyof EventDataMap> = (s: SessionState, d: EventDataMap[K], e: StoredEvent) => void;

function started(s: SessionState, d: EventDataMap['run.started'], e: StoredEvent): void {
  const list = (s.runs ??= []);
  const id = d.runId ?? `r${e.seq}`;
  const run: Run = {
    id,
    kind: d.kind ?? 'command',
    agent: d.agent,
    cli: d.cli ?? null,
    agentSessionId: d.agentSessionId ?? null,
    command: d.command?.length ? [...d.command] : d.kind && d.kind !== 'command' ? null : [...(d.command ?? [])],
    process: d.process ? { ...d.process } : { pid: e.actor?.pid ?? 0, host: e.actor?.host ?? '', boot: null },
    token: d.token ?? null,
    ttlMs: d.ttlMs ?? null,
    // A run without liveness of its own (older `baton run` records) lives as long as its lease.
    expiresAt:
      d.expiresAt ??
      (d.token !== null && d.token !== undefined && s.lease?.token === d.token ? s.lease.expiresAt : null),
    startedAt: e.time,
    renewedAt: e.time,
    phases: [],
    worktree: d.worktree ?? null,
    ended: null,
    ...(d.leasedPhase ? { leasedPhase: d.leasedPhase } : {}),
  };
  // A phase lease's token comes from the session's series: the next lease of any kind gets a higher one.
  if (d.leasedPhase && d.token) s.leaseToken = Math.max(s.leaseToken ?? 0, d.token);
  const at = list.findIndex((r) => r.id === id);
  if (at >= 0) list[at] = run;
  else list.push(run);
}

function ended(s: SessionState, d: EventDataMap['run.ended'], e: StoredEvent): void {
  const list = s.runs ?? [];
  const r = d.runId
    ? list.find((x) => x.id === d.runId)
    : [...list]
        .reverse()
        .find((x) => x.kind === 'command' && !x.ended && (d.token === undefined || x.token === d.token));
  // A late account replaces a recorded death only (never a clean end).
  if (!r || (r.ended && !(d.amend && r.ended.how === 'died'))) return;
  const how =
    d.how ??
    (d.cause === 'lease-lost'
      ? 'died'
      : d.cause === 'run-completed'
        ? 'finished'
        : d.cause === 'user-interrupt'
          ? 'paused'
          : 'died');
  r.ended = { at: e.time, how, cause: d.cause, detail: d.detail ?? null, exitCode: d.exitCode, signal: d.signal };
  if (d.salvage) r.salvage = { ...d.salvage };
}

function take(s: SessionState, phaseId: string, runId: string | undefined): void {
  const p = s.phases.find((x) => x.id === phaseId);
  if (!p) return;
  // A phase no run ever owned keeps no owner field (older views are unchanged).
  if (runId) p.owner = runId;
  else if (p.owner !== undefined) p.owner = null;
  const r = runId ? s.runs?.find((x) => x.id === runId) : undefined;
  if (r && !r.phases.includes(phaseId)) r.phases.push(phaseId);
}

/** Fold handlers of run events, and the ownership part of phase starts (merged by apply.ts). */
export const RUN_HANDLERS: {
  [K in 'run.started' | 'run.renewed' | 'run.ended' | 'phase.claimed' | 'file.conflicted']: Fold<K>;
} = {
  'run.started': started,
  'run.renewed': (s, d, e) => {
    const r = s.runs?.find((x) => x.id === d.runId);
    if (!r || r.ended) return;
    r.expiresAt = d.expiresAt;
    r.renewedAt = e.time;
    if (d.pgid) r.process = { ...r.process, pgid: d.pgid };
  },
  'run.ended': ended,
  'phase.claimed': (s, d) => take(s, d.phaseId, d.runId),
  'file.conflicted': (s, d, e) => {
    (s.conflicts ??= []).push({
      path: d.path,
      at: e.time,
      runId: d.runId,
      phaseId: d.phaseId,
      otherRunId: d.otherRunId,
      otherPhaseId: d.otherPhaseId,
    });
  },
};

/** The owner part of `phase.started` / `phase.retried`: the run that started it owns it (none: nobody). */
export function phaseTaken(s: SessionState, phaseId: string, runId: string | undefined): void {
  take(s, phaseId, runId);
}

/** A renewal of the session lease with `token` keeps the run holding it alive as long (older `baton run` records renew only the lease). */
export function leaseRenewed(s: SessionState, token: number, expiresAt: string, at: string): void {
  for (const r of s.runs ?? []) {
    if (r.ended || r.token !== token || r.ttlMs !== null) continue;
    r.expiresAt = expiresAt;
    r.renewedAt = at;
  }
}

/** The session lease with `token` was released or ended: a run that lived by it (no liveness of its own) has lapsed now unless it ended. */
export function leaseEnded(s: SessionState, token: number, at: string): void {
  for (const r of s.runs ?? [])
    if (!r.ended && r.token === token && r.ttlMs === null && r.expiresAt !== null && r.expiresAt > at) r.expiresAt = at;
}
