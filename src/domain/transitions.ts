import type { PhaseStatus, SessionStatus } from './state.js';

/** A phase verb as the CLI and MCP name it. */
export type PhaseAction = 'start' | 'complete' | 'fail' | 'skip' | 'retry';

/** Every phase action, in the order a phase meets them. */
export const PHASE_ACTIONS: readonly PhaseAction[] = ['start', 'complete', 'fail', 'skip', 'retry'];

/**
 * The phase state machine, as one table: for each status, the actions allowed from it and
 * the status each leads to. `failed --start/retry--> in_progress` is a retry (counted, capped
 * by maxRetries); `--skip--> skipped` only on request (from failed: the user's decision when
 * the retries are used up, recorded as such).
 */
export const PHASE_TRANSITIONS: Readonly<Record<PhaseStatus, Partial<Record<PhaseAction, PhaseStatus>>>> = {
  pending: { start: 'in_progress', skip: 'skipped' },
  in_progress: { complete: 'completed', fail: 'failed' },
  failed: { start: 'in_progress', retry: 'in_progress', skip: 'skipped' },
  completed: {},
  skipped: {},
};

/** The status `action` leads to from `from`, or undefined when the table forbids it. */
export function phaseTarget(from: PhaseStatus, action: PhaseAction): PhaseStatus | undefined {
  return PHASE_TRANSITIONS[from][action];
}

/** Actions the table allows from `from`, for hints. */
export function allowedPhaseActions(from: PhaseStatus): PhaseAction[] {
  return Object.keys(PHASE_TRANSITIONS[from]) as PhaseAction[];
}

/** Session lifecycle verbs. */
export type SessionAction = 'pause' | 'resume' | 'complete' | 'fail' | 'abandon' | 'interrupt';

/** The session state machine. Archiving is a location, allowed for any non-active session. */
export const SESSION_TRANSITIONS: Readonly<Record<SessionStatus, Partial<Record<SessionAction, SessionStatus>>>> = {
  active: { pause: 'paused', complete: 'completed', fail: 'failed', abandon: 'abandoned', interrupt: 'interrupted' },
  paused: { resume: 'active', complete: 'completed', fail: 'failed', abandon: 'abandoned' },
  interrupted: { resume: 'active', pause: 'paused', complete: 'completed', fail: 'failed', abandon: 'abandoned' },
  completed: {},
  failed: { resume: 'active', abandon: 'abandoned' },
  abandoned: {},
};

/** The status a session action leads to, or undefined when forbidden. */
export function sessionTarget(from: SessionStatus, action: SessionAction): SessionStatus | undefined {
  return SESSION_TRANSITIONS[from][action];
}
