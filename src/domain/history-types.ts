/**
 * The shapes of a session's bounded history (`SessionState.history`, folded by history.ts),
 * apart so that the state's module names them without importing the fold.
 */

/** How an attempt of a phase ended (`running` while it has not). */
export type AttemptOutcome = 'running' | 'completed' | 'failed' | 'skipped' | 'superseded';

/** One try at a phase: from `phase.started` or `phase.retried` to its completion or failure. */
export interface Attempt {
  phaseId: string;
  /** 1 for the first try, 2 for the first retry … */
  attempt: number;
  agent: string | null;
  startedAt: string;
  /** When it completed, failed or was superseded; null while running. */
  endedAt: string | null;
  outcome: AttemptOutcome;
  /** Why it failed or was skipped, when recorded. */
  reason: string | null;
  /** Sub-steps reached during this attempt, in order. */
  substeps: { name: string; at: string }[];
  /** Errors recorded against the phase during this attempt (ids). */
  errors: string[];
}

/** The cumulative token use at one token record. Never changed once kept in {@link TokenTrail.points}. */
export interface TrailPoint {
  /** Token records up to and including this one. */
  n: number;
  /** The record's time, in milliseconds since the epoch. */
  at: number;
  /** Input + output tokens so far (what the budget counts). */
  used: number;
  /** Input + output so far per agent, indexed as {@link TokenTrail.agents} (missing: 0). */
  agents: number[];
  /** Input + output so far per phase, indexed as {@link TokenTrail.phases} (missing: 0). */
  phases: number[];
  /** Counts so far per model, indexed as {@link TokenTrail.models}: `[input, output, cached, cacheWrite]`. */
  models: number[][];
}

/**
 * Cumulative token use, downsampled as it grows: a point every `stride` records; when
 * 512 (`TRAIL_POINTS`) are kept, every other one is dropped and the stride doubles, so the
 * points stay evenly spaced, each exact, and their number bounded. `last` is the latest record's.
 */
export interface TokenTrail {
  /** Records between two kept points (a power of two). */
  stride: number;
  agents: string[];
  phases: string[];
  /** Models named by records (records without one are priced as unknown). */
  models: string[];
  points: TrailPoint[];
  last: TrailPoint | null;
}

/** What the session page shows of a session's history (`SessionState.history`). */
export interface SessionHistory {
  /** Events per type and per agent (the event log's filters). */
  types: Record<string, number>;
  agents: Record<string, number>;
  /** Every attempt of every phase, in start order. */
  attempts: Attempt[];
  /** Index in `attempts` of the open attempt of each phase. */
  open: Record<string, number>;
  tokens: TokenTrail;
}
