/** baton as a library: open a store, drive sessions through the manager. */
export { BatonError, ERROR_CODES, isBatonError } from './domain/errors.js';
export type { ErrorCode } from './domain/errors.js';
/** Hints as data (an action and its arguments, `BatonError.hintAction`) and the CLI's words for them (what `BatonError.hint` held before). */
export { hint, isHint } from './domain/hints.js';
export type { Hint, HintAction, HintArgs } from './domain/hints.js';
export { cliHint, cliWords } from './cli/hint-words.js';
/** Typed session settings, read from a session's state; written with `SessionManager.setSettings`. */
export { settingsOf, SETTING_KEYS } from './domain/settings.js';
export type { SessionSettings, SettingValues, SettingName, PlanFileSetting, MirrorSettingValue } from './domain/settings.js';
export * from './domain/events.js';
export * from './domain/state.js';
export { apply, fold, DEFAULT_MAX_RETRIES } from './domain/apply.js';
export { PHASE_TRANSITIONS, SESSION_TRANSITIONS } from './domain/transitions.js';
export { generateId, validateId, ID_FORMATS } from './domain/ids.js';
export { parsePlan, phasesFromList } from './domain/plan.js';
export { statusView } from './domain/view.js';
export { summarize } from './domain/summary.js';
export type { SessionSummary } from './domain/summary.js';
export { budgetView, budgetLevel } from './domain/tokens.js';
/* Cost: prices per million tokens (built in, overridable), and token use turned into an estimated cost. */
export { BUILTIN_PRICING, PRICING_AS_OF, applyPricingOverride, costOf, priceOf, modelIds } from './domain/pricing.js';
export type { ModelPrice, PricingTable } from './domain/pricing.js';
export { costReport, costBudgetView, formatCost, NO_MODEL } from './domain/cost.js';
export type { Cost, CostReport, CostBudgetView } from './domain/cost.js';
export { loadPricing, PRICING_FILE_NAME } from './manager/pricing-file.js';
/* Token use read from agent CLI transcripts (`manager.transcripts.ingest`). */
export { Transcripts } from './manager/transcripts.js';
export type { IngestInput, IngestResult } from './manager/transcripts.js';
export { TRANSCRIPT_CLIS, usageFromLines, usageFromGeminiJson } from './domain/transcript-usage.js';
export type { TranscriptCli, UsageRecord, UsageTuple, ReaderContext } from './domain/transcript-usage.js';
export { countResponses } from './domain/ingest.js';
export { SessionManager } from './manager/manager.js';
export type { CleanupAction, CleanupOptions, CleanupResult, Tombstone } from './manager/retention.js';
export { CLEANUP_STATUSES, parseAge } from './domain/retention.js';
export type { ManagerOptions, StartInput, ChangeOptions, ChangeResult } from './manager/manager.js';
/* Durable steps (`manager.steps.run`), find-or-create by key (`manager.startOrGet`), caller metadata (`manager.setMetadata`): docs/steps.md. */
export { Steps } from './manager/steps.js';
export type { StepOptions, StepContext } from './manager/steps.js';
export type { StartOrGetInput } from './manager/start-or-get.js';
export { sessionIdForKey } from './manager/start-or-get.js';
export { stepsView, STEP_INLINE_MAX } from './domain/durable-steps.js';
export type { DurableStep, StepView, StepRunner, StepError, StepResultRef } from './domain/durable-steps.js';
export type { DerivedFilesOptions } from './manager/types.js';
export { fileMeasurer } from './manager/measure.js';
export { openStore, MemoryStore, FileStore, PostgresStore } from './store/open.js';
export type { PostgresStoreOptions } from './store/open.js';
export type { SessionStore, LoadResult, RepairReport, Snapshot, StoreCapabilities } from './store/types.js';
export type { StoreMaintenance, StoreWatch, StoreServerClock, StoreSessionFiles, StoreLocalDirectory, StoreDoctorResult, StoreStepResults } from './store/types.js';
export type { Checkpoint, CheckpointRead, CheckpointGit, CheckpointFile } from './store/types.js';
export { openManager, initStore } from './manager/open.js';
export type { OpenManagerOptions } from './manager/open.js';
export { Workspace } from './manager/workspace.js';
export { acquireLease, renewLease, releaseLease, recordRunEnd } from './manager/leases.js';
export { resumePlan, applyResume } from './manager/resume.js';
export { effectiveStatus, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_TTL_MS } from './domain/lease.js';
export { planResume } from './domain/plan-resume.js';
export { renderResumePlan } from './domain/render-resume.js';
export type { ResumePlan, ResumeInput } from './domain/resume-plan-types.js';
export { renderHandoff } from './domain/handoff.js';

/*
 * Foreign session layouts (docs/formats.md): read a toolkit's folder (inspectPath), turn its
 * sessions into baton sessions or bring them forward (importPath), write a session in a
 * layout (exportSession) and keep it written after every change (setMirror + MirrorFiles).
 * Each function states its contract in its JSDoc; the CLI's inspect/import/export/mirror are
 * thin wrappers over them.
 */
export {
  inspectPath,
  importPath,
  importIncomplete,
  exportSession,
  setMirror,
  mirrorSetting,
  rewriteMirror,
  mirrorOf,
  MIRROR_KEY,
  MIRROR_ERROR_KEY,
} from './manager/formats.js';
export type {
  FormatsOptions,
  InspectResult,
  ImportOptions,
  ImportResult,
  ImportedSession,
  ExportOptions,
  ExportResult,
  MirrorRecord,
  MirrorSetting,
} from './manager/formats.js';
export { MIRROR_WRITTEN_KEY, MIRROR_RECORD_FILE } from './manager/mirror.js';
export { MirrorFiles } from './manager/mirror-files.js';
export type { MirrorOutcome } from './manager/mirror-files.js';
/** The adapters baton knows (`--format` names), and the one for a name. */
export { ADAPTERS, adapterFor } from './formats/registry.js';
export { FORMAT_NAMES, PROBLEM_CODES } from './formats/types.js';
export type { FormatAdapter, FormatName, FormatProblem, ForeignSession, ForeignUnit, InspectReport, ResumeAdvice, WritePlan, ExportInput } from './formats/types.js';
export { provenanceOf, PROVENANCE_KEY } from './formats/import.js';
export type { Provenance } from './formats/import.js';
