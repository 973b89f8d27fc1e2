/**
 * The session model: everything the five existing toolkits keep in their session files
 * (docs/formats.md), held as plain JSON-serialisable data. It is only ever produced
 * by folding events with `apply()`.
 */

export const PHASE_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export const SESSION_STATUSES = ['active', 'paused', 'interrupted', 'completed', 'failed', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Statuses after which a session takes no more work. */
export const FINAL_STATUSES: readonly SessionStatus[] = ['completed', 'failed', 'abandoned'];

export type FileAction = 'created' | 'modified' | 'deleted';

export interface TokenCounts {
  input: number;
  output: number;
  cached: number;
}

export interface FileRecord {
  path: string;
  action: FileAction;
  /** sha256 of the content when recorded; null for a deleted or unreadable file. */
  sha256: string | null;
  size: number | null;
  recordedAt: string;
  agent: string | null;
}

export interface ErrorRecord {
  id: string;
  phaseId: string;
  agent: string | null;
  type: string;
  message: string;
  time: string;
  resolution: string | null;
  resolved: boolean;
  resolvedAt: string | null;
}

export interface Phase {
  id: string;
  name: string;
  status: PhaseStatus;
  /**
   * The agents declared for the phase, then every agent that recorded work on it (start,
   * retry, sub-step, file, error, tokens, completion or failure), in first-seen order.
   */
  agents: string[];
  blockedBy: string[];
  parallelGroup: string | null;
  /** The sub-step reached most recently inside this phase (resume point); null = none. */
  subStep: string | null;
  subSteps: { name: string; at: string }[];
  maxRetries: number;
  retryCount: number;
  startedAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  failureReason: string | null;
  skipReason: string | null;
  files: FileRecord[];
  errors: ErrorRecord[];
  metadata: Record<string, unknown>;
}

export interface Decision {
  id: string;
  title: string;
  choice: string;
  rationale: string | null;
  alternatives: string[];
  agent: string | null;
  phaseId: string | null;
  time: string;
}

export interface Finding {
  id: string;
  text: string;
  severity: string | null;
  phaseId: string | null;
  agent: string | null;
  time: string;
  removed: boolean;
  removedAt: string | null;
}

export interface Note {
  id: string;
  text: string;
  phaseId: string | null;
  agent: string | null;
  time: string;
}

export interface Milestone {
  id: string;
  title: string;
  targetDate: string | null;
  done: boolean;
  doneAt: string | null;
}

export interface Artifact {
  id: string;
  path: string;
  kind: string | null;
  description: string | null;
  phaseId: string | null;
  agent: string | null;
  time: string;
}

export interface TokenUsage extends TokenCounts {
  byAgent: Record<string, TokenCounts>;
  byPhase: Record<string, TokenCounts>;
  /** Budget on input+output tokens; null = no budget. */
  budgetMax: number | null;
}

/** The lease a writer holds on a session (see lease.ts). */
export interface Lease {
  owner: string;
  pid: number;
  host: string;
  /** Fencing token: strictly increasing per session, 1 for the first lease. */
  token: number;
  acquiredAt: string;
  renewedAt: string;
  expiresAt: string;
}

/** A checkpoint as the journal knows it (`checkpoint.created`, `checkpoint.restored`). */
export interface CheckpointRef {
  id: string;
  name: string;
  /** Revision of the state the checkpoint holds. */
  revision: number;
  createdAt: string;
  trigger: 'manual' | 'phase';
  phaseId: string | null;
  /** A checkpoint taken after one that was later restored: its line of work was abandoned. */
  superseded: boolean;
}

/** One `checkpoint.restored`. */
export interface RestoreRecord {
  checkpointId: string;
  /** Revision of the checkpoint's state. */
  revision: number;
  at: string;
  /** Seq of the restore event. */
  seq: number;
  /** Commit the work tree was reset to (`restore --git`), else null. */
  gitCommit: string | null;
}

/** Why a session stopped being active. */
export interface StatusCause {
  cause: string;
  at: string;
  detail: string | null;
}

export interface RepairRecord {
  kind: string;
  at: string;
  detail: Record<string, unknown>;
}

export interface SessionState {
  id: string;
  title: string;
  status: SessionStatus;
  /** Why the status last changed away from active (pause, failure, crash…). */
  statusCause: StatusCause | null;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  /** Seq of the last event folded in. */
  revision: number;
  idFormat: string;
  phases: Phase[];
  decisions: Decision[];
  findings: Finding[];
  notes: Note[];
  milestones: Milestone[];
  artifacts: Artifact[];
  contextSummary: string | null;
  tokens: TokenUsage;
  /** Unknown or toolkit-specific fields, preserved verbatim. */
  metadata: Record<string, unknown>;
  repairs: RepairRecord[];
  /** The current lease, or null. Optional: states saved before leases existed lack it. */
  lease?: Lease | null;
  /** Highest fencing token ever issued (0 before the first lease). */
  leaseToken?: number;
  /** Checkpoints taken, in order. Optional: absent until the first one. */
  checkpoints?: CheckpointRef[];
  /** Checkpoint restores, in order. Optional: absent until the first one. */
  restores?: RestoreRecord[];
  /** Pinned sessions are never archived or deleted by `baton cleanup`. Optional: absent (false) until the first pin. */
  pinned?: boolean;
  /** Counters for ids handed out by the session (errors, decisions, …). */
  counters: Record<string, number>;
}

/** Empty token counts. */
export function zeroTokens(): TokenCounts {
  return { input: 0, output: 0, cached: 0 };
}
