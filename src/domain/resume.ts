/**
 * The resume plan: what the next agent or person needs to pick up a session that stopped,
 * computed from the session state and facts the caller measured (workspace hashes,
 * checkpoints, whether the plan file changed). Pure: no I/O, no clock, no environment.
 *
 * See DESIGN.md §5 and FORMATS.md ("Recovery rules" of each toolkit): resume by sub-step
 * (none ⇒ restart the phase), escalate past the retry limit instead of retrying, detect
 * edits made outside the session, and offer checkpoint / live / fresh recovery with what
 * each loses and a recommendation.
 */
import { effectiveStatus, leaseExpired, leaseOf } from './lease.js';
import { continueWith, resumeStep, stepsText } from './agent-sessions.js';
import type { ContinueWith } from './agent-sessions.js';
import type { FileAction, FileRecord, Phase, PhaseStatus, PlanStep, SessionState, SessionStatus, StatusCause } from './state.js';

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

/** Everything {@link planResume} needs; the caller measures, the plan decides. */
export interface ResumeInput {
  state: SessionState;
  /** ISO time, copied to {@link ResumePlan.generatedAt}. */
  now: string;
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
}

/**
 * Event types that change the session's work (what a restore puts back): phases, sub-steps,
 * files, errors, decisions, findings, notes, milestones, artifacts, context, metadata. Not
 * work: lifecycle, leases, runs, tokens, budget, checkpoints, repairs.
 */
export const WORK_EVENT_TYPES: readonly string[] = [
  'phase.started', 'phase.retried', 'phase.completed', 'phase.failed', 'phase.skipped', 'substep.reached',
  'file.recorded', 'error.recorded', 'error.resolved', 'decision.recorded', 'finding.added', 'finding.removed',
  'note.added', 'milestone.added', 'milestone.done', 'artifact.added', 'context.updated', 'metadata.set',
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

/** Choices offered when a phase has used all its retries (never an automatic retry). */
export const ESCALATION_CHOICES = ['retry', 'skip', 'abort', 'adjust'] as const;
/** One of {@link ESCALATION_CHOICES}. */
export type EscalationChoice = (typeof ESCALATION_CHOICES)[number];

/** A decision handed to a person because the retry limit was reached. */
export interface Escalation {
  /** Why the phase is escalated. */
  reason: string;
  /** Always `['retry', 'skip', 'abort', 'adjust']`. */
  choices: EscalationChoice[];
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
export type NextAction = 'resume' | 'restart' | 'retry' | 'start' | 'escalate';

/** One phase to work on next. */
export interface NextStep extends PhaseRef {
  /** resume (at a sub-step), restart (in flight, no sub-step), retry (failed, retries left), start (pending, unblocked), escalate (failed, no retries left). */
  action: NextAction;
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
  /** The recommended option (see {@link planResume} for the rule); null when there is nothing to resume. */
  recommended: Recommendation | null;
}

/** The resume plan: JSON-serialisable, stable field names. */
export interface ResumePlan {
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
  /** Things a careful person should know before resuming, for people. */
  warnings: string[];
  /** Agent CLI conversations bound to the session (hooks), most recent first, with the command that continues each; absent when none. */
  continueWith?: ContinueWith[];
}

// ---------------------------------------------------------------------------------------
// Computation
// ---------------------------------------------------------------------------------------

const DONE: readonly PhaseStatus[] = ['completed', 'skipped'];

function ref(p: Phase): PhaseRef {
  return { phaseId: p.id, name: p.name };
}

function openErrors(p: Phase): OpenError[] {
  return p.errors.filter((e) => !e.resolved).map((e) => ({ id: e.id, type: e.type, message: e.message, agent: e.agent, time: e.time }));
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function list(items: string[]): string {
  return items.join(', ');
}

function openBlockers(s: SessionState, p: Phase): OpenBlocker[] {
  const out: OpenBlocker[] = [];
  for (const b of p.blockedBy) {
    const dep = s.phases.find((x) => x.id === b);
    if (!dep) out.push({ phaseId: b, status: 'missing' });
    else if (!DONE.includes(dep.status)) out.push({ phaseId: b, status: dep.status });
  }
  return out;
}

function isFileRecord(x: unknown): x is FileRecord {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return typeof r['path'] === 'string' && (r['action'] === 'created' || r['action'] === 'modified' || r['action'] === 'deleted');
}

function timeKey(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? -Infinity : t;
}

/** A checkpoint that can be offered: valid, with a known revision. */
type UsableCheckpoint = CheckpointInfo & { revision: number };

function usable(c: CheckpointInfo): c is UsableCheckpoint {
  return c.valid && typeof c.revision === 'number' && Number.isFinite(c.revision);
}

function cpRef(c: UsableCheckpoint): OfferedCheckpoint {
  return { id: c.id, name: c.name, revision: c.revision, createdAt: c.createdAt };
}

function corrupt(c: CheckpointInfo): CorruptCheckpoint {
  const problem = c.problem ?? (c.valid ? 'its revision is unknown' : null);
  return { id: c.id, name: c.name, revision: c.revision, createdAt: c.createdAt, problem, superseded: c.superseded };
}

function checkFiles(s: SessionState, input: ResumeInput): FilesReport {
  // The latest record of each path wins; it names the phase the path is listed under.
  interface Owner {
    phase: Phase | null;
    rec: FileRecord;
  }
  const latest = new Map<string, Owner>();
  const consider = (phase: Phase | null, rec: FileRecord): void => {
    const prev = latest.get(rec.path);
    if (!prev || timeKey(rec.recordedAt) >= timeKey(prev.rec.recordedAt)) latest.set(rec.path, { phase, rec });
  };
  for (const p of s.phases) for (const f of p.files) consider(p, f);
  const loose = s.metadata['looseFiles'];
  if (Array.isArray(loose)) for (const f of loose) if (isFileRecord(f)) consider(null, f);

  const now = new Map<string, WorkspaceFile>();
  for (const w of input.workspace) now.set(w.path, w);

  const groups = new Map<Phase | null, FileCheck[]>();
  const unmeasured: string[] = [];
  const counts = { changed: 0, vanished: 0, reappeared: 0, unverified: 0 };
  for (const [path, { phase, rec }] of latest) {
    const cur = now.get(path);
    if (!cur) {
      unmeasured.push(path);
      continue;
    }
    let kind: FileCheckKind;
    if (rec.action === 'deleted') kind = cur.sha256 === null ? 'unchanged' : 'reappeared';
    else if (cur.sha256 === null) kind = 'vanished';
    else if (rec.sha256 === null) kind = 'unverified';
    else kind = rec.sha256 === cur.sha256 ? 'unchanged' : 'changed';
    const inFlight = phase?.status === 'in_progress';
    if (kind === 'unchanged' && !inFlight) continue;
    if (kind !== 'unchanged') counts[kind] += 1;
    const check: FileCheck = {
      path,
      kind,
      recordedAction: rec.action,
      recordedSha256: rec.sha256,
      recordedSize: rec.size,
      recordedAt: rec.recordedAt,
      currentSha256: cur.sha256,
      currentSize: cur.size,
      possiblyHalfWritten: inFlight,
    };
    const g = groups.get(phase) ?? [];
    g.push(check);
    groups.set(phase, g);
  }

  const byPhase: PhaseFiles[] = [];
  const order: Array<Phase | null> = [...s.phases, null];
  for (const p of order) {
    const g = groups.get(p);
    if (!g?.length) continue;
    g.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    byPhase.push({
      phaseId: p?.id ?? null,
      phaseName: p?.name ?? null,
      phaseStatus: p?.status ?? null,
      possiblyHalfWritten: p?.status === 'in_progress',
      files: g,
    });
  }
  const newFiles = [...new Set(input.newFiles ?? [])].filter((f) => !latest.has(f)).sort();
  unmeasured.sort();
  const outsideChanges = counts.changed + counts.vanished + counts.reappeared + counts.unverified > 0 || newFiles.length > 0;
  return { byPhase, ...counts, newFiles, unmeasured, outsideChanges };
}

/**
 * Seqs on the session's current line of work: after the last restore, its state is the
 * restored checkpoint's, whose own line ends at the checkpoint's revision (and may hold
 * earlier restores). Returns inclusive ranges, newest first; restore events themselves are
 * excluded.
 */
function currentLine(s: SessionState): Array<[number, number]> {
  const restores = [...(s.restores ?? [])].sort((a, b) => a.seq - b.seq);
  const ranges: Array<[number, number]> = [];
  let upTo = s.revision;
  for (;;) {
    const r = [...restores].reverse().find((x) => x.seq <= upTo);
    if (!r) {
      ranges.push([1, upTo]);
      return ranges;
    }
    if (r.seq < upTo) ranges.push([r.seq + 1, upTo]);
    if (r.revision >= r.seq) return ranges; // malformed: a restore to the future
    upTo = r.revision;
  }
}

function workEventsAfter(s: SessionState, events: Array<{ seq: number; type: string }>, revision: number): number {
  const line = currentLine(s);
  return events.filter((e) => e.seq > revision && WORK_EVENT_TYPES.includes(e.type) && line.some(([a, b]) => e.seq >= a && e.seq <= b)).length;
}

function planNext(s: SessionState, resumable: boolean, inFlight: InFlightPhase[], failed: FailedPhase[]): NextPlan {
  if (!resumable) return { steps: [], reason: notResumableReason(s) };
  if (inFlight.length) {
    return {
      steps: inFlight.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: p.resumeAt === 'substep' ? 'resume' : 'restart',
        subStep: p.subStep,
        reason:
          p.resumeAt === 'substep'
            ? `in progress when the session stopped; resume at sub-step "${p.subStep}"`
            : 'in progress when the session stopped, with no sub-step recorded: restart the phase',
      })),
      reason: `${inFlight.length === 1 ? 'Phase' : 'Phases'} ${list(inFlight.map((p) => p.phaseId))} ${inFlight.length === 1 ? 'was' : 'were'} in flight: finish ${inFlight.length === 1 ? 'it' : 'them'} before anything else.`,
    };
  }
  const retry = failed.filter((p) => p.retriesLeft > 0);
  if (retry.length) {
    return {
      steps: retry.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: 'retry',
        subStep: null,
        reason: `failed${p.failureReason ? ` (${p.failureReason})` : ''}; ${plural(p.retriesLeft, 'retry', 'retries')} left of ${p.maxRetries}`,
      })),
      reason: `Nothing is in flight; ${retry.length === 1 ? 'phase' : 'phases'} ${list(retry.map((p) => p.phaseId))} failed with retries left.`,
    };
  }
  const ready = s.phases.filter((p) => p.status === 'pending' && openBlockers(s, p).length === 0);
  const first = ready[0];
  if (first) {
    const group = first.parallelGroup === null ? [first] : ready.filter((p) => p.parallelGroup === first.parallelGroup);
    return {
      steps: group.map((p) => ({
        ...ref(p),
        action: 'start',
        subStep: null,
        reason:
          p === first
            ? p.blockedBy.length
              ? `first pending phase; its blockers ${list(p.blockedBy)} are done`
              : 'first pending phase, not blocked'
            : `runs in parallel group "${p.parallelGroup}" with ${first.id}`,
      })),
      reason:
        group.length === 1
          ? `Nothing is in flight or waiting for a retry; ${first.id} is the first pending phase that is not blocked.`
          : `Nothing is in flight or waiting for a retry; ${list(group.map((p) => p.id))} form parallel group "${first.parallelGroup}", the first pending work that is not blocked.`,
    };
  }
  const escalate = failed.filter((p) => p.escalation);
  if (escalate.length) {
    return {
      steps: escalate.map((p) => ({
        phaseId: p.phaseId,
        name: p.name,
        action: 'escalate',
        subStep: null,
        reason: `failed after ${p.retryCount} of ${p.maxRetries} retries: choose retry, skip, abort or adjust`,
      })),
      reason: `No phase can proceed: ${list(escalate.map((p) => p.phaseId))} used all retries and need${escalate.length === 1 ? 's' : ''} a decision.`,
    };
  }
  if (s.phases.length === 0) return { steps: [], reason: 'The session has no phases.' };
  if (s.phases.every((p) => DONE.includes(p.status))) {
    return { steps: [], reason: 'All phases are completed or skipped: the session only needs to be marked completed.' };
  }
  const stuck = s.phases.filter((p) => p.status === 'pending').map((p) => p.id);
  return { steps: [], reason: `No phase can start: ${list(stuck)} ${stuck.length === 1 ? 'is' : 'are'} blocked.` };
}

function notResumableReason(s: SessionState): string {
  if (s.status === 'completed') return 'The session is completed: nothing to resume.';
  if (s.status === 'abandoned') return 'The session was abandoned: nothing to resume.';
  return 'The session is archived: nothing to resume.';
}

/**
 * Computes the resume plan of a session. Changes nothing.
 *
 * Recommendation rule (nothing is recommended for a completed, abandoned or archived
 * session):
 * 1. **checkpoint** when a file last recorded by a *completed* phase changed, vanished or
 *    reappeared since it was recorded (work already counted as done was altered outside
 *    the session) and a valid, non-superseded checkpoint exists: go back to the latest one.
 * 2. **live** when nothing changed outside the session (no such file in any phase, no new
 *    files, plan file not known to have changed) and no in-flight phase has recorded files:
 *    continue where the session stopped; it loses nothing.
 * 3. otherwise **live**, with warnings naming what to check first (half-written files of
 *    in-flight phases, outside edits, new files, a changed plan, no checkpoint to go back to).
 *
 * 'fresh' is never recommended: it is offered, with what it loses, for a person to choose.
 */
export function planResume(input: ResumeInput): ResumePlan {
  const s = input.state;
  const { status, cause: statusCause } = effectiveStatus(s, input.now);
  const held = leaseOf(s);
  const lease = held ? { owner: held.owner, pid: held.pid, host: held.host, token: held.token, expiresAt: held.expiresAt, expired: leaseExpired(held, input.now) } : null;
  const resumable = !s.archived && status !== 'completed' && status !== 'abandoned';
  const warnings: string[] = [];

  // --- Phases ------------------------------------------------------------------------
  let lastCompleted: CompletedPhase | null = null;
  for (const p of s.phases) if (p.status === 'completed') lastCompleted = { ...ref(p), completedAt: p.completedAt };

  const inFlight: InFlightPhase[] = s.phases
    .filter((p) => p.status === 'in_progress')
    .map((p) => {
      const last = p.subSteps[p.subSteps.length - 1];
      return {
        ...ref(p),
        subStep: p.subStep,
        subStepAt: p.subStep !== null && last && last.name === p.subStep ? last.at : null,
        resumeAt: p.subStep !== null ? 'substep' : 'restart',
        startedAt: p.startedAt,
        agents: [...p.agents],
        retryCount: p.retryCount,
        maxRetries: p.maxRetries,
        unresolvedErrors: openErrors(p),
        ...(p.steps ? { steps: p.steps.map((x) => ({ ...x })), resumeStep: resumeStep(p.steps) } : {}),
      };
    });

  const failed: FailedPhase[] = s.phases
    .filter((p) => p.status === 'failed')
    .map((p) => {
      const retriesLeft = Math.max(0, p.maxRetries - p.retryCount);
      return {
        ...ref(p),
        failedAt: p.failedAt,
        failureReason: p.failureReason,
        unresolvedErrors: openErrors(p),
        retryCount: p.retryCount,
        maxRetries: p.maxRetries,
        retriesLeft,
        escalation:
          retriesLeft > 0
            ? null
            : {
                reason: `Phase ${p.id} failed after using ${p.retryCount} of ${p.maxRetries} retries; it is not retried automatically.`,
                choices: [...ESCALATION_CHOICES],
              },
      };
    });

  const blocked: BlockedPhase[] = s.phases
    .filter((p) => p.status === 'pending')
    .map((p) => ({ ...ref(p), openBlockers: openBlockers(s, p) }))
    .filter((p) => p.openBlockers.length > 0);

  const next = planNext(s, resumable, inFlight, failed);
  const files = checkFiles(s, input);

  // --- Checkpoints -------------------------------------------------------------------
  // Newest first (the input is in creation order); superseded ones (by the caller or by the
  // journal's restores) are never offered.
  const supersededInJournal = new Set((s.checkpoints ?? []).filter((c) => c.superseded).map((c) => c.id));
  const newestFirst = [...input.checkpoints].reverse().map((c) => (supersededInJournal.has(c.id) && !c.superseded ? { ...c, superseded: true } : c));
  const corruptCheckpoints = newestFirst.filter((c) => !usable(c)).map(corrupt);
  const current = newestFirst.filter((c) => !c.superseded);
  const offeredIdx = current.findIndex(usable);
  const offered = offeredIdx >= 0 ? (current[offeredIdx] as UsableCheckpoint) : null;
  const skipped = (offeredIdx >= 0 ? current.slice(0, offeredIdx) : current).map(corrupt);
  const fallback = skipped.length ? { skipped, offered: offered ? cpRef(offered) : null } : null;

  const completedNow = s.phases.filter((p) => p.status === 'completed').map((p) => p.id);
  const halfDone = inFlight.map((p) => (p.subStep ? `${p.phaseId} (at sub-step "${p.subStep}")` : p.phaseId));

  let checkpointOption: RecoveryOption;
  if (offered) {
    const lost = Math.max(0, s.revision - offered.revision);
    const work = input.events ? workEventsAfter(s, input.events, offered.revision) : null;
    const lostPhases = offered.completedPhases ? completedNow.filter((id) => !offered.completedPhases!.includes(id)) : null;
    const notes: string[] = [];
    if (offered.revision > s.revision) notes.push(`Checkpoint revision ${offered.revision} is newer than the session (revision ${s.revision}).`);
    const laterRestores = (s.restores ?? []).filter((r) => r.seq > offered.revision);
    if (laterRestores.length) {
      const r = laterRestores[laterRestores.length - 1]!;
      notes.push(`A restore to ${r.checkpointId} at revision ${r.seq} already set part of those events aside.`);
    }
    let summary = lost === 0 ? 'nothing: no events since the checkpoint' : `${plural(lost, 'event')} recorded after revision ${offered.revision}`;
    if (lost > 0 && work !== null) summary += ` (${work} of them changed the work)`;
    if (lostPhases?.length) summary += `, including the completion of ${list(lostPhases)}`;
    checkpointOption = {
      kind: 'checkpoint',
      from: `checkpoint:${offered.id}`,
      available: true,
      checkpoint: cpRef(offered),
      loses: { events: lost, workEvents: work, completedPhases: lostPhases, summary },
      notes,
    };
  } else {
    checkpointOption = {
      kind: 'checkpoint',
      from: null,
      available: false,
      checkpoint: null,
      loses: { events: 0, workEvents: null, completedPhases: null, summary: 'not available' },
      notes: [input.checkpoints.length ? 'No valid, non-superseded checkpoint.' : 'No checkpoint was taken.'],
    };
  }
  const liveOption: RecoveryOption = {
    kind: 'live',
    from: 'live',
    available: true,
    checkpoint: null,
    loses: { events: 0, workEvents: 0, completedPhases: [], summary: 'nothing' },
    notes: halfDone.length ? [`Keeps the half-done work of ${list(halfDone)}.`] : [],
  };
  const freshEvents = Math.max(0, s.revision - 1);
  const freshOption: RecoveryOption = {
    kind: 'fresh',
    from: 'fresh',
    available: true,
    checkpoint: null,
    loses: {
      events: freshEvents,
      workEvents: input.events ? input.events.filter((e) => e.seq > 1 && e.seq <= s.revision && WORK_EVENT_TYPES.includes(e.type)).length : null,
      completedPhases: completedNow,
      summary: `everything: ${plural(completedNow.length, 'completed phase')} and ${plural(freshEvents, 'event')} since the session was created`,
    },
    notes: ['Starts again from the first phase of the plan.'],
  };

  // --- Recommendation ----------------------------------------------------------------
  const touchedDone = files.byPhase.filter((g) => g.phaseStatus === 'completed' && g.files.some((f) => f.kind === 'changed' || f.kind === 'vanished' || f.kind === 'reappeared'));
  const inFlightWithFiles = s.phases.filter((p) => p.status === 'in_progress' && p.files.length > 0).map((p) => p.id);
  let recommended: Recommendation | null = null;
  if (resumable) {
    if (touchedDone.length && offered) {
      recommended = {
        kind: 'checkpoint',
        from: `checkpoint:${offered.id}`,
        reason: `Files of completed ${touchedDone.length === 1 ? 'phase' : 'phases'} ${list(touchedDone.map((g) => g.phaseId!))} changed outside the session; checkpoint ${offered.id} ("${offered.name}", revision ${offered.revision}) is the latest valid state to go back to.`,
      };
    } else if (!files.outsideChanges && input.planChanged !== true && inFlightWithFiles.length === 0) {
      recommended = { kind: 'live', from: 'live', reason: 'Nothing changed outside the session and no phase in flight wrote files: continue where it stopped.' };
    } else {
      recommended = { kind: 'live', from: 'live', reason: 'Continue from the current state, after checking the warnings.' };
    }
  }

  // --- Warnings (fixed order) --------------------------------------------------------
  if (s.archived && s.status !== 'completed' && s.status !== 'abandoned') warnings.push('The session is archived: nothing to resume.');
  if (s.status === 'completed') warnings.push('The session is completed: nothing to resume.');
  if (s.status === 'abandoned') warnings.push('The session was abandoned: nothing to resume.');
  if (resumable && status === 'failed') warnings.push('The session is marked failed; resuming reopens it.');
  if (resumable && lease && !lease.expired) {
    warnings.push(`The session's lease is held by ${lease.owner} (pid ${lease.pid} on ${lease.host}) until ${lease.expiresAt}: another writer may still be working on it.`);
  } else if (resumable && status === 'active') {
    warnings.push('The session is marked active: make sure no other agent is still working on it.');
  }
  if (resumable && s.phases.length > 0 && s.phases.every((p) => DONE.includes(p.status))) {
    warnings.push('All phases are completed or skipped: the session only needs to be marked completed.');
  }
  for (const g of files.byPhase) {
    if (!g.possiblyHalfWritten) continue;
    warnings.push(`Phase ${g.phaseId} was in flight: its ${plural(g.files.length, 'file')} may be half-written (${list(g.files.map((f) => f.path))}); check ${g.files.length === 1 ? 'it' : 'them'} before continuing.`);
  }
  for (const g of touchedDone) {
    const n = g.files.filter((f) => f.kind === 'changed' || f.kind === 'vanished' || f.kind === 'reappeared').length;
    warnings.push(`${plural(n, 'file')} of completed phase ${g.phaseId} changed, vanished or reappeared outside the session.`);
  }
  if (touchedDone.length && !offered) warnings.push('No valid checkpoint to go back to: review the changed files by hand before continuing.');
  const otherTouched = files.byPhase.filter((g) => !g.possiblyHalfWritten && !touchedDone.includes(g));
  for (const g of otherTouched) {
    const where = g.phaseId === null ? 'recorded without a phase' : `of ${g.phaseStatus?.replace('_', ' ')} phase ${g.phaseId}`;
    warnings.push(`${plural(g.files.length, 'file')} ${where} differ${g.files.length === 1 ? 's' : ''} from the record: ${list(g.files.map((f) => `${f.path} (${f.kind})`))}.`);
  }
  if (files.newFiles.length) warnings.push(`${plural(files.newFiles.length, 'new file')} appeared in the workspace since the session started.`);
  if (input.planChanged === true) warnings.push('The plan file changed since the session started: check that the phases still match it.');
  if (files.unmeasured.length) warnings.push(`${plural(files.unmeasured.length, 'recorded file')} could not be compared (not measured): ${list(files.unmeasured)}.`);
  if (fallback) {
    const names = list(fallback.skipped.map((c) => `${c.id}${c.problem ? ` (${c.problem})` : ''}`));
    warnings.push(
      fallback.offered
        ? `Corrupt checkpoint ${names} skipped; offering the previous valid checkpoint ${fallback.offered.id} instead.`
        : `Corrupt checkpoint ${names} skipped; no valid checkpoint is left.`,
    );
  }
  for (const f of failed) if (f.escalation) warnings.push(`${f.escalation.reason} Choose: retry, skip, abort or adjust.`);

  return {
    sessionId: s.id,
    title: s.title,
    revision: s.revision,
    generatedAt: input.now,
    status,
    statusCause,
    lease,
    resumable,
    lastCompleted,
    inFlight,
    failed,
    blocked,
    next,
    files,
    planChanged: input.planChanged,
    recovery: {
      options: [checkpointOption, liveOption, freshOption],
      corruptCheckpoints,
      fallback,
      recommended,
    },
    warnings,
    ...(s.agentSessions?.length ? { continueWith: continueWith(s) } : {}),
  };
}

// ---------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------

/** "lease-expired: pid 12 gone, at 2026-…". */
export function describeCause(cause: StatusCause): string {
  return `${cause.cause}${cause.detail ? `: ${cause.detail}` : ''}, at ${cause.at}`;
}

/** "held by A (pid 1 on h), token 3, until 2026-…" (or "expired at …"). */
export function describeLease(l: NonNullable<ResumePlan['lease']>): string {
  return `held by ${l.owner} (pid ${l.pid} on ${l.host}), token ${l.token}, ${l.expired ? 'expired at' : 'until'} ${l.expiresAt}`;
}

/** "interrupted (lease-expired: pid 12 gone, at 2026-…)". */
export function describeStatus(status: SessionStatus, cause: StatusCause | null): string {
  return cause ? `${status} (${describeCause(cause)})` : status;
}

/** One line per next step, shared with the handoff. */
export function describeNextStep(n: NextStep): string {
  switch (n.action) {
    case 'resume':
      return `Resume phase ${n.phaseId} (${n.name}) at sub-step "${n.subStep}"`;
    case 'restart':
      return `Restart phase ${n.phaseId} (${n.name}): no sub-step was recorded`;
    case 'retry':
      return `Retry phase ${n.phaseId} (${n.name}): ${n.reason}`;
    case 'start':
      return `Start phase ${n.phaseId} (${n.name})`;
    case 'escalate':
      return `Decide on phase ${n.phaseId} (${n.name}): ${n.reason}`;
  }
}

/** "changed", "vanished"… with the hashes, for people. */
export function describeFileCheck(f: FileCheck): string {
  const short = (h: string | null): string => (h === null ? 'none' : h.slice(0, 12));
  switch (f.kind) {
    case 'changed':
      return `changed (sha256 ${short(f.recordedSha256)} → ${short(f.currentSha256)})`;
    case 'vanished':
      return `vanished (recorded ${f.recordedAction}, missing now)`;
    case 'reappeared':
      return 'reappeared (recorded deleted, present now)';
    case 'unverified':
      return 'unverified (recorded without a hash)';
    case 'unchanged':
      return 'unchanged since recorded';
  }
}

function optionLine(o: RecoveryOption, recommended: Recommendation | null): string {
  const mark = recommended && recommended.kind === o.kind ? '*' : ' ';
  const label = o.kind === 'checkpoint' && o.checkpoint ? `checkpoint:${o.checkpoint.id} "${o.checkpoint.name}" (revision ${o.checkpoint.revision})` : o.kind;
  const body = o.available ? `loses ${o.loses.summary}` : o.notes.join(' ');
  const notes = o.available && o.notes.length ? ` — ${o.notes.join(' ')}` : '';
  return `  ${mark} ${label}: ${body}${notes}`;
}

/** The plan as compact plain text for people (no colours). Ends with a newline. */
export function renderResumePlan(plan: ResumePlan): string {
  const out: string[] = [];
  out.push(`Resume plan for ${plan.sessionId} "${plan.title}" (revision ${plan.revision})`);
  out.push(`Status: ${describeStatus(plan.status, plan.statusCause)}`);
  if (plan.lease) out.push(`Lease: ${describeLease(plan.lease)}`);
  out.push(`Last completed: ${plan.lastCompleted ? `${plan.lastCompleted.phaseId} (${plan.lastCompleted.name})` : 'none'}`);
  if (plan.inFlight.length) {
    out.push('In flight:');
    for (const p of plan.inFlight) {
      out.push(`  ${p.phaseId} (${p.name}): ${p.resumeAt === 'substep' ? `resume at sub-step "${p.subStep}"` : 'no sub-step recorded, restart the phase'}`);
      if (p.steps?.length) out.push(...stepsText(p.steps, p.resumeStep ?? null, '    '));
      for (const e of p.unresolvedErrors) out.push(`    ${e.id} ${e.type}: ${e.message}`);
    }
  }
  if (plan.failed.length) {
    out.push('Failed:');
    for (const p of plan.failed) {
      const retries = p.escalation
        ? `retries exhausted (${p.retryCount}/${p.maxRetries}): escalate — ${p.escalation.choices.join(' / ')}`
        : `${p.retryCount}/${p.maxRetries} retries used, ${p.retriesLeft} left`;
      out.push(`  ${p.phaseId} (${p.name}): ${retries}${p.failureReason ? ` — ${p.failureReason}` : ''}`);
      for (const e of p.unresolvedErrors) out.push(`    ${e.id} ${e.type}: ${e.message}`);
    }
  }
  if (plan.blocked.length) {
    out.push('Blocked:');
    for (const p of plan.blocked) out.push(`  ${p.phaseId} (${p.name}): waiting for ${list(p.openBlockers.map((b) => `${b.phaseId} (${b.status.replace('_', ' ')})`))}`);
  }
  out.push(`Next: ${plan.next.reason}`);
  for (const n of plan.next.steps) out.push(`  → ${describeNextStep(n)}`);
  const f = plan.files;
  if (f.byPhase.length || f.newFiles.length || f.unmeasured.length) {
    out.push('Files:');
    for (const g of f.byPhase) {
      const head = g.phaseId === null ? '(no phase)' : `${g.phaseId} (${g.phaseStatus?.replace('_', ' ')})`;
      out.push(`  ${head}${g.possiblyHalfWritten ? ' — possibly half-written' : ''}:`);
      for (const x of g.files) out.push(`    ${x.path}: ${describeFileCheck(x)}`);
    }
    if (f.newFiles.length) out.push(`  new: ${list(f.newFiles)}`);
    if (f.unmeasured.length) out.push(`  not measured: ${list(f.unmeasured)}`);
  } else {
    out.push('Files: no changes outside the session.');
  }
  out.push(`Plan file: ${plan.planChanged === null ? 'unknown' : plan.planChanged ? 'changed since the start' : 'unchanged'}`);
  out.push('Recovery options:');
  for (const o of plan.recovery.options) out.push(optionLine(o, plan.recovery.recommended));
  for (const c of plan.recovery.corruptCheckpoints) {
    out.push(`  corrupt: ${c.id}${c.name !== c.id ? ` "${c.name}"` : ''}${c.revision !== null ? ` (revision ${c.revision})` : ''}${c.superseded ? ' (superseded)' : ''}${c.problem ? `: ${c.problem}` : ''}`);
  }
  out.push(plan.recovery.recommended ? `Recommended: ${plan.recovery.recommended.from} — ${plan.recovery.recommended.reason}` : 'Recommended: none (nothing to resume)');
  if (plan.warnings.length) {
    out.push('Warnings:');
    for (const w of plan.warnings) out.push(`  ! ${w}`);
  }
  if (plan.continueWith?.length) {
    out.push('Continue the conversation:');
    for (const c of plan.continueWith) out.push(`  ${c.command}${c.ended ? ' (ended)' : ''}${c.model ? ` — ${c.model}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}
