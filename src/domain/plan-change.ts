/**
 * Changes to a session's plan on the user's decision (an escalation, or a plan that turned out
 * wrong): add a phase, remove a pending one, change a phase's retry limit or dependencies.
 * Each is validated here against the state and returns its event (`phase.added`,
 * `phase.removed`, `phase.updated`); nothing is written when a change is refused. Pure.
 */
import { assertWritable, draft, findPhase, text, validatePhases } from './decide.js';
import type { EventDraft } from './decide.js';
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import type { PhaseSpec } from './events.js';
import { phaseIdFor, validateId } from './ids.js';
import type { Phase, SessionState } from './state.js';

/** Highest retry limit accepted (as in a plan file). */
export const MAX_PHASE_RETRIES = 100;

/** A phase to add to the plan. */
export interface PhaseAddInput {
  name: string;
  /** Default: derived from the name (made unique). */
  id?: string | null;
  /** Place it right after this phase; default: at the end. */
  after?: string | null;
  /** Place it right before this phase (instead of `after`). */
  before?: string | null;
  /** Phases (ids or names) that must be completed or skipped before it starts. */
  blockedBy?: string[];
  maxRetries?: unknown;
  agents?: string[];
  reason?: string | null;
}

/** A change to a phase of the plan: the fields given are changed. */
export interface PhaseUpdateInput {
  maxRetries?: unknown;
  /** Its dependencies, whole (ids or names); an empty list: none. */
  blockedBy?: string[];
  reason?: string | null;
}

/** Checks a retry limit: a whole number from 0 to {@link MAX_PHASE_RETRIES}; numeric strings accepted. */
export function retryLimit(value: unknown): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_PHASE_RETRIES) {
    throw new BatonError(
      'BAD_INPUT',
      `A retry limit must be a whole number from 0 to ${MAX_PHASE_RETRIES}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`,
      {
        hint: hint('option.example', { option: 'max-retries', value: '3' }),
      },
    );
  }
  return n;
}

function reasonOf(r: string | null | undefined): string | null {
  return r === undefined || r === null || r === '' ? null : text(r, 'reason', { max: 10_000 });
}

/** The phases of `s` as specs, with `changed` applied: what the dependency checks run on. */
function specs(
  s: SessionState,
  changed: (p: Phase) => PhaseSpec = (p) => ({ id: p.id, name: p.name, blockedBy: p.blockedBy }),
): PhaseSpec[] {
  return s.phases.map(changed);
}

/** Ids of the phases named in `refs` (ids or names), each an existing phase other than `self`. */
function dependencies(s: SessionState, refs: string[], self: string): string[] {
  const named = refs.map((r) => r.trim()).filter(Boolean);
  const ids = named.map((r) => (r === self ? self : findPhase(s, r).id));
  if (ids.includes(self))
    throw new BatonError('BAD_INPUT', `Phase ${self} cannot depend on itself.`, {
      hint: 'Leave it out of its own dependencies.',
    });
  return [...new Set(ids)];
}

/** Adds a phase to the plan (`phase.added`); returns its id. */
export function decidePhaseAdd(s: SessionState, input: PhaseAddInput): { events: EventDraft[]; id: string } {
  assertWritable(s);
  const name = text(input.name, 'phase name', { max: 500 });
  let id: string;
  if (input.id) {
    id = validateId(input.id, 'phase id');
    if (s.phases.some((p) => p.id === id)) {
      throw new BatonError('EXISTS', `Session ${s.id} already has a phase ${id}.`, {
        hint: 'Pick another id for the new phase.',
        details: { sessionId: s.id, phase: id },
      });
    }
  } else {
    const base = phaseIdFor(name, s.phases.length);
    id = base;
    for (let n = 2; s.phases.some((p) => p.id === id); n++) id = `${base}-${n}`;
  }
  if (input.after && input.before)
    throw new BatonError('BAD_INPUT', 'Give either after or before, not both.', { hint: 'Keep one of them.' });
  const after = input.before
    ? (s.phases[s.phases.indexOf(findPhase(s, input.before)) - 1]?.id ?? null)
    : input.after
      ? findPhase(s, input.after).id
      : (s.phases.at(-1)?.id ?? null);
  const blockedBy = dependencies(s, input.blockedBy ?? [], id);
  const phase: PhaseSpec = {
    id,
    name,
    ...(input.agents?.length ? { agents: input.agents.map((a) => text(a, 'agent name', { max: 200 })) } : {}),
    blockedBy,
    ...(input.maxRetries !== undefined && input.maxRetries !== null
      ? { maxRetries: retryLimit(input.maxRetries) }
      : {}),
  };
  validatePhases([...specs(s), phase]);
  return { id, events: [draft('phase.added', { phaseId: id, phase, after, reason: reasonOf(input.reason) })] };
}

/**
 * Removes a phase from the plan (`phase.removed`). Only a pending phase with nothing recorded
 * against it, that no other phase depends on: started work stays in the history (a failed
 * phase can be skipped instead), and the phases that depend on it must be changed first.
 */
export function decidePhaseRemove(s: SessionState, ref: string, reason?: string | null): EventDraft[] {
  assertWritable(s);
  const p = findPhase(s, ref);
  if (p.status !== 'pending') {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Phase ${p.id} is ${p.status.replace('_', ' ')}; only a pending phase can be removed from the plan.`,
      {
        hint:
          p.status === 'failed'
            ? 'A failed phase can be skipped instead (the skip records the decision).'
            : 'A phase that has started stays in the history of the session.',
        details: { phase: p.id, status: p.status },
      },
    );
  }
  if (p.files.length || p.errors.length) {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Phase ${p.id} has ${p.files.length} file(s) and ${p.errors.length} error(s) recorded against it; removing it would lose them.`,
      {
        hint: 'Skip it instead: the records stay with it.',
        details: { phase: p.id, files: p.files.length, errors: p.errors.length },
      },
    );
  }
  const dependents = s.phases.filter((x) => x.blockedBy.includes(p.id));
  if (dependents.length) {
    throw new BatonError(
      'BAD_INPUT',
      `Phase ${p.id} cannot be removed: ${dependents.map((x) => x.id).join(', ')} depend${dependents.length === 1 ? 's' : ''} on it.`,
      {
        hint: hint('plan.drop-dependency', {
          session: s.id,
          changes: dependents.map((x) => ({ phase: x.id, blockedBy: x.blockedBy.filter((b) => b !== p.id) })),
        }),
        details: { phase: p.id, dependents: dependents.map((x) => x.id) },
      },
    );
  }
  return [draft('phase.removed', { phaseId: p.id, reason: reasonOf(reason) })];
}

/** Changes a phase's retry limit and/or dependencies (`phase.updated`); refuses a dependency cycle. */
export function decidePhaseUpdate(s: SessionState, ref: string, input: PhaseUpdateInput): EventDraft[] {
  assertWritable(s);
  const p = findPhase(s, ref);
  const hasRetries = input.maxRetries !== undefined && input.maxRetries !== null;
  if (!hasRetries && input.blockedBy === undefined) {
    throw new BatonError('BAD_INPUT', `Nothing to change on phase ${p.id}: give a retry limit or dependencies.`, {
      hint: hint('option.example', { option: 'max-retries', value: String(p.maxRetries + 1) }),
    });
  }
  const maxRetries = hasRetries ? retryLimit(input.maxRetries) : undefined;
  const blockedBy = input.blockedBy === undefined ? undefined : dependencies(s, input.blockedBy, p.id);
  if (blockedBy)
    validatePhases(specs(s, (x) => ({ id: x.id, name: x.name, blockedBy: x.id === p.id ? blockedBy : x.blockedBy })));
  return [
    draft('phase.updated', {
      phaseId: p.id,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
      ...(blockedBy ? { blockedBy } : {}),
      reason: reasonOf(input.reason),
    }),
  ];
}
