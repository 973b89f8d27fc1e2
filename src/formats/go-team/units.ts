/**
 * The nine Go Team steps of one session as {@link ForeignUnit}s: statuses derived from the
 * checkpoints, the current step and the session status; files from the checkpoints; the one
 * recorded error from recovery.json.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { FormatProblem, ForeignError, ForeignFile, ForeignUnit } from '../types.js';
import { arr, num, obj, problem, str } from '../util.js';
import type { Cp } from './checkpoints.js';
import { join } from './layout.js';
import { STEPS, subStepOfPhase } from './steps.js';

function unsafeLexical(p: string): boolean {
  return (
    p.includes('\0') ||
    p.startsWith('/') ||
    /^[A-Za-z]:[\\/]/.test(p) ||
    p.replace(/\\/g, '/').split('/').includes('..')
  );
}

function filesOf(id: string, cp: Cp, problems: FormatProblem[]): ForeignFile[] {
  const f = obj(cp.doc?.files);
  const out: ForeignFile[] = [];
  for (const action of ['created', 'modified', 'deleted'] as const) {
    for (const p of arr(f[action])) {
      const path = str(p);
      if (path === null) continue;
      if (unsafeLexical(path)) {
        problems.push(
          problem(
            'UNSAFE_PATH',
            'warning',
            `Checkpoint ${cp.id} of session ${id} lists the file ${JSON.stringify(path)}, which leaves the project; it was not recorded.`,
            { sessionId: id, path: cp.file, details: { file: path } },
          ),
        );
        continue;
      }
      out.push({ path, action });
    }
  }
  return out;
}

/**
 * The one error Go Team records: on an error inside a step it saves the error state and
 * recovery metadata (`recovery.json`, `interrupt_reason: "error"`) and does not mark the
 * session failed. Other reasons (timeout, crash, disconnect) are interruptions, not errors.
 * Resolved once the session is completed (the step was redone since).
 */
export function recoveryError(
  recovery: Record<string, unknown> | null,
  status: SessionStatus,
  currentStep: number | null,
): ForeignError | null {
  if (!recovery || str(recovery.interrupt_reason) !== 'error') return null;
  const last = obj(recovery.last_known_state);
  const step = str(last.step) ?? (currentStep !== null ? String(currentStep) : null);
  const action = str(last.action);
  const stepName = str(last.step_name);
  const where = step === null ? 'a step' : `step ${step}${stepName ? ` (${stepName})` : ''}`;
  return {
    unitId: step,
    agent: str(last.agent),
    time: str(recovery.interrupted_at),
    type: 'error',
    message: `Interrupted by an error during ${where}${action ? `: ${action}` : ''}.`,
    resolved: status === 'completed',
    resolution: null,
  };
}

/** The nine steps with statuses derived from the checkpoints, the current step and the session status. */
export function buildUnits(
  id: string,
  cps: Cp[],
  usable: Cp[],
  currentStep: number | null,
  stepsCompleted: number | null,
  status: SessionStatus,
  liveState: Record<string, unknown>,
  problems: FormatProblem[],
  sdir: string,
): ForeignUnit[] {
  const units: ForeignUnit[] = STEPS.map((def) => {
    const mine = usable.filter((c) => c.step === def.n);
    const completing = mine.filter((c) => !c.iteration);
    const last = mine[mine.length - 1] ?? null;
    // A current step whose own checkpoint is corrupt must be redone from the previous one.
    const damaged = cps.some((c) => c.step === def.n && c.problem !== null && !c.iteration);
    // Before the current step: done. The current step itself: done when its checkpoint exists or
    // the registry counts it (current_step 4 with steps_completed 4: the toolkit has not moved on yet).
    const done =
      status === 'completed' ||
      completing.length > 0 ||
      (currentStep !== null &&
        (def.n < currentStep ||
          (def.n === currentStep && stepsCompleted !== null && stepsCompleted >= currentStep && !damaged)));
    const files = new Map<string, ForeignFile>();
    for (const c of mine) for (const f of filesOf(id, c, problems)) files.set(f.path, f);
    return {
      id: String(def.n),
      name: def.name,
      status: done ? 'completed' : 'pending',
      rawStatus: null,
      subStep: last?.subStep ?? null,
      retries: null,
      agents: [...def.agents],
      blockedBy: def.n > 1 ? [String(def.n - 1)] : [],
      startedAt: null,
      completedAt: done ? ((completing[completing.length - 1] ?? null)?.createdAt ?? null) : null,
      files: [...files.values()],
      errors: [],
      metadata: { step_name: def.name, checkpoints: cps.filter((c) => c.step === def.n).map((c) => c.id) },
    } satisfies ForeignUnit;
  });
  if (currentStep !== null && status !== 'completed') {
    for (const u of units) {
      const n = Number(u.id);
      if (n > currentStep && u.status === 'completed') {
        problems.push(
          problem(
            'REGISTRY_MISMATCH',
            'warning',
            `Session ${id}: step ${n} has a valid checkpoint but the session is at step ${currentStep} and no rollback invalidated it; the step is reported completed.`,
            {
              sessionId: id,
              path: join(sdir, 'manifest.json'),
              details: { field: 'current_step', step: n, currentStep },
            },
          ),
        );
      }
    }
  }
  // Go Team checkpoints after every step: a step before the current one without any checkpoint,
  // while a later step has one, was skipped or lost its checkpoint. It is still counted done.
  const withCp = new Set(cps.map((c) => c.step));
  const lastCp = Math.max(0, ...cps.map((c) => c.step ?? 0));
  for (const u of units) {
    const n = Number(u.id);
    if (currentStep !== null && n < currentStep && n < lastCp && !withCp.has(n)) {
      problems.push(
        problem(
          'PREREQUISITE',
          'warning',
          `Session ${id}: step ${n} (${u.name}) has no checkpoint though later steps have one; it is assumed done, but it cannot be rolled back to.`,
          {
            sessionId: id,
            path: join(sdir, 'manifest.json'),
            details: { step: n, currentStep },
            hint: 'Check that the step really ran (its outputs exist); rebuild its checkpoint from git with *cp-rebuild if needed.',
          },
        ),
      );
    }
  }
  const first = units.find((u) => u.status !== 'completed');
  if (first && status !== 'completed') {
    const n = Number(first.id);
    const hasIteration = usable.some((c) => c.step === n && c.iteration);
    if (status === 'failed') first.status = 'failed';
    else if (n === currentStep || hasIteration) first.status = 'in_progress';
    if (n === currentStep) {
      const iter = typeof liveState.iteration_count === 'number' ? num(liveState.iteration_count) : null;
      first.subStep = subStepOfPhase(n, str(liveState.phase), iter) ?? first.subStep;
      const agent = str(liveState.current_agent);
      if (agent && !first.agents.includes(agent)) first.agents.push(agent);
    }
  }
  return units;
}
