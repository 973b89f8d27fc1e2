/**
 * The resume plan's types: what `planResume` (plan-resume.ts) takes (the session state and the facts
 * the caller measured) and what it returns. JSON-serialisable, stable field names: `baton
 * resume --json` and the MCP `resume_plan` tool print a {@link ResumePlan} as it is.
 */
import type { RunView } from '../runs/runs.js';
import type { ContinueWith } from '../agents/agent-sessions.js';
import type { Hint } from '../hints.js';
import type { ToolkitResume } from '../toolkits/toolkit-rules.js';
import type { FileAction, PhaseStatus, PlanStep, SessionState, SessionStatus, StatusCause } from '../state.js';

// ---------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------

/** A file as measured now by the caller. `sha256: null` = the file is missing now. */
export interface WorkspaceFile {
  path: string;
  sha256: string | null;
  size: number | null;
}

/**
 * A checkpoint as the store knows it (validated by the caller). {@link ResumeInput.checkpoints}
 * lists them in creation order, oldest first, as `SessionStore.listCheckpoints` returns them.
 */
export interface CheckpointInfo {
  id: string;
  /** Its name; for a corrupt checkpoint whose name cannot be read, the id. */
  name: string;
  /** Session revision (seq of the last event) the checkpoint captured; null when it cannot be read (corrupt). */
  revision: number | null;
  /** Creation time (ISO); for a corrupt checkpoint, the file's modification time or ''. */
  createdAt: string;
  /** False when the checkpoint failed validation (checksum, parse…): it is never offered. */
  valid: boolean;
  /** True when a restore to an earlier checkpoint made this one obsolete: it is never offered. */
  superseded: boolean;
  /** What is wrong with an invalid checkpoint, for people. */
  problem?: string | null;
  /** Ids of the phases completed in the checkpoint's state, when the caller knows them. */
  completedPhases?: string[] | null;
}

/** Everything `planResume` (plan-resume.ts) needs; the caller measures, the plan decides. */
export interface ResumeInput {
  state: SessionState;
  /** ISO time, copied to {@link ResumePlan.generatedAt}. */
  now: string;
  /** Runs found gone by a process check on this host (their session reads interrupted at once). */
  dead?: ReadonlySet<string>;
  /** Current content of every file the session recorded, measured now by the caller (same paths as recorded). */
  workspace: WorkspaceFile[];
  /** Files present now in the workspace that the session never recorded but that appeared since the session started, if the caller could tell (may be empty). */
  newFiles?: string[];
  /** Every checkpoint, damaged and superseded ones included, oldest first (creation order). */
  checkpoints: CheckpointInfo[];
  /** sha256 of the plan file now vs. when the session started; null when unknown. */
  planChanged: boolean | null;
  /**
   * Optional: seq and type of the journal's events (at least those after the oldest
   * checkpoint). When given, each checkpoint option also counts the events that changed the
   * session's work ({@link RecoveryLoss.workEvents}); heartbeats, token records and the like
   * are not work a restore undoes.
   */
  events?: Array<{ seq: number; type: string }>;
  /**
   * Optional, read when `events` is absent: how many events after `session.created` changed
   * the session's work, known without the journal (counted by the state's history; see
   * {@link workEventsOf}). The fresh option counts them; checkpoint options need `events`.
   */
  workEventsTotal?: number;
  /**
   * Optional: commits known to hold recorded files (checkpoints' copies of the work tree),
   * newest first. A file put back with git is taken from the first that holds it as recorded.
   */
  gitCopies?: GitCopy[];
}

/**
 * A commit that holds files as a checkpoint measured them: the checkpoint's copy of a dirty
 * work tree, or its HEAD when the tree was clean.
 */
export interface GitCopy {
  checkpointId: string;
  commit: string;
  /** The files the commit holds, path → sha256 as measured when the checkpoint was taken. */
  files: Record<string, string | null>;
}

/**
 * Event types that change the session's work (what a restore puts back): phases, sub-steps,
 * files, errors, decisions, findings, notes, milestones, artifacts, context, metadata. Not
 * work: lifecycle, leases, runs, tokens, budget, checkpoints, repairs.
 */
export const WORK_EVENT_TYPES: readonly string[] = [
  'phase.started',
  'phase.retried',
  'phase.completed',
  'phase.failed',
  'phase.skipped',
  'substep.reached',
  'file.recorded',
  'error.recorded',
  'error.resolved',
  'decision.recorded',
  'finding.added',
  'finding.removed',
  'note.added',
  'milestone.added',
  'milestone.done',
  'artifact.added',
  'context.updated',
  'metadata.set',
  'phase.added',
  'phase.removed',
  'phase.updated',
];

// ---------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------

/** A phase named in the plan. */
export interface PhaseRef {
  /** Phase id. */
  phaseId: string;
  /** Phase display name. */
  name: string;
}

/** The last completed phase (by plan order). */
export interface CompletedPhase extends PhaseRef {
  /** When it was completed (ISO), or null if not recorded. */
  completedAt: string | null;
}

/** An unresolved error of a phase, as shown in the plan. */
export interface OpenError {
  id: string;
  type: string;
  message: string;
  agent: string | null;
  time: string;
}

/** A phase that was in progress when the session stopped. */
export interface InFlightPhase extends PhaseRef {
  /** The sub-step reached most recently, or null when none was recorded. */
  subStep: string | null;
  /** When that sub-step was reached (ISO), or null. */
  subStepAt: string | null;
  /** 'substep': resume at {@link subStep}; 'restart': no sub-step recorded, restart the phase. */
  resumeAt: 'substep' | 'restart';
  /** When the phase (or its latest retry) started. */
  startedAt: string | null;
  /** Agents that worked on the phase. */
  agents: string[];
  retryCount: number;
  maxRetries: number;
  /** Unresolved errors recorded against the phase. */
  unresolvedErrors: OpenError[];
  /** The agent's own plan for the phase (its todo list, from hooks); absent when none was recorded. */
  steps?: PlanStep[];
  /** The step to resume at: the one in progress, else the first pending; null when all are done. */
  resumeStep?: PlanStep | null;
}

/**
 * The user's choices when a phase has used all its retries (never an automatic retry): retry
 * it anyway, skip it, fail or abandon the session, or change the plan (its retry limit, its
 * dependencies, the phases). Each surface names the command or tool of each choice
 * (`Escalation.hint`); in `baton resume --json` and the MCP `resume_plan` result, `choices`
 * holds those names instead of these kinds.
 */
export const ESCALATION_CHOICES = ['retry', 'skip', 'fail', 'abandon', 'change-plan'] as const;
/** One of {@link ESCALATION_CHOICES}. */
export type EscalationChoice = (typeof ESCALATION_CHOICES)[number];
/** The escalation choices in words, for reasons and warnings. */
export const ESCALATION_WORDS = 'retry it anyway, skip it, fail or abandon the session, or change the plan';

/** A decision handed to a person because the retry limit was reached. */
export interface Escalation {
  /** Why the phase is escalated. */
  reason: string;
  /** {@link ESCALATION_CHOICES}, in that order (surfaces show their command or tool names). */
  choices: string[];
  /** The choices as an action: each surface words it with its commands or tools. */
  hint: Hint;
}

/** A failed phase. */
export interface FailedPhase extends PhaseRef {
  failedAt: string | null;
  /** Reason given when it failed, or null. */
  failureReason: string | null;
  /** Unresolved errors recorded against the phase. */
  unresolvedErrors: OpenError[];
  /** Retries used so far. */
  retryCount: number;
  /** Retry limit of the phase. */
  maxRetries: number;
  /** max(0, maxRetries − retryCount). */
  retriesLeft: number;
  /** Set when no retries are left: a person must choose; null while retries remain. */
  escalation: Escalation | null;
}

/** A blocker of a pending phase that is neither completed nor skipped. */
export interface OpenBlocker {
  phaseId: string;
  /** Its status, or 'missing' when the plan names a phase that does not exist. */
  status: PhaseStatus | 'missing';
}

/** A pending phase that cannot start yet. */
export interface BlockedPhase extends PhaseRef {
  openBlockers: OpenBlocker[];
}

/** What to do with a phase next. */
export type NextAction = 'resume' | 'restart' | 'retry' | 'start' | 'escalate' | 'review' | 'decide';

/** One phase to work on next. */
export interface NextStep extends PhaseRef {
  /** resume (at a sub-step), restart (in flight, no sub-step), retry (failed, retries left), start (pending, unblocked), escalate (failed, no retries left), review (a review or reconciliation the session's toolkit requires before archiving), decide (an unresolved error the session's toolkit has the user decide on before proceeding; `errorId` names it). */
  action: NextAction;
  /** The unresolved error to decide on (action 'decide'); absent otherwise. */
  errorId?: string;
  /** Sub-step to resume at (action 'resume'), else null. */
  subStep: string | null;
  /** Why this phase, for people. */
  reason: string;
}

/** The phase(s) to do next: in-flight first, else failed with retries left, else the first pending unblocked phase (with its parallel group), else escalations. */
export interface NextPlan {
  /** Empty when there is nothing to do (or nothing to resume). */
  steps: NextStep[];
  /** Why these steps (or why none), for people. */
  reason: string;
}

/** How a recorded file compares with the workspace now. */
export type FileCheckKind = 'changed' | 'vanished' | 'reappeared' | 'unverified' | 'unchanged';

/** A recorded file compared with its current content. */
export interface FileCheck {
  path: string;
  /**
   * changed: hash differs from the record; vanished: recorded as created/modified, missing
   * now; reappeared: recorded as deleted, present now; unverified: present now but recorded
   * without a hash (cannot compare); unchanged: listed only for in-flight phases.
   */
  kind: FileCheckKind;
  recordedAction: FileAction;
  recordedSha256: string | null;
  recordedSize: number | null;
  recordedAt: string;
  currentSha256: string | null;
  currentSize: number | null;
  /** True for every file of an in-flight phase: the crash may have cut a write short. */
  possiblyHalfWritten: boolean;
}

/** Files of one phase that need attention. */
export interface PhaseFiles {
  /** Phase id, or null for files recorded without a phase. */
  phaseId: string | null;
  phaseName: string | null;
  phaseStatus: PhaseStatus | null;
  /** True when the phase is in flight: all its files may be half-written. */
  possiblyHalfWritten: boolean;
  /** Sorted by path. Unchanged files appear only for an in-flight phase. */
  files: FileCheck[];
}

/** Files recorded by the session compared with the workspace. */
export interface FilesReport {
  /**
   * Phases (plan order, files without a phase last) with changed, vanished, reappeared or
   * unverified files, or in flight with any file. A path recorded by several phases is
   * judged once, against its latest record, and listed under that phase.
   */
  byPhase: PhaseFiles[];
  /** Counts over all phases. */
  changed: number;
  vanished: number;
  reappeared: number;
  unverified: number;
  /** Files that appeared since the session started and that it never recorded (sorted). */
  newFiles: string[];
  /** Recorded paths the caller did not measure: their state is unknown (sorted). */
  unmeasured: string[];
  /** True when any recorded file changed, vanished, reappeared or is unverified, or new files appeared. */
  outsideChanges: boolean;
}

/** A recovery option kind. */
export type RecoveryKind = 'checkpoint' | 'live' | 'fresh';

/** A valid checkpoint offered (or skipped to) by the plan. */
export interface OfferedCheckpoint {
  id: string;
  name: string;
  revision: number;
  createdAt: string;
}

/** A checkpoint that failed validation. */
export interface CorruptCheckpoint {
  id: string;
  name: string;
  /** null when it could not be read. */
  revision: number | null;
  createdAt: string;
  problem: string | null;
  superseded: boolean;
}

/** What choosing a recovery option throws away. */
export interface RecoveryLoss {
  /** Events that would no longer count: state.revision − checkpoint.revision; 0 for live; every event after session.created for fresh. */
  events: number;
  /**
   * Of those, the events that changed the session's work ({@link WORK_EVENT_TYPES}) on its
   * current line (events a restore already set aside are not counted). Null unless
   * {@link ResumeInput.events} was given; 0 for live.
   */
  workEvents: number | null;
  /** Phases completed now that the option gives up (fresh: all of them; checkpoint: only when the checkpoint's phases are known, else null). */
  completedPhases: string[] | null;
  /** One line for people. */
  summary: string;
}

/** One way to resume. */
export interface RecoveryOption {
  kind: RecoveryKind;
  /** Value for `--from`: 'checkpoint:<id>', 'live' or 'fresh'; null when unavailable. */
  from: string | null;
  /** False for 'checkpoint' when no valid, non-superseded checkpoint exists. */
  available: boolean;
  /** The checkpoint offered ('checkpoint' only). */
  checkpoint: OfferedCheckpoint | null;
  loses: RecoveryLoss;
  /** Caveats, e.g. half-done work kept by 'live'. */
  notes: string[];
}

/** The option baton recommends. */
export interface Recommendation {
  kind: RecoveryKind;
  /** Value for `--from`. */
  from: string;
  reason: string;
}

/** Recovery options, corrupt checkpoints and the recommendation. */
export interface RecoveryPlan {
  /** Always three, in this order: checkpoint, live, fresh. */
  options: RecoveryOption[];
  /** Every checkpoint that failed validation (newest first). */
  corruptCheckpoints: CorruptCheckpoint[];
  /** Set when the newest non-superseded checkpoint(s) are corrupt: they are skipped and the previous valid one (if any) is offered. */
  fallback: { skipped: CorruptCheckpoint[]; offered: OfferedCheckpoint | null } | null;
  /** The recommended option (see `planResume` (plan-resume.ts) for the rule); null when there is nothing to resume. */
  recommended: Recommendation | null;
}

/** A file of a completed phase that differs from its record. */
export interface OutsideEditFile {
  path: string;
  kind: 'changed' | 'vanished' | 'reappeared';
}

/** What can be done about files of completed phases edited outside the session. */
export type OutsideEditChoiceKind = 'accept' | 'restore-files' | 'keep-going';

/** One way to deal with the outside edits. */
export interface OutsideEditChoice {
  kind: OutsideEditChoiceKind;
  /** What it does and what it leaves as it is, for people (names no command). */
  summary: string;
  /** The actions that make this choice, as data; each surface words them (hints.ts). Empty when there is nothing to run. */
  hints: Hint[];
}

/**
 * Files counted as done that were edited outside the session, and the ways to deal with them.
 * A checkpoint restore is not one of them: it puts back the session's record, not the files.
 */
export interface OutsideEdits {
  /** Completed phases (plan order) with their files that changed, vanished or reappeared. */
  phases: Array<{ phaseId: string; files: OutsideEditFile[] }>;
  /** Always accept, restore-files, keep-going, in this order. */
  choices: OutsideEditChoice[];
}

/** The resume plan: JSON-serialisable, stable field names. */
export interface ResumePlan {
  /** The session's runs (live, ended, dead), when it had any (docs/runs.md); what they mean is in `warnings`. */
  runs?: RunView[];
  sessionId: string;
  title: string;
  /** Session revision the plan was computed from. */
  revision: number;
  /** ResumeInput.now. */
  generatedAt: string;
  /** state.status as readers report it: an active session whose lease expired by `now` is 'interrupted' (see lease.ts `effectiveStatus`). */
  status: SessionStatus;
  /** state.statusCause, likewise (cause 'lease-expired' for an expired lease). */
  statusCause: StatusCause | null;
  /** The session's lease, if any, and whether it had expired at `now`. */
  lease: { owner: string; pid: number; host: string; token: number; expiresAt: string; expired: boolean } | null;
  /** False for completed, abandoned or archived sessions: nothing to resume. */
  resumable: boolean;
  /** Last completed phase by plan order, or null. */
  lastCompleted: CompletedPhase | null;
  /** Phases in progress (plan order). */
  inFlight: InFlightPhase[];
  /** Failed phases (plan order). */
  failed: FailedPhase[];
  /** Pending phases with open blockers (plan order). */
  blocked: BlockedPhase[];
  /** What to do next and why. */
  next: NextPlan;
  /** Recorded files compared with the workspace. */
  files: FilesReport;
  /** Whether the plan file changed since the session started; null = unknown. Passed through. */
  planChanged: boolean | null;
  recovery: RecoveryPlan;
  /** Set when files of completed phases were edited outside the session: the choices for them; else null. */
  outsideEdits: OutsideEdits | null;
  /** Things a careful person should know before resuming, for people. */
  warnings: string[];
  /** Agent CLI conversations bound to the session (hooks), most recent first, with the command that continues each; absent when none. */
  continueWith?: ContinueWith[];
  /** For a session imported from a foreign toolkit: what its recorded rules decided (resume-toolkit.ts); absent otherwise. */
  toolkit?: ToolkitResume;
}

/**
 * How many events after `session.created` changed the work of session `s` ({@link
 * WORK_EVENT_TYPES}), from its history's count per type (domain/history.ts: every event
 * folded since the first), without reading the journal; null when the history cannot say
 * (a state folded from an old snapshot has none, and a restore puts back a checkpoint's).
 */
export function workEventsOf(s: { history?: { types: Record<string, number> }; restores?: unknown[] }): number | null {
  if (!s.history || s.restores?.length) return null;
  return WORK_EVENT_TYPES.reduce((n, t) => n + (s.history!.types[t] ?? 0), 0);
}
