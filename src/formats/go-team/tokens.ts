/**
 * Go Team keeps token usage outside the session files: in the live workflow state
 * (`go_team_state.token_metrics`, or the `metrics.tokens` extension of token-tracking.md,
 * both saved in `state.json` under `state`) and in `metrics/session-metrics.json` (one record
 * per session in `sessions[]` or `history[]`, or `current_session`). The live state wins
 * when both hold the session, since it is the newer one.
 */
import type { ForeignTokens, TokenCountsLike } from '../types.js';
import { arr, num, obj, str } from '../util.js';
import { STEPS, stepOf } from './steps.js';

/** Where the tokens were found, for provenance and for the writer. */
export type TokenSource = 'state.token_metrics' | 'state.metrics.tokens' | 'metrics-file';

function counts(v: unknown): TokenCountsLike | null {
  const o = obj(v);
  const has = [
    'input_tokens',
    'output_tokens',
    'cached_tokens',
    'input',
    'output',
    'cached',
    'total_input',
    'total_output',
  ].some((k) => k in o);
  if (!has) return null;
  return {
    input: num(o.input_tokens ?? o.input ?? o.total_input),
    output: num(o.output_tokens ?? o.output ?? o.total_output),
    cached: num(o.cached_tokens ?? o.cached ?? o.total_cached),
  };
}

/** Total (input+output) of a breakdown entry that may hold only `tokens`/`total_tokens`. */
function entryTotal(v: unknown): number | null {
  const c = counts(v);
  if (c) return c.input + c.output;
  const o = obj(v);
  const t = o.tokens ?? o.total_tokens;
  return typeof t === 'number' ? num(t) : null;
}

/** The step id a `by_step` key names: `4`, `step-04-implementation`, `implementation`, `5b`… */
function stepKey(k: string): string | null {
  const m = /^(?:step-)?0*(\d{1,2})[a-z]?(?:-|$)/.exec(k);
  if (m) {
    const s = stepOf(Number(m[1]));
    return s === null ? null : String(s);
  }
  const def = STEPS.find((d) => d.name === k || d.sub === k);
  return def ? String(def.n) : null;
}

/**
 * Reads one token record (`token_metrics`, `metrics.tokens` or a session-metrics record).
 * Null when it holds no totals.
 */
export function readTokenRecord(rec: Record<string, unknown>): ForeignTokens | null {
  const summary = obj(rec.token_summary);
  const base = Object.keys(summary).length > 0 ? summary : rec;
  const totals = counts(base);
  if (!totals) return null;
  const agentsRaw = obj(rec.by_agent ?? rec.agent_tokens);
  let byAgent: Record<string, TokenCountsLike> | null = null;
  let agentSum: number | null = null;
  const agentNames = Object.keys(agentsRaw);
  if (agentNames.length > 0) {
    const split = agentNames.every((a) => counts(agentsRaw[a]) !== null);
    if (split) {
      byAgent = {};
      for (const a of agentNames) byAgent[a] = counts(agentsRaw[a]) as TokenCountsLike;
    }
    const totalsPerAgent = agentNames.map((a) => entryTotal(agentsRaw[a]));
    if (totalsPerAgent.every((t) => t !== null)) agentSum = (totalsPerAgent as number[]).reduce((x, y) => x + y, 0);
  }
  let agrees: boolean | null = null;
  if (byAgent) {
    const s = Object.values(byAgent).reduce(
      (acc, c) => ({ input: acc.input + c.input, output: acc.output + c.output, cached: acc.cached + c.cached }),
      { input: 0, output: 0, cached: 0 },
    );
    agrees = s.input === totals.input && s.output === totals.output && s.cached === totals.cached;
  } else if (agentSum !== null) {
    agrees = agentSum === totals.input + totals.output;
  }
  const stepsRaw = obj(rec.by_step ?? rec.step_tokens);
  let byUnit: Record<string, TokenCountsLike> | null = null;
  for (const [k, v] of Object.entries(stepsRaw)) {
    const c = counts(v);
    const id = stepKey(k);
    if (!c || id === null) continue;
    byUnit ??= {};
    const prev = byUnit[id] ?? { input: 0, output: 0, cached: 0 };
    byUnit[id] = { input: prev.input + c.input, output: prev.output + c.output, cached: prev.cached + c.cached };
  }
  return { ...totals, byAgent, byUnit, agrees, max: null };
}

/** The session's record in a parsed `metrics/session-metrics.json`, or null. */
export function findMetricsRecord(doc: Record<string, unknown>, sessionId: string): Record<string, unknown> | null {
  const cur = obj(doc.current_session);
  if (str(cur.session_id) === sessionId) return cur;
  for (const list of [arr(doc.sessions), arr(doc.history)]) {
    for (const r of list) if (str(obj(r).session_id) === sessionId) return obj(r);
  }
  return null;
}

/** Token record held by a live state (`state.json` → `state`), with where it was found. */
export function liveTokenRecord(
  liveState: Record<string, unknown>,
): { rec: Record<string, unknown>; source: TokenSource } | null {
  const tm = obj(liveState.token_metrics);
  if (Object.keys(tm).length > 0) return { rec: tm, source: 'state.token_metrics' };
  const mt = obj(obj(liveState.metrics).tokens);
  if (Object.keys(mt).length > 0) return { rec: mt, source: 'state.metrics.tokens' };
  return null;
}

/** Go Team's budget warning ratio when `budget_warning` is left out (token-tracking.md: "default: 80%"). */
const GO_TEAM_BUDGET_WARNING = 0.8;

/**
 * The dollar budget of a live state (`state.json` → `state`): token-tracking.md's state
 * extension `metrics.cost { budget, budget_warning }`, set by `*budget:set`. Go Team only warns
 * (at `budget_warning`, 80 % by default); `problem` reports a value that is not a positive
 * amount, and a warning ratio other than the 80 % at which baton warns.
 */
export function liveCostBudget(
  liveState: Record<string, unknown>,
  problem: (msg: string, hint: string) => void,
): number | null {
  const cost = obj(obj(liveState.metrics).cost);
  const budget = cost.budget;
  if (budget === undefined || budget === null) return null;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) {
    problem(
      `metrics.cost.budget is ${JSON.stringify(budget)}, not a positive amount of dollars; no cost budget is imported.`,
      'Set it with `*budget:set 5.00`, or after the import with `baton budget set --cost 5`.',
    );
    return null;
  }
  const warn = cost.budget_warning;
  if (warn !== undefined && warn !== null && warn !== GO_TEAM_BUDGET_WARNING)
    problem(
      `metrics.cost.budget_warning is ${JSON.stringify(warn)}; baton warns at 80 % and 95 % of the cost budget, not at that ratio.`,
      'Nothing to do unless the earlier warning matters; baton keeps its own thresholds.',
    );
  return budget;
}
