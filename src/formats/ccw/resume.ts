/**
 * Where to resume a CCW session under CCW's own rules (seed 004, "Recovery Mechanisms"):
 * by `current_phase` → resume_planning / resume_implementation (skip the agents in
 * `agents_completed`, continue with `current_agent`) / resume_review; state validation
 * (required artifacts of the phase exist, else partial recovery with a warning); corruption
 * recovery from `.backups/session-*.json` (the latest good backup), the live file, or a
 * fresh rebuild from the planning documents.
 */
import type { SessionStatus } from '../../domain/state.js';
import type { ForeignUnit, FormatProblem, RecoveryOption, ResumeAdvice } from '../types.js';
import { arr, problem, str } from '../util.js';

/** What the resume rules look at. */
export interface ResumeInput {
  sessionId: string;
  status: SessionStatus;
  archived: boolean;
  /** A `.archiving` marker: `session:complete` was interrupted. */
  archiving: boolean;
  units: ForeignUnit[];
  /** The unit `current_phase` names. */
  currentUnit: string | null;
  /** Session folder, relative to the inspected root. */
  folder: string;
  /**
   * Main file and whether it parsed; `unreadable` when reading it was denied (its content is
   * unknown, not damaged: no rollback or rebuild is advised for it).
   */
  file: { path: string; ok: boolean; unreadable?: boolean };
  /** Names (relative to the folder) of files present in the session folder. */
  present: Set<string>;
  /** `.backups/session-*.json`, newest first, with whether each parses. */
  backups: Array<{ path: string; ok: boolean }>;
}

/** Files a phase needs before CCW can resume it (state validation). */
const REQUIRED: Record<string, string[]> = {
  implement: ['IMPL_PLAN.md', 'TODO_LIST.md'],
  review: ['IMPL_PLAN.md', 'TODO_LIST.md'],
};

const DONE = new Set(['completed', 'skipped']);

/** Prerequisites and state validation of resuming `target`: earlier phases not done, artifacts it needs missing. */
function checkResumable(
  i: ResumeInput,
  target: ForeignUnit,
  key: string,
  warnings: string[],
  problems: FormatProblem[],
): void {
  // Prerequisites: an earlier phase that is not done while this one is being resumed.
  for (const u of i.units) {
    if (u === target) break;
    if (DONE.has(u.status)) continue;
    const msg = `${target.id} is the current phase while the earlier ${u.id} is ${u.status}.`;
    warnings.push(msg);
    problems.push(
      problem('PREREQUISITE', 'warning', `${i.sessionId}: ${msg}`, {
        sessionId: i.sessionId,
        path: i.file.path,
        hint: `Finish ${u.id} first, or confirm it is not needed.`,
        details: { unit: target.id, missing: u.id },
      }),
    );
  }

  // State validation: artifacts the phase needs must exist, else a partial recovery.
  const missing = (REQUIRED[key] ?? []).filter((f) => !i.present.has(f));
  const plan = i.units.find((u) => u.id.toLowerCase() === 'plan');
  if (plan && plan !== target) {
    for (const f of plan.files) if (!i.present.has(f.path) && !missing.includes(f.path)) missing.push(f.path);
  }
  if (missing.length) {
    const msg = `Partial recovery: ${missing.join(', ')} missing from ${i.folder}; CCW resumes with a warning (regenerate them from the plan if possible).`;
    warnings.push(msg);
    problems.push(
      problem(
        'MISSING_ARTIFACT',
        'warning',
        `${i.sessionId}: ${target.id} needs ${missing.join(', ')}, missing from ${i.folder}.`,
        {
          sessionId: i.sessionId,
          path: i.folder,
          hint: 'Regenerate the missing documents from the plan before resuming, or accept a partial recovery.',
          details: { unit: target.id, missing },
        },
      ),
    );
  }
}

/** The ways to resume (live file, latest backup, rebuild from the plan) and the recommended one. */
function recoveryOptions(
  i: ResumeInput,
  warnings: string[],
): { options: RecoveryOption[]; recommended: RecoveryOption['kind'] } {
  const options: RecoveryOption[] = [];
  const latest = i.backups.find((b) => b.ok);
  if (i.file.ok) {
    options.push({
      kind: 'live',
      target: i.file.path,
      description: 'Resume from workflow-session.json as it is now.',
      loses: 'Nothing the file holds; work done after its last save (agent output not yet checkpointed) is redone.',
      recommended: false,
    });
  }
  if (latest) {
    options.push({
      kind: 'checkpoint',
      target: latest.path,
      description: `Roll back to the latest backup ${latest.path.split('/').pop()}.`,
      loses: 'Every change saved after that backup (completed agents, todo progress, review results since).',
      recommended: false,
    });
  }
  options.push({
    kind: 'fresh',
    target: i.present.has('IMPL_PLAN.md') ? `${i.folder}/IMPL_PLAN.md` : null,
    description: 'Rebuild the session state from the planning documents (IMPL_PLAN.md, TODO_LIST.md).',
    loses: 'All recorded progress: completed agents, current agent, todo counts, review results and transitions.',
    recommended: false,
  });
  const recommended: RecoveryOption['kind'] = i.file.ok ? 'live' : latest ? 'checkpoint' : 'fresh';
  for (const o of options) o.recommended = o.kind === recommended;
  if (!i.file.ok)
    warnings.push(
      latest
        ? `The session file is damaged: roll back to ${latest.path}.`
        : 'The session file is damaged and no backup parses: rebuild from the planning documents.',
    );
  return { options, recommended };
}

/** The resume advice and the problems the rules find (prerequisites). */
export function adviseResume(i: ResumeInput): { advice: ResumeAdvice; problems: FormatProblem[] } {
  const problems: FormatProblem[] = [];
  const warnings: string[] = [];
  const lastCompleted = [...i.units].reverse().find((u) => u.status === 'completed')?.id ?? null;
  const base = {
    subStep: null,
    retryLimit: null,
    retriesUsed: null,
    lastCompleted,
    options: [] as RecoveryOption[],
    recommended: null,
    warnings,
  };

  if (i.file.unreadable) {
    // Without the file the units are unknown: any other advice (archive, rollback, rebuild)
    // would be built on nothing, and a rebuild would lose progress the file may still hold.
    const live: RecoveryOption = {
      kind: 'live',
      target: i.file.path,
      description: `Fix the permissions of ${i.file.path}, then resume from it as it is.`,
      loses: 'Nothing: the file is unreadable, not damaged.',
      recommended: true,
    };
    warnings.push(
      `${i.file.path} cannot be read (permission denied): check its permissions before resuming; do not roll back or rebuild because of this.`,
    );
    return {
      advice: {
        ...base,
        lastCompleted: null,
        unitId: null,
        action: 'refuse',
        options: [live],
        recommended: 'live',
        reason: `${i.file.path} cannot be read (permission denied): CCW's resume needs it; check its permissions and run again.`,
      },
      problems,
    };
  }

  const review = i.units.find((u) => u.id.toLowerCase() === 'review');
  if (i.archiving) {
    return {
      advice: {
        ...base,
        unitId: null,
        action: 'archive',
        reason:
          'A .archiving marker is present: session:complete was interrupted; CCW resumes the archive (move to .workflow/archives/) rather than the work.',
      },
      problems,
    };
  }
  if (i.status === 'completed') {
    if (review && !DONE.has(review.status)) {
      warnings.push(
        `The session is completed but its review is ${review.status}: it went to complete without review (CCW issue #48).`,
      );
    }
    if (i.archived)
      warnings.push(
        'The session is archived: CCW cannot re-review an archived session (issue #48); import it into baton to review it.',
      );
    return {
      advice: { ...base, unitId: null, action: 'none', reason: 'The session is completed: CCW has nothing to resume.' },
      problems,
    };
  }

  let target: ForeignUnit | undefined = i.units.find((u) => u.id === i.currentUnit);
  if (!target || DONE.has(target.status)) {
    target =
      i.units.find((u) => u.status === 'in_progress' || u.status === 'failed') ??
      i.units.find((u) => !DONE.has(u.status));
  }
  if (!target) {
    return {
      advice: {
        ...base,
        unitId: null,
        action: 'archive',
        reason: 'Every checkpoint is completed: what is left is to complete (archive) the session.',
      },
      problems,
    };
  }

  const key = target.id.toLowerCase();
  const { action, subStep, reason } = phaseAdvice(target, key);

  checkResumable(i, target, key, warnings, problems);

  const { options, recommended } = recoveryOptions(i, warnings);

  return {
    advice: {
      unitId: target.id,
      action,
      subStep,
      retryLimit: null,
      retriesUsed: null,
      lastCompleted,
      reason,
      options,
      recommended,
      warnings,
    },
    problems,
  };
}

/** What CCW's resume does for the phase it resumes: the action, the sub-step it skips to, and why. */
function phaseAdvice(
  target: ForeignUnit,
  key: string,
): { action: ResumeAdvice['action']; subStep: string | null; reason: string } {
  let action: ResumeAdvice['action'] =
    target.status === 'failed' ? 'retry' : target.status === 'in_progress' ? 'continue' : 'start';
  let subStep: string | null = null;
  let reason: string;
  if (key === 'plan') {
    reason = `current_phase is PLAN: resume_planning from the plan checkpoint (${target.status}).`;
  } else if (key === 'implement') {
    const done = arr(target.metadata.agents_completed)
      .map(str)
      .filter((a): a is string => a !== null);
    if (target.subStep) {
      action = 'skip-to-substep';
      subStep = target.subStep;
    }
    reason =
      `current_phase is IMPLEMENT: resume_implementation ("skip_completed_continue_sequence")` +
      (done.length ? `, skipping the completed agents ${done.join(', ')}` : '') +
      (target.subStep ? `, continuing with ${target.subStep}.` : '.');
  } else if (key === 'review') {
    action = 'review';
    reason = `current_phase is REVIEW: resume_review from the review checkpoint (${target.status}).`;
  } else {
    reason = `Phase ${target.id} is the first one not done (${target.status}).`;
  }
  return { action, subStep, reason };
}
