/**
 * Facts of CCW sessions beyond their checkpoints, and CCW's rules as data for import
 * (domain/toolkits/toolkit-rules.ts). Sources: seed 004 (session-management-principles.md) "Single
 * Active Rule" and "Activation Phase" (activating a session deactivates any other), "Command
 * Pre-execution Protocol" (no active session ⇒ temporary workspace), "Error Handling:
 * Multi-Session Conflicts" (active collision detection, automatic status correction),
 * "Recovery Mechanisms" (resume_implementation, `skip_completed_continue_sequence`);
 * docs/formats/ccw.md (session.md's `pause` writes "interrupted", outside the principles' enum;
 * issue #48: execute went straight to complete and skipped review).
 */
import { noRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ToolkitRules } from '../../domain/toolkits/toolkit-rules.js';
import type { ForeignSession, FormatProblem } from '../types.js';
import { problem } from '../util.js';

/** What "no active session" means for CCW's next command. */
export const NO_ACTIVE =
  'No active session: every CCW command runs in a temporary workspace (Command Pre-execution Protocol, fallback mode) and writes nothing into a session; /workflow:session resume <id> or switch <id> makes one active first.';

/** Session statuses of the principles document (seed 004 "Session State Structure"). */
export const PRINCIPLES_STATUSES = ['active', 'paused', 'completed'];

/** A status outside CCW's set, read as its documented equivalent: session.md's pause writes "interrupted" (= paused). */
export function normaliseStatus(raw: string | null, id: string, path: string, problems: FormatProblem[]): void {
  if (raw === 'interrupted') {
    problems.push(
      problem(
        'STATUS_NORMALISED',
        'info',
        `${id} has status "interrupted", outside CCW's set (active, paused, completed); session.md's pause writes it, so it is read as paused.`,
        {
          sessionId: id,
          path,
          hint: 'CCW corrects statuses automatically (Multi-Session Conflicts: automatic session status correction); baton export writes "paused".',
          details: { field: 'status', raw, read: 'paused' },
        },
      ),
    );
  }
}

/** The task to resume at: the `.task/impl-*` task in progress, else the first pending one; null when none. */
export function taskToResume(statuses: Array<[string, string]>): { task: string; status: string } | null {
  const hit =
    statuses.find(([, s]) => s === 'in_progress' || s === 'in-progress' || s === 'active') ??
    statuses.find(([, s]) => s === 'pending' || s === 'todo');
  return hit ? { task: hit[0], status: hit[1] } : null;
}

/**
 * Two or more sessions claiming to be active, in either layout: the effective one is the one
 * activated last (activation deactivates any other), i.e. the most recently updated; on a tie
 * the later in the registry/listing order.
 */
export function effectiveActive(actives: ForeignSession[]): { effective: ForeignSession; why: string } {
  const t = (s: ForeignSession): number => (s.updatedAt ? Date.parse(s.updatedAt) || 0 : 0);
  const sorted = [...actives].sort((a, b) => t(a) - t(b));
  const effective = sorted[sorted.length - 1]!;
  const why = effective.updatedAt
    ? `it was updated last (${effective.updatedAt}); activating a session deactivates any other (seed 004, Activation Phase), so the most recent activation wins`
    : 'no session records an update time; the last one listed is taken, as CCW activates one at a time';
  return { effective, why };
}

/** CCW's rules for one session. */
export function ccwRules(s: ForeignSession): ToolkitRules {
  const r = noRules('CCW');
  if (s.status === 'completed')
    r.refuse = 'the session is completed: CCW has nothing to resume (Session Lifecycle: COMPLETED → archive).';
  const review = s.units.find((u) => u.id.toLowerCase() === 'review');
  const implement = s.units.find((u) => u.id.toLowerCase() === 'implement');
  if (
    review &&
    review.status !== 'completed' &&
    review.status !== 'skipped' &&
    (implement?.status === 'completed' || s.status === 'completed')
  ) {
    r.required.push({
      phaseId: review.id,
      name: 'the review phase',
      isPhase: true,
      reason: `review is ${review.status}; CCW's workflow is PLAN → IMPLEMENT → REVIEW, and completing without review is the known failure of issue #48 (archived sessions cannot be re-reviewed).`,
    });
  }
  if (s.position.task) r.notes.push(`Resume at task ${s.position.task} (the task in progress).`);
  // resume_implementation continues the task sequence ("skip_completed_continue_sequence",
  // seed 004 Checkpoint Strategy): the phase resumes at the task, it is not restarted.
  if (s.position.task && s.position.unitId && !r.refuse)
    r.resumeAt = {
      phaseId: s.position.unitId,
      at: s.position.task,
      reason: `CCW continues ${s.position.unitId} at task ${s.position.task} (the task in progress, else the first pending one, in .task/): completed tasks are skipped ("skip_completed_continue_sequence"), the phase is not restarted`,
    };
  return r;
}
