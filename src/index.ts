/**
 * baton as a library (`baton-sessions`): one way in. `openManager()` opens a store and returns
 * the manager; every operation is a method of it (`manager.start`, `manager.phase` …) or of one
 * of its sub-objects (`manager.checkpoints`, `leases`, `runs`, `claims`, `recovery`, `formats`,
 * `maintenance`, `derivedFiles`, `cursors`, `transcripts`, `dashboard`, `hooks`). Besides it:
 * the errors it throws, hints as data, and the types its methods name. The pure helpers under
 * the manager (fold, views, pricing, resume planning) are `baton-sessions/domain`; the store
 * conformance suite is `baton-sessions/testing`. This entry imports no surface (CLI, MCP …).
 */

// The way in.
export { openManager } from './manager/open.js';
export type { OpenManagerOptions } from './manager/open.js';
// A type only: build the manager with openManager(), never with `new`.
export type { SessionManager } from './manager/manager.js';
export type { StartInput, ChangeOptions, ChangeResult, ListFilter } from './manager/manager.js';
export type { DerivedFilesOptions } from './manager/types.js';

// Errors: one stable code per failure; the way out as data (`BatonError.hintAction`).
export { BatonError, ERROR_CODES, isBatonError } from './domain/errors.js';
export type { ErrorCode } from './domain/errors.js';
export { hint, isHint } from './domain/hints.js';
export type { Hint, HintAction, HintArgs } from './domain/hints.js';

// A session's state, as the manager's methods return it.
export type {
  SessionState,
  SessionStatus,
  Phase,
  PhaseStatus,
  FileAction,
  FileRecord,
  ErrorRecord,
  Decision,
  Finding,
  Note,
  Milestone,
  Artifact,
  TokenCounts,
  TokenUsage,
  Lease,
  Run,
  RunKind,
  RunEnd,
} from './domain/state.js';
export type { Actor, PhaseSpec, StoredEvent } from './domain/events.js';
export type { SessionSummary } from './domain/summary.js';
// Typed session settings: read with settingsOf(state), written with manager.setSettings.
export { settingsOf } from './domain/settings.js';
export type { SessionSettings, SettingValues, SettingName } from './domain/settings.js';

// What the sub-objects take and return.
export type { CheckpointInfo } from './manager/checkpoints/checkpoint-lookup.js';
export type { CheckpointDetail, RestoreResult } from './manager/checkpoints/checkpoints.js';
export type { AcquireOptions } from './manager/runs/leases.js';
export type { StartRunOptions } from './manager/runs/runs.js';
export type { StepOptions, StepContext } from './manager/steps.js';
export type { StartOrGetInput } from './manager/start-or-get.js';
export type { Claim } from './manager/runs/claim.js';
export type { ResumePlan, EscalationChoice } from './domain/resume/resume-plan-types.js';
export type { AppliedResume, ApplyOptions } from './manager/resume/resume.js';
export type {
  FormatsOptions,
  InspectResult,
  ImportOptions,
  ImportResult,
  ImportedSession,
  ExportOptions,
  ExportResult,
} from './manager/toolkits/formats.js';
export type { MirrorSetting } from './manager/toolkits/mirror.js';
export type { FormatName, FormatProblem, ForeignSession } from './formats/types.js';
export type { DoctorReport } from './manager/upkeep/doctor-codes.js';
export type { CleanupOptions, CleanupResult, Tombstone } from './manager/upkeep/retention.js';
export type { IngestInput, IngestResult } from './manager/agents/transcripts.js';
export type { TranscriptCli } from './domain/agents/transcript-usage.js';
export type { Cost, CostReport } from './domain/spend/cost.js';
export type { OnProgress } from './manager/progress.js';

// Stores: a store of your own goes to openManager({ store }).
export type { SessionStore, StoreCapabilities, RepairReport } from './store/types.js';
