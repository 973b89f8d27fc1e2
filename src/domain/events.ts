import type { StepEventData } from './step-types.js';
import type {
  AgentBinding,
  FileAction,
  LastTurn,
  OnExceed,
  PlanStep,
  RunKind,
  RunProcess,
  SessionState,
  TranscriptReadPoint,
} from './state.js';

/** Who caused an event. */
export interface Actor {
  agent: string | null;
  pid: number;
  host: string;
  /** The run the change was made in, when made in one (absent in older records). */
  run?: string;
}

/** Declared shape of a phase in a plan or in `session.created`. */
export interface PhaseSpec {
  id: string;
  name: string;
  agents?: string[];
  blockedBy?: string[];
  parallelGroup?: string | null;
  maxRetries?: number;
  metadata?: Record<string, unknown>;
}

/** Payload of every event type, by type name. */
/** Why a lease's holder is known to be gone: its process `exited`, or its machine `rebooted` since it took the lease. */
export type HolderGoneReason = 'exited' | 'rebooted';

export interface EventDataMap {
  'session.created': {
    title: string;
    idFormat: string;
    phases: PhaseSpec[];
    budgetMax: number | null;
    contextSummary?: string | null;
    metadata?: Record<string, unknown>;
    /** The named workspace the session was started in (a shared store); absent on a file store. */
    workspace?: string;
  };
  'session.paused': { cause: string; detail?: string | null };
  'session.resumed': { from: string };
  'session.interrupted': { cause: string; detail?: string | null };
  /** `unfinished`: the phases left neither completed nor skipped by a forced completion. */
  'session.completed': { detail?: string | null; unfinished?: string[] };
  'session.failed': { detail?: string | null };
  'session.abandoned': { detail?: string | null };
  'session.archived': Record<string, never>;
  /** Retention: a pinned session is never touched by `baton cleanup`. */
  'session.pinned': { reason: string | null };
  'session.unpinned': { reason: string | null };
  /** `runId`: the run that started it and owns it now (absent: none, or an older record). */
  'phase.started': { phaseId: string; agent: string | null; forced: boolean; runId?: string };
  'phase.retried': { phaseId: string; agent: string | null; forced: boolean; attempt: number; runId?: string };
  'phase.completed': { phaseId: string; agent: string | null };
  'phase.failed': { phaseId: string; agent: string | null; reason: string | null };
  /** `from: 'failed'`: a failed phase skipped on the user's decision (an escalation); absent for a pending phase. */
  'phase.skipped': { phaseId: string; reason: string | null; from?: 'failed' };
  /** The plan changed (`baton plan add`): a phase added after `after` (null: first), on the user's decision. */
  'phase.added': { phaseId: string; phase: PhaseSpec; after: string | null; reason: string | null };
  /** The plan changed (`baton plan remove`): a pending phase nothing depends on removed. */
  'phase.removed': { phaseId: string; reason: string | null };
  /**
   * The plan changed (`baton plan set`): a phase's retry limit or dependencies, the fields given;
   * or live sync took the toolkit's own fields of the unit from a write of its file (`metadata`).
   */
  'phase.updated': {
    phaseId: string;
    maxRetries?: number;
    blockedBy?: string[];
    /** The phase's metadata, whole (a toolkit's own fields of the unit, taken from a live write of its file). */
    metadata?: Record<string, unknown>;
    reason: string | null;
  };
  'substep.reached': { phaseId: string; name: string };
  'file.recorded': {
    phaseId: string | null;
    path: string;
    action: FileAction;
    sha256: string | null;
    size: number | null;
    agent: string | null;
    /** The agent CLI's tool that wrote the file, when a hook recorded it (absent in older records). */
    tool?: string;
  };
  'error.recorded': { errorId: string; phaseId: string; agent: string | null; type: string; message: string };
  'error.resolved': { errorId: string; resolution: string };
  /**
   * Token use. `input` excludes cached tokens; `cached` is cache reads. `cacheWrite` (tokens
   * written to a prompt cache) and `model` are absent in records made before they existed
   * and in records that do not know them.
   */
  'tokens.recorded': {
    agent: string;
    phaseId: string | null;
    input: number;
    output: number;
    cached: number;
    cacheWrite?: number;
    model?: string | null;
  };
  /** A budget set or changed: the session's (`max` tokens, `maxUsd`, `onExceed`), or a phase's or an agent's; fields left out are unchanged. */
  'budget.set': { max?: number | null; maxUsd?: number | null; onExceed?: OnExceed; phase?: string; agent?: string };
  /** The cost budget in US dollars (estimated from the pricing table); null clears it. */
  'budget.cost_set': { maxUsd: number | null };
  /**
   * What a transcript read counted (`manager.transcripts.ingest`), appended with its
   * `tokens.recorded` events: where the next read starts, and each response counted with
   * its counts so far (input, output, cache read, cache write), so no response is counted twice.
   */
  'transcript.read': TranscriptReadPoint & {
    path: string;
    /** Per-response totals seen in a Codex rollout (then its running totals are ignored). */
    perResponse?: boolean;
    /** The model in effect at the offset (Codex names it on turn lines only). */
    model?: string | null;
    /** The conversation's last turn as this read saw it (its context and time: what a resume re-sends); absent when it saw no usage. */
    lastTurn?: LastTurn;
    /** With `lastTurn`: the key of the last response when it had no final usage yet (its counts are a lower bound), else null. */
    open?: string | null;
    /**
     * The responses this read counted or grew, one per line: `<key>\t<input>,<output>,<cache
     * read>,<cache write>\n` (their totals so far). One string rather than an object per
     * response: sessions with thousands of responses load and copy it in microseconds.
     */
    responses: string;
  };
  'decision.recorded': {
    decisionId: string;
    title: string;
    choice: string;
    rationale: string | null;
    alternatives: string[];
    agent: string | null;
    phaseId: string | null;
  };
  'finding.added': {
    findingId: string;
    text: string;
    severity: string | null;
    phaseId: string | null;
    agent: string | null;
  };
  'finding.removed': { findingId: string };
  'note.added': { noteId: string; text: string; phaseId: string | null; agent: string | null };
  'milestone.added': { milestoneId: string; title: string; targetDate: string | null };
  'milestone.done': { milestoneId: string };
  'artifact.added': {
    artifactId: string;
    path: string;
    kind: string | null;
    description: string | null;
    phaseId: string | null;
    agent: string | null;
  };
  'context.updated': { summary: string };
  'metadata.set': { key: string; value: unknown };
  'lease.acquired': {
    owner: string;
    pid: number;
    host: string;
    token: number;
    expiresAt: string;
    takeover: boolean;
    boot?: string | null;
    detached?: boolean;
  };
  'lease.renewed': { token: number; expiresAt: string };
  'lease.released': { token: number };
  /** `holderGone`: ended before its time because its holder process is gone (see lease.ts `holderGoneEvents`). */
  'lease.expired': {
    token: number;
    owner: string;
    expiresAt: string;
    holderGone?: { pid: number; host: string; reason: HolderGoneReason };
  };
  /**
   * A run began (src/domain/runs/runs.ts). Records before runs had ids carry only `command`,
   * `token` and `agent` (a `baton run`).
   */
  'run.started': {
    runId?: string;
    kind?: RunKind;
    command: string[];
    token: number | null;
    agent: string | null;
    process?: RunProcess;
    ttlMs?: number | null;
    expiresAt?: string | null;
    cli?: string;
    agentSessionId?: string;
    worktree?: string;
    /** The run holds a lease on this phase only (its `token`, from the session's token series), not the session's. */
    leasedPhase?: string;
  };
  /** A run's liveness renewed (heartbeat). */
  /** `pgid`: the process group the run's command was started in, known once it started (`baton run`). */
  'run.renewed': { runId: string; expiresAt: string; pgid?: number };
  /**
   * How a run ended: `how` is `finished` or `paused` (its own choice) or `died` (found dead:
   * its process gone, its lease lapsed, its connection lost), with what was salvaged. Cause
   * `lease-lost`: a `baton run` lost its lease (it lapsed, or another worker took the
   * session) and stopped its command; written without the lease (`token` names the one
   * lost), it changes neither the status nor the new holder's lease. Older records have no
   * `runId` or `how`.
   */
  'run.ended': {
    runId?: string;
    how?: 'finished' | 'paused' | 'died';
    command: string[];
    exitCode: number | null;
    signal: string | null;
    cause: string;
    token?: number;
    detail?: string;
    salvage?: { steps?: PlanStep[] | null; lastTools?: string[]; tokens?: number };
    /**
     * The run's own account arriving after its death was recorded (a conversation's SessionEnd
     * after the keeper's grace): it replaces that death (`how` finished), the salvage is kept.
     */
    amend?: boolean;
  };
  /** A run took over a phase in progress whose owner is gone (`from`: that run). */
  'phase.claimed': { phaseId: string; runId: string; from: string | null };
  /** Two live runs wrote the same file; `runId` wrote it second and was warned. */
  'file.conflicted': {
    path: string;
    phaseId: string | null;
    runId: string | null;
    otherRunId: string | null;
    otherPhaseId: string | null;
  };
  /**
   * A model's file tool wrote a mirrored toolkit file (docs/hooks.md, "Live sync") that would
   * have lost what the session holds (written from a stale copy, or over another agent's
   * update): baton kept its state, took what was new, and rewrote the mirror. `path` is
   * relative to the mirror folder; `lost` names each thing the write would have dropped.
   */
  'mirror.conflicted': {
    format: string;
    path: string;
    agent: string | null;
    runId: string | null;
    /** `field`: for a toolkit field kept over the write (`field_newer`, `field_conflict`), its document and path. */
    lost: Array<{ kind: string; message: string; field?: string }>;
  };
  'checkpoint.created': {
    checkpointId: string;
    name: string;
    /** Revision of the state the checkpoint holds. */
    revision: number;
    trigger: 'manual' | 'phase';
    phaseId: string | null;
    /** `snapshot`: the commit holding a dirty work tree as it was (CheckpointGit in store/types.ts). */
    git: { branch: string | null; head: string | null; dirty: boolean; snapshot?: string | null } | null;
  };
  /**
   * The session's work goes back to the checkpoint's: `state` is the checkpoint's state (so the
   * fold needs nothing but the journal); `supersedes` names the checkpoints taken after it.
   */
  'checkpoint.restored': {
    checkpointId: string;
    name: string;
    revision: number;
    state: SessionState;
    supersedes: string[];
    /** The work tree reset (`restore --git`): the commit it went to, the HEAD it left, the snapshot whose tree it checked out (a dirty checkpoint), and the copy of the changes `--force` discarded. */
    git: { commit: string; previousHead: string | null; snapshot?: string | null; saved?: string | null } | null;
  };
  /** An agent CLI's conversation (Claude Code, Codex, Gemini CLI) works on this session (`baton hook`). */
  'agent.bound': Omit<AgentBinding, 'boundAt' | 'updatedAt' | 'ended'>;
  /** The conversation ended (SessionEnd); it can still be resumed with the CLI's resume command. */
  'agent.ended': { cli: string; agentSessionId: string; reason: string | null };
  /** A sub-agent started working on a phase (or on the session when no phase is in progress). */
  'subagent.started': { phaseId: string | null; agent: string; agentId: string; agentType: string | null };
  'subagent.stopped': { phaseId: string | null; agent: string; agentId: string };
  /** The plan the agent keeps for itself (TodoWrite, update_plan, write_todos): the steps of a phase, whole each time. */
  'steps.planned': {
    phaseId: string | null;
    agent: string | null;
    steps: PlanStep[] /** The todo tool, when a hook recorded it. */;
    tool?: string;
  };
  /**
   * A LangGraph checkpoint put on this session's thread (`baton-sessions/langgraph`).
   * `checkpoint`, `metadata` and each of `blobs` (the new channel values, by channel and
   * version) are what the saver's serde wrote: `[type, base64 bytes]`, returned byte for byte.
   */
  'graph.checkpoint': {
    ns: string;
    checkpointId: string;
    parentId: string | null;
    step: number | null;
    source: string | null;
    checkpoint: [string, string];
    metadata: [string, string];
    blobs: Array<{ channel: string; version: string; value: [string, string] }>;
  };
  /** Pending writes of one LangGraph task against a checkpoint: `[channel, idx, [type, base64]]` each. */
  'graph.writes': {
    ns: string;
    checkpointId: string;
    taskId: string;
    taskPath: string;
    writes: Array<{ channel: string; idx: number; value: [string, string] }>;
  };
  /**
   * Lines of a conversation transcript mirrored by the Claude Agent SDK's session store
   * (`baton-sessions/claude-agent-sdk`): `subpath` null for the main transcript, else the
   * sub-transcript's name; `entries` as the SDK gave them; `responses` the ledger lines of
   * the responses whose tokens this batch counted (as `transcript.read`'s).
   */
  'transcript.mirrored': {
    subpath: string | null;
    agent: string;
    entries: Array<{ type: string; uuid?: string; [k: string]: unknown }>;
    responses: string;
  };
  /** A mirrored sub-transcript deleted through the session store (its lines stay in the journal). */
  'transcript.cleared': { subpath: string };
  /** Durable steps (`manager.steps`, src/domain/durable-steps.ts): a runner took a step, and how it ended. */
  'step.started': StepEventData['started'];
  'step.completed': StepEventData['completed'];
  'step.failed': StepEventData['failed'];
  'repair.torn_tail': { truncatedBytes: number; savedTo: string | null };
  'repair.unreadable_line': { raw: string; line: number };
  'repair.journal': { savedTo: string | null; unreadableLines: number[] };
  /**
   * Acknowledged events `from`…`to` were lost (a journal cut or put back from an older copy):
   * this event takes seq `to + 1`, so no lost seq is handed out again, and carries the state
   * recovered from the newest valid snapshot (null: none, the state is the journal's).
   */
  'repair.events_lost': {
    from: number;
    to: number;
    recoveredFrom: { kind: 'snapshot'; revision: number } | null;
    state: SessionState | null;
    savedTo: string | null;
  };
}

export type EventType = keyof EventDataMap;

/** Every event type baton writes. Types read from disk that are not listed are kept and ignored by `apply`. */
export const EVENT_TYPES = [
  'session.created',
  'session.paused',
  'session.resumed',
  'session.interrupted',
  'session.completed',
  'session.failed',
  'session.abandoned',
  'session.archived',
  'phase.started',
  'phase.retried',
  'phase.completed',
  'phase.failed',
  'phase.skipped',
  'substep.reached',
  'file.recorded',
  'error.recorded',
  'error.resolved',
  'tokens.recorded',
  'budget.set',
  'decision.recorded',
  'finding.added',
  'finding.removed',
  'note.added',
  'milestone.added',
  'milestone.done',
  'artifact.added',
  'context.updated',
  'metadata.set',
  'lease.acquired',
  'lease.renewed',
  'lease.released',
  'lease.expired',
  'run.started',
  'run.ended',
  'repair.torn_tail',
  'repair.unreadable_line',
  'repair.journal',
  'checkpoint.created',
  'checkpoint.restored',
  'session.pinned',
  'session.unpinned',
  'agent.bound',
  'agent.ended',
  'subagent.started',
  'subagent.stopped',
  'steps.planned',
  'budget.cost_set',
  'transcript.read',
  'repair.events_lost',
  'run.renewed',
  'phase.claimed',
  'file.conflicted',
  'mirror.conflicted',
  'phase.added',
  'phase.removed',
  'phase.updated',
  'graph.checkpoint',
  'graph.writes',
  'transcript.mirrored',
  'transcript.cleared',
  'step.started',
  'step.completed',
  'step.failed',
] as const satisfies readonly EventType[];

/** An event before it has been given a place in the journal. */
export type NewEvent = {
  [K in EventType]: { type: K; time: string; actor: Actor; data: EventDataMap[K] };
}[EventType];

/**
 * An event as stored: a {@link NewEvent} plus its `seq` (1, 2, 3 … per session). Fields
 * unknown to this version of baton are kept as read.
 */
export type StoredEvent = NewEvent & { seq: number; v?: number; [extra: string]: unknown };

/** Builds a typed new event. */
export function newEvent<K extends EventType>(type: K, data: EventDataMap[K], time: string, actor: Actor): NewEvent {
  return { type, time, actor, data } as NewEvent;
}
