/**
 * The session model: everything the five existing toolkits keep in their session files
 * (docs/formats.md), held as plain JSON-serialisable data. It is only ever produced
 * by folding events with `apply()`.
 */
import type { DurableStep } from './step-types.js';
import type { SessionHistory } from './history-types.js';

export const PHASE_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export const SESSION_STATUSES = ['active', 'paused', 'interrupted', 'completed', 'failed', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Statuses after which a session takes no more work. */
export const FINAL_STATUSES: readonly SessionStatus[] = ['completed', 'failed', 'abandoned'];

export type FileAction = 'created' | 'modified' | 'deleted';

/**
 * Token counts. `input` excludes cached tokens (Anthropic's meaning; OpenAI and Gemini counts
 * are converted on the way in), `cached` is tokens read from a prompt cache, `cacheWrite`
 * tokens written to one (absent until a record carries some).
 */
export interface TokenCounts {
  input: number;
  output: number;
  cached: number;
  cacheWrite?: number;
}

/** Tokens of one agent, on one phase (or none), by one model: what cost is computed from. */
export interface ModelCell extends TokenCounts {
  agent: string;
  phaseId: string | null;
  model: string;
}

/** Where a read of a transcript ended, which the next read starts from (see `transcript.read`). */
export interface TranscriptReadPoint {
  cli: string;
  agent: string;
  agentSessionId: string | null;
  /** Byte offset after the last complete line read. */
  offset: number;
  /** Size and modification time of the file when read (whole-file formats are re-read only when it changed). */
  fileSize: number;
  fileMtimeMs: number;
}

/** The context of a conversation at its last turn, as the transcript reported it. */
export interface LastTurn {
  /** Tokens the next turn re-sends: the last response's prompt (input, cache read, cache write) and its output. */
  context: number;
  /** When the last response was written (the transcript line's time); null when the line had none. */
  at: string | null;
  model: string | null;
  /** The provider wrote this turn to its one-hour cache (Anthropic's `ephemeral_1h_input_tokens`). */
  cache1h?: true;
}

/** A transcript's last read: where the next one starts, and when it was made. */
export interface TranscriptCursor extends TranscriptReadPoint {
  /** Codex: per-response records seen, so running totals are not counted. */
  perResponse: boolean;
  /** The model in effect at the offset (Codex names it on turn lines only). */
  model: string | null;
  readAt: string;
  /** The conversation's last turn as the transcript reported it (absent until a read saw usage). */
  lastTurn?: LastTurn;
  /** The key of the last response when it had no final usage at the last read: its counts are a lower bound. */
  open?: string;
}

/** Transcripts read for token use: a cursor per file, and every response counted (by key) with its counts. */
export interface TranscriptLedger {
  files: Record<string, TranscriptCursor>;
  /** The `responses` of every `transcript.read`, concatenated (a later line for a key supersedes an earlier one). */
  counted: string;
}

export interface FileRecord {
  path: string;
  action: FileAction;
  /** sha256 of the content when recorded; null for a deleted or unreadable file. */
  sha256: string | null;
  size: number | null;
  recordedAt: string;
  agent: string | null;
  /** The run it was recorded in, when one (docs/runs.md). */
  run?: string;
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
  /** The plan the agent keeps for this phase (its todo tool), latest first-to-last. Absent until one is recorded. */
  steps?: PlanStep[];
  /** The run that works on the phase (it started or claimed it last); absent or null: none. */
  owner?: string | null;
}

/** Status of a step of an agent's own plan (its todo list). */
export type PlanStepStatus = 'pending' | 'in_progress' | 'completed' | 'cancelled';

/** One item of the plan an agent keeps for itself (Claude TodoWrite, Codex update_plan, Gemini write_todos). */
export interface PlanStep {
  name: string;
  status: PlanStepStatus;
}

/** An agent CLI conversation bound to the session by `baton hook`. */
export interface AgentBinding {
  /** claude | codex | gemini */
  cli: string;
  /** The CLI's own session (conversation) id: what its resume command takes. */
  agentSessionId: string;
  transcriptPath: string | null;
  model: string | null;
  /** The working folder of the conversation. */
  cwd: string | null;
  /** Work-tree paths already changed (git status) when the conversation was bound: not its work. */
  dirtyAtStart: string[];
  /**
   * The sha256 of each of those paths when the conversation was bound (null: gone), so a later
   * sweep tells the user's edit from the agent's by content. Absent on older bindings.
   */
  dirtyAtStartSha256?: Record<string, string | null>;
  boundAt: string;
  updatedAt: string;
  /** SessionEnd was seen (with its reason); null while the conversation goes on. */
  ended: { at: string; reason: string | null } | null;
}

/** The kinds of worker a run can be (docs/runs.md). */
export type RunKind = 'command' | 'conversation' | 'mcp' | 'library';

/** The process that proves a run alive, checked on its own host. */
export interface RunProcess {
  pid: number;
  host: string;
  /** The machine's boot id when the run started (a pid reused after a reboot is not the run). */
  boot: string | null;
  /** The process group of a `baton run` command: the run lives while any process of it does. */
  pgid?: number | null;
}

/** How a run ended: by its own choice (`finished`, `paused`) or not (`died`), and why. */
export interface RunEnd {
  at: string;
  how: 'finished' | 'paused' | 'died';
  cause: string;
  detail: string | null;
  exitCode?: number | null;
  signal?: string | null;
}

/** One worker's attempt on a session (src/domain/runs/runs.ts). */
export interface Run {
  id: string;
  kind: RunKind;
  agent: string | null;
  /** An agent CLI conversation: the CLI and its own session id. */
  cli: string | null;
  agentSessionId: string | null;
  /** A `baton run`: the command it runs. */
  command: string[] | null;
  process: RunProcess;
  /** The fencing token of the lease the run holds (the session's, or its phase's: {@link Run.leasedPhase}), if any. */
  token: number | null;
  /** The phase the run holds a lease on instead of the whole session (`baton run --phase`); absent: none. */
  leasedPhase?: string;
  /** The run lapses this long after its last renewal; null: only its process check ends it. */
  ttlMs: number | null;
  expiresAt: string | null;
  startedAt: string;
  renewedAt: string;
  /** Phases it started or claimed, in order. */
  phases: string[];
  /** The git worktree it works in, when not the store's own work tree. */
  worktree: string | null;
  ended: RunEnd | null;
  /** What was recovered from it when it died (its transcript's plan, its last tool calls). */
  salvage?: { steps?: PlanStep[] | null; lastTools?: string[]; tokens?: number } | null;
}

/** Two live runs wrote the same file: the second was warned, and the session keeps it. */
export interface FileConflict {
  path: string;
  at: string;
  runId: string | null;
  phaseId: string | null;
  otherRunId: string | null;
  otherPhaseId: string | null;
}

/** A sub-agent an agent CLI started (`baton hook`). */
export interface SubagentRecord {
  agent: string;
  agentId: string;
  agentType: string | null;
  phaseId: string | null;
  startedAt: string;
  stoppedAt: string | null;
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

/** What happens once a budget is exceeded (budget-policy.ts). */
export type OnExceed = 'warn' | 'ask' | 'stop';

/** A phase's or an agent's budget (the session's own lives in `tokens.budgetMax`, `costBudgetUsd`, `onExceed`). */
export interface BudgetPolicy {
  /** Input + output tokens; null: none. */
  tokens: number | null;
  /** Estimated US dollars; null: none. */
  usd: number | null;
  onExceed: OnExceed;
}

export interface TokenUsage extends TokenCounts {
  byAgent: Record<string, TokenCounts>;
  byPhase: Record<string, TokenCounts>;
  /** Budget on input+output tokens; null = no budget. */
  budgetMax: number | null;
  /** Tokens by model; absent until a record names its model. */
  byModel?: Record<string, TokenCounts>;
  /** Cost budget in US dollars; absent or null = none. */
  costBudgetUsd?: number | null;
  /** What the session's budgets do once exceeded; absent = warn (budget-policy.ts). */
  onExceed?: OnExceed;
  /** Budgets of phases, by phase id; absent until one is set. */
  phaseBudgets?: Record<string, BudgetPolicy>;
  /** Budgets of agents, by agent name; absent until one is set. */
  agentBudgets?: Record<string, BudgetPolicy>;
  /** Tokens by the machine that recorded them (the events' actor host), with their models; absent until one is recorded. */
  byHost?: Record<string, HostTokens>;
}

/** Tokens one machine recorded, and by model (what their cost is computed from). */
export interface HostTokens extends TokenCounts {
  byModel?: Record<string, TokenCounts>;
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
  /**
   * The boot id of the holder's machine when it took the lease (Linux
   * /proc/sys/kernel/random/boot_id), so a pid reused after a reboot is not taken for the
   * holder. Absent where unknown and in leases taken before it was recorded.
   */
  boot?: string | null;
  /**
   * Taken by a process that exits at once, for another to go on with (`baton claim`): its
   * pid says nothing about whether someone still works under it, so only its expiry ends it.
   */
  detached?: boolean;
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
  /**
   * Files recorded outside any phase (no phase named, or one that no longer exists), the
   * newest record of each path. Absent until the first. Journals and snapshots written before
   * this field kept them in `metadata.looseFiles`; the fold moves them here.
   */
  looseFiles?: FileRecord[];
  repairs: RepairRecord[];
  /** The current lease, or null. Optional: states saved before leases existed lack it. */
  lease?: Lease | null;
  /** Highest fencing token ever issued (0 before the first lease). */
  leaseToken?: number;
  /** Checkpoints taken, in order. Optional: absent until the first one. */
  checkpoints?: CheckpointRef[];
  /** Checkpoint restores, in order. Optional: absent until the first one. */
  restores?: RestoreRecord[];
  /** The named workspace the session was started in (shared stores); absent on a file store. */
  workspace?: string;
  /** Pinned sessions are never archived or deleted by `baton cleanup`. Optional: absent (false) until the first pin. */
  pinned?: boolean;
  /** Counters for ids handed out by the session (errors, decisions, …). */
  counters: Record<string, number>;
  /** Agent CLI conversations bound by `baton hook`, in binding order. Absent until the first. */
  agentSessions?: AgentBinding[];
  /** Sub-agents seen by `baton hook`. Absent until the first. */
  subagents?: SubagentRecord[];
  /** The agent's own plan when no phase was in progress. Absent until one is recorded. */
  steps?: PlanStep[];
  /** Token use by agent, phase and model (records that name a model), keyed by {@link modelCellKey}. Absent until the first. */
  modelCells?: Record<string, ModelCell>;
  /** Transcripts read for token use. Absent until the first read. */
  transcripts?: TranscriptLedger;
  /** Runs (workers) that worked on the session, in start order. Absent until the first. */
  runs?: Run[];
  /** Files written by two live runs. Absent until the first. */
  conflicts?: FileConflict[];
  /** Durable steps (`manager.steps`, src/domain/durable-steps.ts), in first-start order. Absent until the first. */
  durableSteps?: DurableStep[];
  /** A LangGraph thread's progress (`baton-sessions/langgraph`). Absent until its first checkpoint. */
  graph?: GraphProgress;
  /** A conversation transcript mirrored by the Claude Agent SDK's session store. Absent until its first line. */
  mirror?: MirrorProgress;
  /**
   * What the dashboard's session page shows of the journal (domain/history.ts), folded from
   * session.created on. Absent from states folded by a baton before it (their snapshots): the
   * dashboard then reads the journal instead.
   */
  history?: SessionHistory;
}

/** What a session shows of the transcript mirrored into it (`baton-sessions/claude-agent-sdk`). */
export interface MirrorProgress {
  /** Lines mirrored, over every transcript (duplicates of a retried batch included). */
  entries: number;
  /** Lines kept per transcript: `""` the main one, else the sub-transcript's name; a deleted one is absent. */
  transcripts: Record<string, number>;
}

/** What a session that is a LangGraph thread shows of the graph: its steps, not its values. */
export interface GraphProgress {
  checkpoints: number;
  writes: number;
  /** The newest checkpoint of each namespace (`""`: the root graph) with its step and source. */
  latest: Record<string, { checkpointId: string; step: number | null; source: string | null }>;
}

/** Key of a {@link ModelCell}. */
export function modelCellKey(agent: string, phaseId: string | null, model: string): string {
  return JSON.stringify([agent, phaseId, model]);
}

/** Empty token counts. */
export function zeroTokens(): TokenCounts {
  return { input: 0, output: 0, cached: 0 };
}
