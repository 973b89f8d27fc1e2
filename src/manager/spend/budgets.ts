import { assertBudget, budgetVerdict, decideBudgetPolicy } from '../../domain/spend/budget-policy.js';
import type {
  BudgetPolicy,
  BudgetScope,
  BudgetSetInput,
  BudgetVerdict,
  OnExceed,
} from '../../domain/spend/budget-policy.js';
import { costReport } from '../../domain/spend/cost.js';
import type { CostReport } from '../../domain/spend/cost.js';
import { BatonError } from '../../domain/errors.js';
import type { PricingTable } from '../../domain/spend/pricing.js';
import type { SessionState } from '../../domain/state.js';
import type { ChangeOptions, ChangeResult, ManagerCore, TimedDraft } from '../types.js';

/** A session's budgets as set: the session's own, and those of phases and agents. */
export interface BudgetPolicies {
  session: BudgetPolicy;
  phases: Record<string, BudgetPolicy>;
  agents: Record<string, BudgetPolicy>;
}

/** What `budgets.get` answers: the policies and where the use stands against them. */
export interface BudgetReport {
  sessionId: string;
  policies: BudgetPolicies;
  verdict: BudgetVerdict;
}

/** The policies a session holds. */
export function policiesOf(s: SessionState): BudgetPolicies {
  const t = s.tokens;
  return {
    session: { tokens: t.budgetMax, usd: t.costBudgetUsd ?? null, onExceed: (t.onExceed ?? 'warn') as OnExceed },
    phases: { ...(t.phaseBudgets ?? {}) },
    agents: { ...(t.agentBudgets ?? {}) },
  };
}

/**
 * Budget policies (`manager.budgets`, docs/budgets.md): set one (a `budget.set` event, so
 * raising a budget lets refused work go on), read them with the use against each, and judge
 * what they ask for. The cost side uses the pricing table in effect; an unusable pricing file
 * leaves the dollar budgets unjudged rather than refusing every change.
 */
export class Budgets {
  constructor(private readonly m: ManagerCore) {}

  /** Sets the session's budget, or a phase's or an agent's (fields left out are unchanged). */
  set(id: string, input: BudgetSetInput, o: ChangeOptions = {}): Promise<ChangeResult<undefined>> {
    return this.m.change(id, (s) => ({ events: decideBudgetPolicy(s, input), result: undefined }), o);
  }

  /** The session's budgets and where its use stands against them. */
  async get(id: string): Promise<BudgetReport> {
    const s = await this.m.get(id);
    return this.report(s);
  }

  /** {@link get} for a state already read. */
  report(s: SessionState, scope?: BudgetScope): BudgetReport {
    return { sessionId: s.id, policies: policiesOf(s), verdict: budgetVerdict(s, this.cost(s), scope) };
  }

  /** What the budgets of the session (and of `scope`'s phase and agent) ask for now. */
  verdict(s: SessionState, scope?: BudgetScope): BudgetVerdict {
    return budgetVerdict(s, this.cost(s), scope);
  }

  /** Throws `BUDGET_EXCEEDED` when `drafts` start new work past a `stop` budget (the manager's write guard). */
  guard(s: SessionState, drafts: readonly TimedDraft[], agent: string | null): void {
    assertBudget(s, drafts, agent, () => this.cost(s));
  }

  private cost(s: SessionState): CostReport | null {
    return costIfBudgeted(s, () => this.m.pricing());
  }
}

/** What a run (`runs.hold`, `baton run`) is over: the verdict of the session's budgets and those of its phase and agent. */
export function runVerdict(
  s: SessionState,
  pricing: () => PricingTable,
  agent: string | null,
  phase: string | null,
): BudgetVerdict {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  const scope = { phase: phase ?? (running.length === 1 ? running[0]!.id : null), agent };
  return budgetVerdict(s, costIfBudgeted(s, pricing), scope);
}

/** The cost report when some budget is in dollars (else null: no need to price anything). */
function costIfBudgeted(s: SessionState, pricing: () => PricingTable): CostReport | null {
  const t = s.tokens;
  const usd =
    (t.costBudgetUsd ?? null) !== null ||
    Object.values(t.phaseBudgets ?? {}).some((p) => p.usd !== null) ||
    Object.values(t.agentBudgets ?? {}).some((p) => p.usd !== null);
  if (!usd) return null;
  try {
    return costReport(s, pricing());
  } catch (e) {
    if (e instanceof BatonError) return null;
    throw e;
  }
}
