import type { TokenUsage } from './state.js';

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

/** Computes where token use stands against the budget. */
export function budgetView(t: TokenUsage): BudgetView {
  const used = t.input + t.output;
  if (t.budgetMax === null) return { max: null, used, percent: null, level: 'none' };
  const ratio = used / t.budgetMax;
  return { max: t.budgetMax, used, percent: Math.round(ratio * 1000) / 10, level: budgetLevel(ratio) };
}

/** The level of a budget used to `ratio` (1 = all of it), for the token and the cost budget alike. */
export function budgetLevel(ratio: number): BudgetLevel {
  return ratio > 1 ? 'exceeded' : ratio >= BUDGET_CRITICAL ? 'critical' : ratio >= BUDGET_WARNING ? 'warning' : 'ok';
}

/** A level that deserves a warning (80 % and up). */
export function budgetAlarming(level: BudgetLevel): boolean {
  return level === 'warning' || level === 'critical' || level === 'exceeded';
}
