/**
 * `baton-sessions/domain`: the pure helpers under the manager, for programs that work on a
 * session's state or events themselves (fold a journal, render a view, price token use, plan a
 * resume). No I/O, clock or environment: what they need is passed in. The way to change a
 * session is still the manager (`openManager` from `baton-sessions`); nothing here writes.
 */
// The session model: events, the state they fold into, and the fold.
export * from './events.js';
export * from './state.js';
export { apply, fold, DEFAULT_MAX_RETRIES } from './apply.js';
export { PHASE_TRANSITIONS, SESSION_TRANSITIONS } from './transitions.js';
export { generateId, validateId, ID_FORMATS } from './ids.js';
export { effectiveStatus, DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_TTL_MS } from './runs/lease.js';
export { CLEANUP_STATUSES, parseAge } from './retention.js';
// Plans: the phases a session starts with.
export { parsePlan, phasesFromList } from './plan.js';
export type { Plan } from './plan.js';
// Views and renderings of a state.
export { statusView } from './view.js';
export type { StatusView } from './view.js';
export { summarize } from './summary.js';
export { budgetView, budgetLevel } from './toolkits/tokens.js';
export type { BudgetLevel, BudgetView } from './toolkits/tokens.js';
export { planResume } from './resume/plan-resume.js';
export type { ResumeInput, GitCopy } from './resume/resume-plan-types.js';
export { ESCALATION_CHOICES } from './resume/resume-plan-types.js';
export { renderResumePlan } from './resume/render-resume.js';
export { renderHandoff } from './resume/handoff.js';
export type { HandoffInput } from './resume/handoff.js';
// Cost: prices per million tokens (built in, overridable), and token use turned into an estimated cost.
export { BUILTIN_PRICING, PRICING_AS_OF, applyPricingOverride, costOf, priceOf, modelIds } from './spend/pricing.js';
export type { ModelPrice, PricingTable } from './spend/pricing.js';
export { costReport, costBudgetView, formatCost, NO_MODEL } from './spend/cost.js';
export type { Cost, CostReport, CostBudgetView } from './spend/cost.js';
export { spendByHost, tokensLowerBound } from './spend/spend-views.js';
export type { HostSpend, LowerBound } from './spend/spend-views.js';
export { resumeCost, parseCacheTtl, formatResumeCost } from './spend/resume-cost.js';
export type { CacheTtl, ResumeCost } from './spend/resume-cost.js';
// Token use read from agent CLI transcripts (the manager's part: `manager.transcripts.ingest`).
export { TRANSCRIPT_CLIS, usageFromLines, usageFromGeminiJson } from './agents/transcript-usage.js';
export type { TranscriptCli, UsageRecord, UsageTuple, ReaderContext } from './agents/transcript-usage.js';
export { countResponses } from './agents/ingest.js';
// Runs (docs/runs.md): which are live, the status they give the session, where a record goes.
export { claimablePhases, liveRuns, recordPhase, runLabel, runLive, runsStatus } from './runs/runs.js';
export type { Liveness, Salvage } from './runs/runs.js';
export { runSegments } from './runs/run-segments.js';
export type { RunSegment } from './runs/run-segments.js';
// Durable steps (docs/steps.md): the view status shows, and the largest result kept in the journal.
export { stepsView, STEP_INLINE_MAX } from './durable-steps.js';
export type { DurableStep, StepView } from './durable-steps.js';
