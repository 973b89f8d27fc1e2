/**
 * Estimated cost of a session's token use, by agent, phase and model, where it stands
 * against the cost budget (set with the other budgets, budget-policy.ts). Computed when shown,
 * from the pricing table in effect then, so a corrected price applies to past records too.
 * Tokens of a model the table does not know (or recorded without a model) are never priced by
 * a guess: the cost says which are missing.
 */
import { costOf, priceOf } from './pricing.js';
import type { PricingTable } from './pricing.js';
import type { ModelCell, SessionState, TokenCounts } from '../state.js';
import { budgetLevel } from '../toolkits/tokens.js';
import type { BudgetLevel } from '../toolkits/tokens.js';

/** Model name shown for token records that named no model. */
export const NO_MODEL = '(no model)';

/** An estimated cost in US dollars. */
export interface Cost {
  /** The whole cost; null when some tokens could not be priced (see `unpriced`). */
  usd: number | null;
  /** The part that could be priced: the whole cost, or a lower bound when `usd` is null. */
  pricedUsd: number;
  /** Tokens without a price (input + output + cache reads + cache writes), and their models. */
  unpriced: { tokens: number; models: string[] };
}

/** The cost budget: levels as for the token budget (warning from 80 %, critical from 95 %). */
export interface CostBudgetView {
  maxUsd: number | null;
  /** Priced cost so far (a lower bound when `complete` is false). */
  usedUsd: number;
  percent: number | null;
  level: BudgetLevel;
  /** False when some tokens could not be priced, so the real use may be higher. */
  complete: boolean;
}

/** Cost of a session: in total and by agent, phase and model. */
export interface CostReport {
  total: Cost;
  byAgent: Record<string, Cost>;
  byPhase: Record<string, Cost>;
  byModel: Record<string, Cost>;
  budget: CostBudgetView;
}

function all(c: TokenCounts): number {
  return c.input + c.output + c.cached + (c.cacheWrite ?? 0);
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** Prices the cells (tokens by model) of one group whose token total is `total`; tokens in no cell are unpriced. */
export function groupCost(
  total: TokenCounts,
  cells: ReadonlyArray<TokenCounts & Pick<ModelCell, 'model'>>,
  table: PricingTable,
): Cost {
  let priced = 0;
  let pricedTokens = 0;
  let cellTokens = 0;
  const models = new Set<string>();
  for (const c of cells) {
    cellTokens += all(c);
    const price = priceOf(table, c.model);
    if (price) {
      priced += costOf(c, price);
      pricedTokens += all(c);
    } else if (all(c) > 0) {
      models.add(c.model);
    }
  }
  if (all(total) - cellTokens > 0) models.add(NO_MODEL);
  const unpricedTokens = Math.max(0, all(total) - pricedTokens);
  const pricedUsd = round(priced);
  return {
    usd: unpricedTokens === 0 ? pricedUsd : null,
    pricedUsd,
    unpriced: { tokens: unpricedTokens, models: [...models].sort() },
  };
}

/** The cost budget against a total cost. */
export function costBudgetView(maxUsd: number | null | undefined, total: Cost): CostBudgetView {
  const complete = total.usd !== null;
  if (maxUsd === null || maxUsd === undefined)
    return { maxUsd: null, usedUsd: total.pricedUsd, percent: null, level: 'none', complete };
  const ratio = total.pricedUsd / maxUsd;
  return {
    maxUsd,
    usedUsd: total.pricedUsd,
    percent: Math.round(ratio * 1000) / 10,
    level: budgetLevel(ratio),
    complete,
  };
}

/** The cost report of a session under a pricing table. */
export function costReport(s: SessionState, table: PricingTable): CostReport {
  const t = s.tokens;
  const cells = Object.values(s.modelCells ?? {});
  const byAgent: Record<string, Cost> = {};
  for (const [agent, counts] of Object.entries(t.byAgent))
    byAgent[agent] = groupCost(
      counts,
      cells.filter((c) => c.agent === agent),
      table,
    );
  const byPhase: Record<string, Cost> = {};
  for (const [phase, counts] of Object.entries(t.byPhase))
    byPhase[phase] = groupCost(
      counts,
      cells.filter((c) => c.phaseId === phase),
      table,
    );
  const byModel: Record<string, Cost> = {};
  for (const [model, counts] of Object.entries(t.byModel ?? {}))
    byModel[model] = groupCost(
      counts,
      cells.filter((c) => c.model === model),
      table,
    );
  const total = groupCost(t, cells, table);
  return { total, byAgent, byPhase, byModel, budget: costBudgetView(t.costBudgetUsd, total) };
}

/**
 * Whether a cost is worth showing to people: some record named its model, or a cost budget is
 * set. Without either, every cost is unknown and the line would only repeat that.
 */
export function costShown(s: SessionState): boolean {
  return Object.keys(s.tokens.byModel ?? {}).length > 0 || (s.tokens.costBudgetUsd ?? null) !== null;
}

/**
 * An amount of US dollars for people, as every surface shows money: cents (`$1.00`), or four
 * decimals below a cent so a small cost does not read as nothing (`$0.0042`).
 */
export function formatUsd(n: number): string {
  return `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;
}

/** The use of a cost budget for people, as `baton status` prints it: `$0.50/$2.00 (25%)`. */
export function formatCostBudget(b: CostBudgetView): string {
  return `$${b.usedUsd.toFixed(2)}/$${(b.maxUsd ?? 0).toFixed(2)} (${b.percent}%)`;
}

/** A cost for people: `$1.23`, `≥ $1.23 (…)`, or `unknown (…)`. */
export function formatCost(c: Cost): string {
  const usd = formatUsd(c.pricedUsd);
  if (c.usd !== null) return usd;
  const why = `${c.unpriced.tokens.toLocaleString('en-US')} tokens of ${c.unpriced.models.join(', ')} not priced`;
  return c.pricedUsd > 0 ? `at least ${usd} (${why})` : `unknown (${why})`;
}
