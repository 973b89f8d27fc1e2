/**
 * Re-import of one phase: the events that bring a phase imported before forward to the unit
 * as the foreign session has it now (part of reimport.ts's plan).
 */
import type { EventDataMap, EventType } from '../domain/events.js';
import type { Phase, PhaseStatus } from '../domain/state.js';
import type { ProblemSeverity } from './types.js';

const RANK: Record<PhaseStatus, number> = { pending: 0, in_progress: 1, failed: 1, completed: 2, skipped: 2 };

/** Appends one event to the re-import plan (`time` null: the import time). */
export type Push = <K extends EventType>(type: K, data: EventDataMap[K], time: string | null | undefined) => void;
/** Reports a change the re-import does not apply, as a `REIMPORT_DIVERGED` problem. */
export type Diverged = (
  severity: ProblemSeverity,
  kind: string,
  message: string,
  details?: Record<string, unknown>,
) => void;

/**
 * Events that take phase `p` forward to `t` (see reimportEvents in reimport.ts): started,
 * retried, sub-step, files, errors, then completed, failed or skipped; what goes backwards is
 * reported through `diverged`, not applied.
 */
export function phaseDiff(
  p: Phase,
  t: Phase,
  push: Push,
  diverged: Diverged,
  nextId: (counter: string, prefix: string) => string,
): void {
  const agent = t.agents[0] ?? null;
  if (JSON.stringify([p.name, p.blockedBy, p.metadata]) !== JSON.stringify([t.name, t.blockedBy, t.metadata])) {
    diverged(
      'info',
      'unit_changed',
      `The definition of unit ${p.id} (name, dependencies or unmapped fields) changed; baton keeps the phase as imported first, the new fields are in provenance.documents.`,
      { unitId: p.id },
    );
  }
  let status = p.status;
  let retries = p.retryCount;
  let subStep = p.subStep;
  const backwards =
    RANK[t.status] < RANK[p.status] ||
    ((p.status === 'completed' || p.status === 'skipped') && t.status !== p.status) ||
    t.retryCount < p.retryCount;
  if (backwards) {
    diverged(
      'warning',
      'status_backwards',
      `Unit ${p.id} is ${t.status} (retries ${t.retryCount}) in the foreign session but ${p.status} (retries ${p.retryCount}) in baton; a phase does not go back, so its status was kept (a toolkit rollback? restore a baton checkpoint instead).`,
      { unitId: p.id, foreign: t.status, baton: p.status, foreignRetries: t.retryCount, batonRetries: p.retryCount },
    );
  } else {
    if (status === 'pending' && t.status !== 'pending' && t.status !== 'skipped') {
      push('phase.started', { phaseId: p.id, agent, forced: false }, t.startedAt);
      status = 'in_progress';
      subStep = null;
    }
    while (retries < t.retryCount) {
      retries++;
      push('phase.retried', { phaseId: p.id, agent, forced: false, attempt: retries }, t.startedAt);
      status = 'in_progress';
      subStep = null;
    }
    if (status === 'failed' && (t.status === 'in_progress' || t.status === 'completed')) {
      // Restarted by the toolkit without counting a retry.
      push('phase.started', { phaseId: p.id, agent, forced: false }, t.startedAt);
      status = 'in_progress';
      subStep = null;
    }
  }
  // A phase in progress without a sub-step is being worked on by its last agent; a layout whose
  // position is the working agent (CCW's current_agent, as baton's export writes it) shows that
  // agent as the sub-step: the same place, not a new one.
  const working =
    p.status === 'in_progress' && status === 'in_progress' && retries === p.retryCount && p.subStep === null
      ? (p.agents.at(-1) ?? null)
      : null;
  if (t.subStep !== null && t.subStep !== subStep && t.subStep !== working)
    push('substep.reached', { phaseId: p.id, name: t.subStep }, t.startedAt);
  // Files: new paths, or a path whose action changed.
  const have = new Map(p.files.map((f) => [f.path, f.action]));
  for (const f of t.files)
    if (have.get(f.path) !== f.action)
      push(
        'file.recorded',
        { phaseId: p.id, path: f.path, action: f.action, sha256: null, size: null, agent: f.agent },
        f.recordedAt,
      );
  // Files baton holds that the unit no longer lists (a toolkit records a deletion as a file of
  // its own, e.g. Maestro's files_deleted, which is a changed action above): baton keeps them.
  const listed = new Set(t.files.map((f) => f.path));
  const dropped = new Map(p.files.filter((f) => !listed.has(f.path)).map((f) => [f.path, f.action]));
  for (const [path, action] of dropped)
    diverged(
      'info',
      'file_removed',
      `File ${path} (${action}) of unit ${p.id} is recorded in baton but not in the foreign session; kept.`,
      { unitId: p.id, path, action },
    );
  // Errors, matched by (type, message) in order.
  const pool = p.errors.map((e) => ({ e, used: false }));
  for (const te of t.errors) {
    const m = pool.find((x) => !x.used && x.e.type === te.type && x.e.message === te.message);
    if (m) {
      m.used = true;
      if (te.resolved && !m.e.resolved)
        push('error.resolved', { errorId: m.e.id, resolution: te.resolution as string }, te.resolvedAt);
      else if (!te.resolved && m.e.resolved)
        diverged(
          'info',
          'error_reopened',
          `Error ${m.e.id} of ${p.id} is resolved in baton but not in the foreign session; kept resolved.`,
          { errorId: m.e.id },
        );
    } else {
      const errorId = nextId('error', 'err');
      push('error.recorded', { errorId, phaseId: p.id, agent: te.agent, type: te.type, message: te.message }, te.time);
      if (te.resolved) push('error.resolved', { errorId, resolution: te.resolution as string }, te.resolvedAt);
    }
  }
  const gone = pool.filter((x) => !x.used).length;
  if (gone)
    diverged(
      'info',
      'error_removed',
      `${gone} error(s) of ${p.id} recorded in baton are not in the foreign session; kept.`,
      { unitId: p.id },
    );
  if (!backwards && t.status !== status) {
    if (t.status === 'completed') push('phase.completed', { phaseId: p.id, agent }, t.completedAt);
    else if (t.status === 'failed') push('phase.failed', { phaseId: p.id, agent, reason: t.failureReason }, t.failedAt);
    else if (t.status === 'skipped' && status === 'pending')
      push('phase.skipped', { phaseId: p.id, reason: t.skipReason }, t.completedAt);
    else if (t.status !== 'in_progress')
      diverged('warning', 'status_backwards', `Unit ${p.id} went from ${status} to ${t.status}; kept ${status}.`, {
        unitId: p.id,
      });
  }
}
