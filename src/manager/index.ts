/**
 * The one door of the manager layer: every surface (`src/cli`, `src/mcp`, hooks, dashboards)
 * imports this file and nothing else of ours, types included (docs/architecture.md). It
 * re-exports the manager, the views and renderers surfaces show, and the types they name.
 *
 * Keep it light: the CLI loads it on every start. Heavy code (foreign layouts, the plan
 * schema) is reached through functions here that load it on first use.
 */

// Errors: one code per failure, the one mapping of OS errors to codes.
export { BatonError, isBatonError } from '../domain/errors.js';
export type { ErrorCode } from '../domain/errors.js';
// Hints: what a refusal suggests, as data; each surface words it (cli/ and mcp/hint-words.ts).
export { hint, isHint } from '../domain/hints.js';
export type { Hint, HintAction, HintArgs } from '../domain/hints.js';
export { toBatonError } from './os-errors.js';

// The session model and the views of it surfaces render.
export { SESSION_STATUSES } from '../domain/state.js';
export { agentName } from '../domain/agents/agent-name.js';
export type { FileAction, Phase, PhaseStatus, SessionState, SessionStatus } from '../domain/state.js';
export type { PhaseSpec, StoredEvent } from '../domain/events.js';
export { EVENT_TYPES } from '../domain/events.js';
export type { SessionSummary } from '../domain/summary.js';
export type { PhaseAction } from '../domain/transitions.js';
export { parseIdFormat } from '../domain/ids.js';
export { findPhase, MAX_TEXT } from '../domain/decide.js';
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LEASE_TTL_MS,
  effectiveStatus,
  goneText,
  leaseOf,
} from '../domain/runs/lease.js';
export type { GoneHolder, Lease } from '../domain/runs/lease.js';
export { budgetAlarming, budgetView } from '../domain/toolkits/tokens.js';
export { sessionBudget, toolkitTokenNotes } from '../domain/toolkits/toolkit-tokens.js';
export type { TokenCounts } from '../domain/state.js';
// Cost: prices per million tokens (built in, overridable) and the estimated cost of token use.
export { costReport, costShown, formatCost, formatCostBudget, formatUsd, NO_MODEL } from '../domain/spend/cost.js';
export type { Cost, CostBudgetView, CostReport } from '../domain/spend/cost.js';
export { stepOutcome } from '../domain/durable-steps.js';
export type { StepView } from '../domain/durable-steps.js';
export { BUILTIN_PRICING, PRICING_AS_OF } from '../domain/spend/pricing.js';
export { spendByHost, tokensLowerBound, UNKNOWN_HOST } from '../domain/spend/spend-views.js';
export type { HostSpend, LowerBound } from '../domain/spend/spend-views.js';
export { formatResumeCost, parseCacheTtl, resumeCost } from '../domain/spend/resume-cost.js';
export type { CacheTtl, LastTurn, ResumeCost } from '../domain/spend/resume-cost.js';
export type { ModelPrice, PricingTable } from '../domain/spend/pricing.js';
export { changeView, startablePhases, statusView } from '../domain/view.js';
export type { ChangeView } from '../domain/view.js';
export { DEFAULT_OLDER_THAN, parseAge, parseCleanupStatuses } from '../domain/retention.js';
export { renderResumePlan } from '../domain/resume/render-resume.js';

// The manager and how a surface opens it.
export { SessionManager } from './manager.js';
export { keptListJson } from './list-json.js';
export type { ChangeOptions, ChangeResult, ManagerOptions } from './manager.js';
export type { PhaseAddInput, PhaseUpdateInput } from './plan-changes.js';
export { initStore, initStoreUrl, openManager, openStoreAt } from './open.js';
export type { OpenManagerOptions, RepairReport } from './open.js';
export type { DerivedFilesOptions } from './types.js';

// What the manager's sub-objects and methods return.
export type { CheckpointInfo } from './checkpoints/checkpoint-lookup.js';
export type { CheckpointDetail } from './checkpoints/checkpoints.js';
export type { MirrorCreate, MirrorInput, MirrorResult } from './agents/transcript-mirror.js';
export type { TranscriptEntry } from '../domain/agents/mirrored-transcript.js';
export { corrupt as corruptCheckpoint } from './checkpoints/checkpoint-lookup.js';
export type { Claim } from './runs/claim.js';
// Runs: one worker's attempt on a session (docs/runs.md).
export {
  RUN_HEARTBEAT_MS,
  RUN_TTL_MS,
  liveRuns,
  runLabel,
  runLive,
  runPhasesInFlight,
  runsOf,
  runsView,
} from '../domain/runs/runs.js';
export type { Liveness, Run, RunEndInput, RunKind, RunProcess, RunView, Salvage } from '../domain/runs/runs.js';
export type { Salvager, StartRunOptions } from './runs/runs.js';
export type { RunSegment } from '../domain/runs/run-segments.js';
export type { EndOf, HeldRun, HoldOptions, HoldOutcome } from './runs/run-hold.js';
export type { Orphan, OrphanOptions } from './runs/orphans.js';
export type { DoctorProblem, DoctorReport } from './upkeep/doctor-codes.js';
export type { CleanupAction, Tombstone } from './upkeep/retention.js';
export type { OnProgress, Progress } from './progress.js';
export type { SessionChange } from './watch.js';
export { MAX_PAGE } from './dashboard.js';
export type {
  DashboardHolder,
  DashboardRow,
  EventsPage,
  MoneyText,
  EventsQuery,
  ResumeView,
  SessionPage,
  SessionsPage,
  SessionsQuery,
} from './dashboard.js';
export type { Attempt, AttemptOutcome, TokenSeries } from '../domain/history.js';
export type { BudgetView } from '../domain/toolkits/tokens.js';
export type { EscalationChoice, ResumePlan } from '../domain/resume/resume-plan-types.js';
export { ESCALATION_CHOICES } from '../domain/resume/resume-plan-types.js';
export type { IngestInput, IngestResult } from './agents/transcripts.js';
export type { TranscriptCli } from '../domain/agents/transcript-usage.js';
export { TRANSCRIPT_CLIS } from '../domain/agents/transcript-usage.js';
export { migrateStore } from './upkeep/migrate.js';
export type { Cursors } from './cursors.js';
// Sessions as traces (`baton otel`, src/otel): the pure mapping from a journal to spans.
export { planTrace } from '../domain/telemetry/trace-plan.js';
export type { SpanAttributes, SpanEventPlan, SpanPlan, TracePlan } from '../domain/telemetry/trace-plan.js';
export type { MigrateResult } from './upkeep/migrate.js';

// Plans: the phases a session starts with.
export { phasesFromList, phasesOfPlan, planFileMetadata, readPlanFile } from './plan-file.js';
export type { PlanFile } from './plan-file.js';

// Foreign session layouts (loaded on first use) and mirrors.
export { checkMirrorSetting, Formats, importIsIncomplete } from './toolkits/foreign-formats.js';
export { Bundles, bundleHandoff } from './bundles/bundle.js';
export type { BundleExportResult, BundleImportOptions, BundleImportResult, BundleOptions } from './bundles/bundle.js';
export type { ExportResult, ImportResult, InspectResult } from './toolkits/formats.js';
export type { ForeignSession, FormatProblem, UnitStatus } from '../formats/types.js';
export { MIRROR_ERROR_KEY, MIRROR_KEY, mirrorOf } from './toolkits/mirror.js';
export type { MirrorSetting } from './toolkits/mirror.js';

// Agent CLI hooks (`baton hook`, src/hooks): the manager's part, the hook log, agent sessions.
export type { AgentContext, BindingSource, ResolveOptions } from './agents/agent-hooks.js';
export {
  hookDir,
  writeHookLog,
  readHookProblems,
  acknowledgeHookProblems,
  HOOK_LOG_FILE,
  MAX_LOG_BYTES,
} from './agents/hook-log.js';
export type { HookLogLine, HookProblems } from './agents/hook-log.js';
export { locateStore } from '../store/open.js';
export { continueWith, resumeCommand, resumeStep, stepsText, AGENT_CLIS } from '../domain/agents/agent-sessions.js';
export type { ContinueWith } from '../domain/agents/agent-sessions.js';
export { BRIEFING_MAX_CHARS } from '../domain/resume/agent-briefing.js';
export { budgetName, budgetUse, ON_EXCEED } from '../domain/spend/budget-policy.js';
export type {
  BudgetCheck,
  BudgetPolicy,
  BudgetSetInput,
  BudgetVerdict,
  OnExceed,
} from '../domain/spend/budget-policy.js';
export type { BudgetPolicies, BudgetReport } from './spend/budgets.js';
export { gateToolCall } from './spend/budget-gate.js';
export type { ToolGate } from './spend/budget-gate.js';
