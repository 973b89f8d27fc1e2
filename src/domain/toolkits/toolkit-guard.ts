/**
 * Lifecycle verbs under the rules of the toolkit a session was imported from: a step the
 * toolkit requires before archiving (Maestro's reconciliation of a phase flagged
 * `requires_reconciliation`, its express code review) holds up completing that phase,
 * completing the session, archiving it and exporting it into the toolkit's archive, as the
 * toolkit itself refuses them. `force` goes ahead anyway, and the override is recorded: the
 * waived steps leave the recorded rules (with a note saying when and what), so later verbs
 * are not refused again for the same step. Pure.
 */
import type { EventDataMap } from '../events.js';
import { BatonError } from '../errors.js';
import { hint } from '../hints.js';
import type { SessionState } from '../state.js';
import { TOOLKIT_RULES_KEY, toolkitRulesOf } from './toolkit-rules.js';
import type { RequiredStep } from './toolkit-rules.js';

/** The verbs a required step holds up. */
export type GuardedVerb = 'phase-complete' | 'complete' | 'archive' | 'export';

const DOING: Record<GuardedVerb, string> = {
  'phase-complete': 'complete phase',
  complete: 'complete session',
  archive: 'archive session',
  export: 'export into its archive session',
};

/**
 * The required steps that hold up `verb` (for `phase-complete`, those of that phase). A step
 * that is a phase itself (RequiredStep.isPhase: CCW's review) is done by completing that phase:
 * it does not hold up its own completion, and holds up nothing once the phase is completed or
 * skipped in baton.
 */
export function requiredBefore(s: SessionState, verb: GuardedVerb, phaseId: string | null = null): RequiredStep[] {
  const rules = toolkitRulesOf(s);
  if (!rules) return [];
  const open = rules.required.filter((r) => !(r.isPhase === true && r.phaseId !== null && phaseDone(s, r.phaseId)));
  return verb === 'phase-complete' ? open.filter((r) => r.phaseId === phaseId && r.isPhase !== true) : open;
}

function phaseDone(s: SessionState, phaseId: string): boolean {
  const p = s.phases.find((x) => x.id === phaseId);
  return p !== undefined && (p.status === 'completed' || p.status === 'skipped');
}

/**
 * Refuses `verb` (`BLOCKED`, with the toolkit's reason and the way out) while the toolkit
 * requires a step first; with `force`, the drafts that record the override (none when
 * nothing was required).
 */
export function toolkitGuard(
  s: SessionState,
  verb: GuardedVerb,
  o: { force: boolean; phaseId?: string | null },
): Array<{ type: 'metadata.set'; data: EventDataMap['metadata.set'] }> {
  const steps = requiredBefore(s, verb, o.phaseId ?? null);
  const rules = toolkitRulesOf(s);
  if (!steps.length || !rules) return [];
  const what = verb === 'phase-complete' ? `${DOING[verb]} ${o.phaseId}` : DOING[verb].replace('session', s.id);
  if (!o.force) {
    throw new BatonError(
      'BLOCKED',
      `${rules.toolkit} refuses to ${what} before ${steps.map((r) => r.name).join(' and ')}: ${steps.map((r) => r.reason.charAt(0).toUpperCase() + r.reason.slice(1)).join(' ')}`,
      {
        hint: hint('toolkit.required-first', {
          session: s.id,
          verb,
          phase: o.phaseId ?? null,
          toolkit: rules.toolkit,
          steps: steps.map((r) => r.name),
        }),
        details: { sessionId: s.id, toolkit: rules.toolkit, verb, required: steps },
      },
    );
  }
  const raw = s.metadata[TOOLKIT_RULES_KEY] as Record<string, unknown>;
  const notes = Array.isArray(raw.notes) ? raw.notes.map(String) : [];
  const waived = new Set(steps);
  return [
    {
      type: 'metadata.set',
      data: {
        key: TOOLKIT_RULES_KEY,
        value: {
          ...raw,
          required: rules.required.filter((r) => !waived.has(r)),
          notes: [
            ...notes,
            `${steps.map((r) => r.name).join(' and ')} waived with force (to ${what}); ${rules.toolkit} would have refused.`,
          ],
        },
      },
    },
  ];
}
