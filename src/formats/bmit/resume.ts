/**
 * Where a bmit project resumes, by the session-resume skill's rules:
 * - per step: pending → set in_progress and start; in_progress with `sub_step` null →
 *   restart the step; with a `sub_step` → skip to that checkpoint and do not re-read the
 *   files in `context_files_used`; complete → tell the user and offer a re-run; skipped →
 *   go on to the next step;
 * - direct invocation: a step started or completed while an earlier step is still pending or
 *   in progress gets a prerequisite warning (proceed anyway, or hand off to the orchestrator);
 * - corrupt state: restore `.bak` when it parses, else start fresh from the template.
 */
import type { FormatProblem, ForeignUnit, RecoveryOption, ResumeAdvice } from '../types.js';
import { problem } from '../util.js';
import { STEP_NAMES, stepLabel, stepRank } from './steps.js';

/** How the state file was recovered, when it had to be. */
export interface Recovery {
  /** The state file is unusable (missing, empty or corrupt). */
  unusable: boolean;
  /** Relative path of the usable `.bak` the session was read from, or null. */
  backup: string | null;
  /** Why the state file is unusable, in words. */
  why: string | null;
  /**
   * The state file exists but may not be read (permission denied): its content is unknown,
   * not damaged, so no recovery (backup, template) is advised, only fixing the permissions.
   */
  unreadable?: boolean;
}

const NOT_DONE = new Set(['pending', 'in_progress', 'blocked', 'failed']);

/** The unit in flight (first in progress), else the first one not done; null when all are done. */
export function positionOf(units: ForeignUnit[]): ForeignUnit | null {
  return units.find((u) => u.status === 'in_progress') ?? units.find((u) => NOT_DONE.has(u.status)) ?? null;
}

/** One PREREQUISITE problem per step started/completed while an earlier step is not done. */
export function prerequisiteProblems(units: ForeignUnit[], sessionId: string, file: string): FormatProblem[] {
  const out: FormatProblem[] = [];
  const known = units.filter((u) => STEP_NAMES[u.id] !== undefined);
  for (const u of known) {
    if (u.status !== 'in_progress' && u.status !== 'completed') continue;
    const earlier = known.filter((e) => stepRank(e.id) < stepRank(u.id) && NOT_DONE.has(e.status));
    if (earlier.length === 0) continue;
    const list = earlier.map((e) => `${stepLabel(e.id, e.name)} is ${e.rawStatus ?? e.status}`).join(', ');
    out.push(
      problem(
        'PREREQUISITE',
        'warning',
        `${stepLabel(u.id, u.name)} is ${u.rawStatus ?? u.status} while ${list}: it was invoked out of order.`,
        {
          sessionId,
          path: file,
          hint: "bmit's direct-invocation rule: warn, then proceed anyway or hand off to the orchestrator to finish the earlier steps.",
          details: { unit: u.id, earlier: earlier.map((e) => ({ unit: e.id, status: e.rawStatus ?? e.status })) },
        },
      ),
    );
  }
  return out;
}

function recoveryOptions(r: Recovery): RecoveryOption[] {
  if (!r.unusable) return [];
  const fresh: RecoveryOption = {
    kind: 'fresh',
    target: null,
    description: 'Create the state from the template (schema 3.0, every step pending) and log a recovery event.',
    loses: 'All recorded progress, decisions and findings of the state file; artifacts on disk stay.',
    recommended: r.backup === null,
  };
  if (r.backup === null) return [fresh];
  return [
    {
      kind: 'checkpoint',
      target: r.backup,
      description: `Restore ${r.backup} (the previous version bmit keeps) as the state file.`,
      loses: 'The last state write (the one that left the file unusable).',
      recommended: true,
    },
    { ...fresh, recommended: false },
  ];
}

/** The resume advice for a project's units. */
export function bmitResume(units: ForeignUnit[], prereq: FormatProblem[], r: Recovery): ResumeAdvice {
  if (r.unreadable) {
    const live: RecoveryOption = {
      kind: 'live',
      target: null,
      description: 'Fix the permissions of the state file, then resume from it as it is.',
      loses: 'Nothing: the file is unreadable, not damaged.',
      recommended: true,
    };
    return {
      unitId: null,
      action: 'refuse',
      subStep: null,
      retryLimit: null,
      retriesUsed: null,
      lastCompleted: null,
      options: [live],
      recommended: 'live',
      warnings: prereq.map((p) => p.message),
      reason: `${r.why} Check its permissions and run again; do not restore the backup or start fresh from the template, which would lose the progress it may still hold.`,
    };
  }
  const done = units.filter((u) => u.status === 'completed');
  const lastCompleted = done.length > 0 ? done[done.length - 1]!.id : null;
  const options = recoveryOptions(r);
  const recommended = options.find((o) => o.recommended)?.kind ?? null;
  const warnings = prereq.map((p) => p.message);
  const base = { retryLimit: null, retriesUsed: null, lastCompleted, options, recommended, warnings };
  const prefix = r.unusable
    ? r.backup
      ? `${r.why} Read from ${r.backup} (bmit restores the backup). `
      : `${r.why} No usable backup: bmit starts fresh from the template. `
    : '';
  if (r.unusable && r.backup === null) {
    return {
      ...base,
      unitId: units[0]?.id ?? '1',
      action: 'start',
      subStep: null,
      reason: `${prefix}Start at step 1 with every step pending.`,
    };
  }
  const u = positionOf(units);
  if (!u) {
    return {
      ...base,
      unitId: null,
      action: 'none',
      subStep: null,
      reason: `${prefix}Every step is complete or skipped: bmit tells the user the workflow is done and offers to re-run a step.`,
    };
  }
  const label = stepLabel(u.id, u.name);
  if (u.status === 'in_progress' && u.subStep !== null) {
    const read = u.files.filter((f) => f.action === 'read').map((f) => f.path);
    return {
      ...base,
      unitId: u.id,
      action: 'skip-to-substep',
      subStep: u.subStep,
      reason: `${prefix}${label} is in_progress at sub-step "${u.subStep}": skip to that checkpoint${read.length > 0 ? ` and do not re-read ${read.join(', ')} (context_files_used)` : ''}.`,
    };
  }
  if (u.status === 'in_progress') {
    return {
      ...base,
      unitId: u.id,
      action: 'restart',
      subStep: null,
      reason: `${prefix}${label} is in_progress with no sub_step recorded: restart the step from its beginning.`,
    };
  }
  const skipped = units.filter((x) => x.status === 'skipped' && stepRank(x.id) < stepRank(u.id)).map((x) => x.id);
  return {
    ...base,
    unitId: u.id,
    action: 'start',
    subStep: null,
    reason: `${prefix}${label} is ${u.rawStatus ?? u.status}: set it in_progress and start it${skipped.length > 0 ? ` (skipped steps ${skipped.join(', ')} are passed over)` : ''}.`,
  };
}
