/**
 * The budgets a plan file sets, in the words of `baton budget set` (docs/budgets.md): a
 * budget is a number of tokens (`budget: 60000`, as plans always had) or a block
 * `{ tokens, cost, onExceed }` (`cost` in US dollars, as `--cost`; `onExceed` warn, ask or
 * stop, as `--on-exceed`). The session's budget block may add `agents: { name: budget }`; a
 * phase entry may carry its own `budget`. Unknown keys are refused rather than ignored, so a
 * typo (`usd`, `on-exceed`) does not leave a budget silently unset. Pure.
 */
import { MAX_USD, ON_EXCEED } from './budget-policy.js';
import type { BudgetSetInput, OnExceed } from './budget-policy.js';
import { MAX_TOKENS_PER_RECORD } from '../decide.js';

/** Reports a bad value at `at` (a path in the plan) with `message`; never returns. */
export type PlanFail = (at: Array<string | number>, message: string) => never;

/** One budget as a plan gives it, checked. */
interface PlanBudget {
  tokens?: number;
  usd?: number;
  onExceed?: OnExceed;
}

const KEYS = ['tokens', 'cost', 'onExceed'];

/** The hint of a budget error: the shapes a budget takes. */
export const PLAN_BUDGET_HINT =
  "A budget is a number of tokens (`budget: 60000`) or a block `budget: {tokens: 60000, cost: 5, onExceed: stop}` (cost in US dollars; onExceed warn, ask or stop); the session's block may have `agents: {reviewer: 20000}`, and a phase entry a `budget` of its own.";

/**
 * One budget: a whole number of tokens or a `{ tokens, cost, onExceed }` block (plus
 * `agents` where `agents` is true). `limit`: a phase's or an agent's budget needs tokens or
 * cost (a policy alone would hold nothing there).
 */
function budgetAt(v: unknown, at: Array<string | number>, fail: PlanFail, limit: boolean, agents = false): PlanBudget {
  if (typeof v === 'number') return { tokens: tokensAt(v, at, fail) };
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    fail(at, `must be a number of tokens or a block {tokens, cost, onExceed}; got ${shown(v)}`);
  const o = v as Record<string, unknown>;
  const allowed = agents ? [...KEYS, 'agents'] : KEYS;
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) fail([...at, k], `unknown field; a budget has ${allowed.join(', ')}`);
  const b: PlanBudget = {};
  if (o['tokens'] !== undefined) b.tokens = tokensAt(o['tokens'], [...at, 'tokens'], fail);
  if (o['cost'] !== undefined) {
    const c = o['cost'];
    if (typeof c !== 'number' || !Number.isFinite(c) || c <= 0 || c > MAX_USD)
      fail([...at, 'cost'], `must be a positive amount of US dollars (e.g. 5 or 2.50); got ${shown(c)}`);
    b.usd = c;
  }
  if (o['onExceed'] !== undefined) {
    if (!(ON_EXCEED as readonly unknown[]).includes(o['onExceed']))
      fail([...at, 'onExceed'], `must be warn, ask or stop; got ${shown(o['onExceed'])}`);
    b.onExceed = o['onExceed'] as OnExceed;
  }
  if (limit && b.tokens === undefined && b.usd === undefined)
    fail(at, 'needs tokens or cost (an onExceed policy alone limits nothing)');
  return b;
}

function tokensAt(v: unknown, at: Array<string | number>, fail: PlanFail): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0 || v > MAX_TOKENS_PER_RECORD)
    fail(at, `must be a positive whole number of tokens; got ${shown(v)}`);
  return v;
}

function shown(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** What a plan's budgets come to: the session's token budget, and the budget changes that set the rest. */
export interface PlanBudgets {
  /** The session's token budget (`session.created`'s, which `--budget` overrides). */
  tokens?: number;
  /** The session's cost and policy, then each agent's and each phase's budget: one `budget.set` each. */
  changes: BudgetSetInput[];
}

/**
 * The budgets of a plan: `budget` is the top-level field, `phases` each phase's id with its
 * own `budget` field (undefined when it has none). Throws through `fail`.
 */
export function planBudgets(
  budget: unknown,
  phases: Array<{ id: string; budget: unknown; index: number }>,
  fail: PlanFail,
): PlanBudgets {
  const out: PlanBudgets = { changes: [] };
  if (budget !== undefined) {
    const b = budgetAt(budget, ['budget'], fail, false, true);
    if (b.tokens !== undefined) out.tokens = b.tokens;
    if (b.usd !== undefined || b.onExceed !== undefined)
      out.changes.push({
        ...(b.usd !== undefined ? { usd: b.usd } : {}),
        ...(b.onExceed !== undefined ? { onExceed: b.onExceed } : {}),
      });
    const agents = (budget as Record<string, unknown> | null)?.['agents'];
    if (agents !== undefined) {
      if (agents === null || typeof agents !== 'object' || Array.isArray(agents))
        fail(['budget', 'agents'], `must map agent names to budgets, e.g. {reviewer: 20000}; got ${shown(agents)}`);
      for (const [name, v] of Object.entries(agents as Record<string, unknown>)) {
        if (name.trim() === '' || name.length > 200)
          fail(['budget', 'agents', name], 'an agent name must be 1 to 200 characters');
        out.changes.push(change(budgetAt(v, ['budget', 'agents', name], fail, true), { agent: name }));
      }
    }
  }
  for (const p of phases)
    if (p.budget !== undefined)
      out.changes.push(change(budgetAt(p.budget, ['phases', p.index, 'budget'], fail, true), { phase: p.id }));
  return out;
}

function change(b: PlanBudget, whose: { phase?: string; agent?: string }): BudgetSetInput {
  return {
    ...(b.tokens !== undefined ? { tokens: b.tokens } : {}),
    ...(b.usd !== undefined ? { usd: b.usd } : {}),
    ...(b.onExceed !== undefined ? { onExceed: b.onExceed } : {}),
    ...whose,
  };
}
