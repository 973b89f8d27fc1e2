import type { TokenUsage } from '../state.js';

/** Budget level: warning from 80 %, critical from 95 %, exceeded above 100 %. */
export type BudgetLevel = 'none' | 'ok' | 'warning' | 'critical' | 'exceeded';

/** Thresholds as fractions of the budget. */
export const BUDGET_WARNING = 0.8;
export const BUDGET_CRITICAL = 0.95;

/** Budget use: tokens counted against the budget are input + output (cached reads are not billed as new work). */
export interface BudgetView {
  max: number | null;
  used: number;
  percent: number | null;
  level: BudgetLevel;
}

/**
 * How a session's toolkit counts its budget, where it differs from baton (toolkit-tokens.ts):
 * `used`, the tokens counted against it (BMAD: the main session's, not its isolated agents');
 * `strict`, thresholds strictly above 80 % and 95 % (BMAD), not at them.
 */
export interface BudgetModel {
  used?: number;
  strict?: boolean;
}

/** Computes where token use stands against the budget (`model`: the session's toolkit's way, when it has one). */
export function budgetView(t: TokenUsage, model: BudgetModel = {}): BudgetView {
  const used = model.used ?? t.input + t.output;
  if (t.budgetMax === null) return { max: null, used, percent: null, level: 'none' };
  const ratio = used / t.budgetMax;
  return { max: t.budgetMax, used, percent: Math.round(ratio * 1000) / 10, level: budgetLevel(ratio, model.strict) };
}

/**
 * The level of a budget used to `ratio` (1 = all of it), for the token and the cost budget
 * alike: at 80 % and 95 % baton's, strictly above them with `strict` (BMAD's rule).
 */
export function budgetLevel(ratio: number, strict = false): BudgetLevel {
  if (ratio > 1) return 'exceeded';
  if (strict) return ratio > BUDGET_CRITICAL ? 'critical' : ratio > BUDGET_WARNING ? 'warning' : 'ok';
  return ratio >= BUDGET_CRITICAL ? 'critical' : ratio >= BUDGET_WARNING ? 'warning' : 'ok';
}

/** A level that deserves a warning (80 % and up). */
export function budgetAlarming(level: BudgetLevel): boolean {
  return level === 'warning' || level === 'critical' || level === 'exceeded';
}
