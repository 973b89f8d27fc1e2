import { effectiveStatus, leaseOf } from './runs/lease.js';
import { runsView } from './runs/runs.js';
import type { RunView } from './runs/runs.js';
import { resumeCommand } from './agents/agent-sessions.js';
import type { AgentBinding, FileRecord, Lease, PlanStep, SessionState, SubagentRecord } from './state.js';
import { costReport } from './spend/cost.js';
import type { CostReport } from './spend/cost.js';
import type { PricingTable } from './spend/pricing.js';
import { isolation, sessionBudget, toolkitTokenNotes, writtenTotals } from './toolkits/toolkit-tokens.js';
import type { IsolationView } from './toolkits/toolkit-tokens.js';
import type { WrittenCounts } from './toolkits/toolkit-rules.js';
import { stepsView, type StepView } from './durable-steps.js';
import type { BudgetView } from './toolkits/tokens.js';

/**
 * What every change answers, on the CLI (`--json`) and over MCP alike: the session, its
 * revision and its status after the change. Each command adds its own fields beside these
 * (the new record's id, the phase, the files recorded …).
 */
export interface ChangeView {
  session: string;
  revision: number;
  status: SessionState['status'];
}

/** The {@link ChangeView} of a session's state after a change. */
export function changeView(s: SessionState): ChangeView {
  return { session: s.id, revision: s.revision, status: s.status };
}

/** The stable `status --json` shape (a superset of the documented minimum). */
export interface StatusView {
  id: string;
  title: string;
  status: SessionState['status'];
  cause: SessionState['statusCause'];
  archived: boolean;
  /** Never touched by `baton cleanup`. */
  pinned: boolean;
  revision: number;
  createdAt: string;
  updatedAt: string;
  progress: { done: number; total: number; percent: number };
  phases: Array<SessionState['phases'][number]>;
  /** Files recorded outside any phase; absent when none. */
  looseFiles?: FileRecord[];
  /** Token use; `cost` (estimated, by agent, phase and model, with the cost budget) when a pricing table was given. */
  tokens: SessionState['tokens'] extends infer T
    ? Omit<T & object, 'budgetMax' | 'costBudgetUsd' | 'byHost'> & { budget: BudgetView; cost?: CostReport }
    : never;
  unresolvedErrors: Array<{
    id: string;
    phaseId: string;
    type: string;
    message: string;
    agent: string | null;
    time: string;
  }>;
  decisions: SessionState['decisions'];
  findings: SessionState['findings'];
  notes: SessionState['notes'];
  milestones: SessionState['milestones'];
  artifacts: SessionState['artifacts'];
  contextSummary: string | null;
  metadata: Record<string, unknown>;
  repairs: SessionState['repairs'];
  /** The current lease (who runs the session, until when), or null. */
  lease: Lease | null;
  /** The session's runs (workers), live and past; absent when it never had one. */
  runs?: RunView[];
  /** Agent CLI conversations bound by hooks, with the command that continues each; absent when none. */
  agentSessions?: Array<AgentBinding & { command: string | null }>;
  /** Sub-agents hooks saw; absent when none. */
  subagents?: SubagentRecord[];
  /** The agent's own plan when no phase was in progress; absent when none. */
  steps?: PlanStep[];
  /** Durable steps (`manager.steps`) with their status, attempts and result size; absent when none. */
  durableSteps?: StepView[];
  /**
   * The tokens as the session's toolkit counts them, where that differs from baton
   * (toolkit-tokens.ts): the totals it wrote (null when they agree with its breakdown), its
   * main session and isolated agents with the savings (null when it does not isolate), and
   * what to say about them; absent for a session not imported or counted as baton does.
   */
  toolkitTokens?: {
    written: WrittenCounts | null;
    isolation: IsolationView | null;
    warnings: string[];
    lines: string[];
  };
}

/**
 * Builds the status view of a session. With `now`, a session whose lease expired reads as
 * `interrupted` (cause `lease-expired`), as every reader must report it. With `pricing`,
 * token use carries its estimated cost.
 */
export function statusView(
  s: SessionState,
  now?: string,
  pricing?: PricingTable,
  dead?: ReadonlySet<string>,
  orphans?: ReadonlyMap<string, number>,
): StatusView {
  // `dead`: runs found gone by a process check on this host; `orphans`: their commands still running (manager.runs.liveness).
  const eff = now ? effectiveStatus(s, now, dead) : { status: s.status, cause: s.statusCause };
  const done = s.phases.filter((p) => p.status === 'completed' || p.status === 'skipped').length;
  // By host is `baton tokens --by host`'s (with its cost); status keeps to the session's own dimensions.
  const { budgetMax: _omit, costBudgetUsd: _omitCost, byHost: _omitHosts, ...tokens } = s.tokens;
  return {
    id: s.id,
    title: s.title,
    status: eff.status,
    cause: eff.cause,
    archived: s.archived,
    pinned: s.pinned === true,
    revision: s.revision,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    progress: {
      done,
      total: s.phases.length,
      percent: s.phases.length ? Math.round((done / s.phases.length) * 100) : 0,
    },
    phases: s.phases,
    ...(s.looseFiles?.length ? { looseFiles: s.looseFiles } : {}),
    tokens: { ...tokens, budget: sessionBudget(s), ...(pricing ? { cost: costReport(s, pricing) } : {}) },
    unresolvedErrors: s.phases.flatMap((p) =>
      p.errors
        .filter((e) => !e.resolved)
        .map((e) => ({ id: e.id, phaseId: p.id, type: e.type, message: e.message, agent: e.agent, time: e.time })),
    ),
    decisions: s.decisions,
    findings: s.findings.filter((f) => !f.removed),
    notes: s.notes,
    milestones: s.milestones,
    artifacts: s.artifacts,
    contextSummary: s.contextSummary,
    metadata: s.metadata,
    repairs: s.repairs,
    lease: leaseOf(s),
    // Only sessions that had runs show them: older views are unchanged.
    ...(s.runs?.length
      ? { runs: runsView(s, { now: now ?? s.updatedAt, ...(dead ? { dead } : {}), ...(orphans ? { orphans } : {}) }) }
      : {}),
    ...(s.agentSessions?.length
      ? { agentSessions: s.agentSessions.map((b) => ({ ...b, command: resumeCommand(b.cli, b.agentSessionId) })) }
      : {}),
    ...(s.subagents?.length ? { subagents: s.subagents } : {}),
    ...(s.steps?.length ? { steps: s.steps } : {}),
    ...(s.durableSteps?.length ? { durableSteps: stepsView(s) } : {}),
    ...toolkitTokensView(s),
  };
}

function toolkitTokensView(s: SessionState): Pick<StatusView, 'toolkitTokens'> {
  const notes = toolkitTokenNotes(s);
  if (!notes.lines.length && !notes.warnings.length) return {};
  return { toolkitTokens: { written: writtenTotals(s), isolation: isolation(s), ...notes } };
}

/**
 * Phases a `phase start` would accept now: pending ones whose blockers are completed or
 * skipped, and failed ones with retries left, in plan order. Offered in hints after a refused
 * phase verb, so an agent knows what it may do instead.
 */
export function startablePhases(s: SessionState): string[] {
  if (s.status !== 'active' || s.archived) return [];
  const settled = (id: string): boolean => {
    const p = s.phases.find((x) => x.id === id);
    return p !== undefined && (p.status === 'completed' || p.status === 'skipped');
  };
  return s.phases
    .filter(
      (p) =>
        (p.status === 'pending' && p.blockedBy.every(settled)) ||
        (p.status === 'failed' && p.retryCount < p.maxRetries && p.blockedBy.every(settled)),
    )
    .map((p) => p.id);
}
