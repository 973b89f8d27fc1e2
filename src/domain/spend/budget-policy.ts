/**
 * Budget policies: a session's budget, and optionally a phase's or an agent's, in tokens
 * (input + output) and in estimated US dollars, with what to do once one is exceeded: `warn`
 * (say so at 80 %, 95 % and past it), `ask` (put the agent's next tool call to the user) or
 * `stop` (refuse new work until the budget is raised). Setting, reading and judging them;
 * pure, the pricing table passed in. Enforcement lives where the work happens (the manager's
 * writes, `baton run`, the agent hooks); this file only says what the policy asks for.
 */
import type { CostReport } from './cost.js';
import { assertWritable, draft, positive } from '../decide.js';
import type { EventDraft } from '../decide.js';
import { BatonError } from '../errors.js';
import { hint } from '../hints.js';
import type { BudgetPolicy, OnExceed, SessionState, TokenUsage } from '../state.js';

export type { BudgetPolicy, OnExceed } from '../state.js';
import { budgetLevel } from '../toolkits/tokens.js';
import type { BudgetLevel } from '../toolkits/tokens.js';
import { budgetModelOf } from '../toolkits/toolkit-tokens.js';

/** Every {@link OnExceed}, mildest first. */
export const ON_EXCEED: readonly OnExceed[] = ['warn', 'ask', 'stop'];

/** The payload of `budget.set`: fields left out are unchanged (an old event holds only `max`). */
export interface BudgetSetData {
  max?: number | null;
  maxUsd?: number | null;
  onExceed?: OnExceed;
  /** The phase the budget is for (else the session's). */
  phase?: string;
  /** The agent the budget is for (else the session's). */
  agent?: string;
}

/** What `budgets.set` takes: a token budget, a cost budget and/or a policy, for the session, a phase or an agent. */
export interface BudgetSetInput {
  /** Tokens (numeric strings accepted); null removes it; undefined leaves it. */
  tokens?: number | string | null;
  /** US dollars (numeric strings accepted); null removes it; undefined leaves it. */
  usd?: number | string | null;
  onExceed?: OnExceed | string;
  phase?: string | null;
  agent?: string | null;
}

/** Largest dollar budget accepted. */
export const MAX_USD = 1_000_000_000;

/** Validates a budget change and returns its one `budget.set` event. */
export function decideBudgetPolicy(s: SessionState, input: BudgetSetInput): EventDraft[] {
  assertWritable(s);
  const d: BudgetSetData = {};
  if (input.tokens !== undefined) d.max = input.tokens === null ? null : positive(input.tokens, 'The token budget');
  if (input.usd !== undefined) d.maxUsd = input.usd === null ? null : dollars(input.usd);
  if (input.onExceed !== undefined) {
    if (!(ON_EXCEED as readonly string[]).includes(input.onExceed))
      throw new BatonError('BAD_INPUT', `on-exceed must be warn, ask or stop; got ${JSON.stringify(input.onExceed)}.`, {
        hint: 'warn says so at 80 %, 95 % and past the budget; ask puts the next tool call to the user; stop refuses new work.',
      });
    d.onExceed = input.onExceed as OnExceed;
  }
  if (d.max === undefined && d.maxUsd === undefined && d.onExceed === undefined)
    throw new BatonError('BAD_INPUT', 'A budget change needs a token budget, a cost budget or an on-exceed policy.', {
      hint: 'Pass tokens (e.g. 500000), a cost in US dollars, or on-exceed warn|ask|stop.',
    });
  if (input.phase && input.agent)
    throw new BatonError(
      'BAD_INPUT',
      'A budget is for the session, one phase or one agent, not a phase and an agent.',
      {
        hint: 'Set the phase budget and the agent budget one at a time.',
      },
    );
  if (input.phase) {
    if (!s.phases.some((p) => p.id === input.phase))
      throw new BatonError('NOT_FOUND', `Session ${s.id} has no phase ${JSON.stringify(input.phase)}.`, {
        hint: hint('phase.name-one', { phases: s.phases.map((p) => p.id) }),
        details: { sessionId: s.id, phase: input.phase },
      });
    d.phase = input.phase;
  }
  if (input.agent) d.agent = input.agent;
  return [draft('budget.set', d as { max: number | null })];
}

function dollars(v: number | string): number {
  const n = typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > MAX_USD)
    throw new BatonError(
      'BAD_INPUT',
      `The cost budget must be a positive amount of US dollars; got ${JSON.stringify(v)}.`,
      {
        hint: 'Pass the cost budget as a number of dollars above 0, e.g. 25 or 2.50.',
      },
    );
  return n;
}

/** Folds `budget.set` into the token usage (a copy of `tokens`, see own.ts; nested maps are replaced, never mutated). */
export function applyBudgetSet(t: TokenUsage, d: BudgetSetData): void {
  const key = d.phase ?? d.agent;
  if (key === undefined) {
    if (d.max !== undefined) t.budgetMax = d.max;
    if (d.maxUsd !== undefined) t.costBudgetUsd = d.maxUsd;
    if (d.onExceed !== undefined) t.onExceed = d.onExceed;
    return;
  }
  const field = d.phase !== undefined ? 'phaseBudgets' : 'agentBudgets';
  const map = { ...(t[field] ?? {}) };
  const prev = map[key] ?? { tokens: null, usd: null, onExceed: 'warn' as OnExceed };
  const next: BudgetPolicy = {
    tokens: d.max !== undefined ? d.max : prev.tokens,
    usd: d.maxUsd !== undefined ? d.maxUsd : prev.usd,
    onExceed: d.onExceed ?? prev.onExceed,
  };
  if (next.tokens === null && next.usd === null) delete map[key];
  else map[key] = next;
  t[field] = map;
}

/** One budget measured: whose (session, a phase, an agent), in what unit, and how far used. */
export interface BudgetCheck {
  scope: 'session' | 'phase' | 'agent';
  /** The phase id or agent name; null for the session. */
  name: string | null;
  unit: 'tokens' | 'usd';
  used: number;
  max: number;
  percent: number;
  level: BudgetLevel;
  onExceed: OnExceed;
}

/** What the budgets ask for now. */
export interface BudgetVerdict {
  checks: BudgetCheck[];
  /** The checks past their budget. */
  exceeded: BudgetCheck[];
  /** `stop` or `ask` when an exceeded budget says so, `warn` at 80 % and up, else `ok`. */
  action: 'ok' | 'warn' | 'ask' | 'stop';
  /** The highest level of any check (`none` without budgets). */
  level: BudgetLevel;
  /** The check that decided the action (the strictest exceeded, else the fullest); null when none. */
  worst: BudgetCheck | null;
}

/** Whose budgets apply: a phase and an agent (either may be null); undefined: every budget the session has. */
export interface BudgetScope {
  phase?: string | null;
  agent?: string | null;
}

const LEVELS: readonly BudgetLevel[] = ['none', 'ok', 'warning', 'critical', 'exceeded'];

/** Judges the session's budgets (and those of `scope`'s phase and agent, or all of them) against its use. */
export function budgetVerdict(s: SessionState, cost: CostReport | null, scope?: BudgetScope): BudgetVerdict {
  const t = s.tokens;
  // The session's toolkit may count otherwise: its agents isolated, its thresholds strict (BMAD).
  const model = budgetModelOf(s);
  const checks: BudgetCheck[] = [];
  const add = (
    where: BudgetCheck['scope'],
    name: string | null,
    p: BudgetPolicy,
    used: { tokens: number; usd: number | null },
  ) => {
    if (p.tokens !== null) checks.push(check(where, name, 'tokens', used.tokens, p.tokens, p.onExceed, model.strict));
    if (p.usd !== null && used.usd !== null)
      checks.push(check(where, name, 'usd', used.usd, p.usd, p.onExceed, model.strict));
  };
  const onExceed = t.onExceed ?? 'warn';
  add(
    'session',
    null,
    { tokens: t.budgetMax, usd: t.costBudgetUsd ?? null, onExceed },
    { tokens: model.used ?? t.input + t.output, usd: cost ? cost.total.pricedUsd : null },
  );
  for (const [phase, p] of Object.entries(t.phaseBudgets ?? {}))
    if (!scope || scope.phase === phase) {
      const c = t.byPhase[phase];
      add('phase', phase, p, {
        tokens: c ? c.input + c.output : 0,
        usd: cost ? (cost.byPhase[phase]?.pricedUsd ?? 0) : null,
      });
    }
  for (const [agent, p] of Object.entries(t.agentBudgets ?? {}))
    if (!scope || scope.agent === agent) {
      const c = t.byAgent[agent];
      add('agent', agent, p, {
        tokens: c ? c.input + c.output : 0,
        usd: cost ? (cost.byAgent[agent]?.pricedUsd ?? 0) : null,
      });
    }
  const exceeded = checks.filter((c) => c.level === 'exceeded');
  const strict = (c: BudgetCheck) => ON_EXCEED.indexOf(c.onExceed);
  const worstExceeded = exceeded.reduce<BudgetCheck | null>((w, c) => (!w || strict(c) > strict(w) ? c : w), null);
  const fullest = checks.reduce<BudgetCheck | null>((w, c) => (!w || c.percent > w.percent ? c : w), null);
  const level = checks.reduce<BudgetLevel>(
    (l, c) => (LEVELS.indexOf(c.level) > LEVELS.indexOf(l) ? c.level : l),
    'none',
  );
  const action =
    worstExceeded && worstExceeded.onExceed !== 'warn'
      ? worstExceeded.onExceed
      : level === 'warning' || level === 'critical' || level === 'exceeded'
        ? 'warn'
        : 'ok';
  return { checks, exceeded, action, level, worst: worstExceeded ?? fullest };
}

function check(
  scope: BudgetCheck['scope'],
  name: string | null,
  unit: BudgetCheck['unit'],
  used: number,
  max: number,
  onExceed: OnExceed,
  strict = false,
): BudgetCheck {
  const ratio = used / max;
  return {
    scope,
    name,
    unit,
    used,
    max,
    percent: Math.round(ratio * 1000) / 10,
    level: budgetLevel(ratio, strict),
    onExceed,
  };
}

/** A budget in words: `the session's token budget`, `phase build's cost budget`. */
export function budgetName(c: BudgetCheck): string {
  const whose = c.scope === 'session' ? "the session's" : `${c.scope} ${c.name}'s`;
  return `${whose} ${c.unit === 'tokens' ? 'token' : 'cost'} budget`;
}

/** Use against a budget in words: `3,774 of 3,000 tokens (125.8%)`, `$1.20 of $1.00 (120%)`. */
export function budgetUse(c: BudgetCheck): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return c.unit === 'tokens'
    ? `${n(c.used)} of ${n(c.max)} tokens (${c.percent}%)`
    : `$${c.used.toFixed(2)} of $${c.max.toFixed(2)} (${c.percent}%)`;
}

/** A budget twice as large as its use (at least double the old one): what a hint suggests raising it to. */
export function suggestedRaise(c: BudgetCheck): number {
  const v = Math.max(c.max * 2, c.used * 1.5);
  return c.unit === 'tokens' ? Math.ceil(v / 1000) * 1000 : Math.ceil(v);
}

/** Events that start or advance work, refused while a `stop` budget is exceeded (records of work done still go in). */
export const WORK_EVENTS: ReadonlySet<string> = new Set(['phase.started', 'phase.retried', 'substep.reached']);

/**
 * Refuses drafts that start new work while a budget with `stop` (for the session, the phase
 * the work is in, or the agent doing it) is exceeded: `BUDGET_EXCEEDED`, with the way to raise it.
 */
export function assertBudget(
  s: SessionState,
  drafts: readonly EventDraft[],
  agent: string | null,
  cost: () => CostReport | null,
): void {
  const work = drafts.filter((d) => WORK_EVENTS.has(d.type));
  if (!work.length || !hasStop(s.tokens)) return;
  for (const d of work) {
    const phase = (d.data as { phaseId?: string }).phaseId ?? null;
    const v = budgetVerdict(s, cost(), { phase, agent: (d.data as { agent?: string | null }).agent ?? agent });
    if (v.action === 'stop' && v.worst) throw budgetExceeded(s.id, v.worst);
  }
}

function hasStop(t: TokenUsage): boolean {
  return (
    t.onExceed === 'stop' ||
    Object.values(t.phaseBudgets ?? {}).some((p) => p.onExceed === 'stop') ||
    Object.values(t.agentBudgets ?? {}).some((p) => p.onExceed === 'stop')
  );
}

/** The refusal of new work past a `stop` budget. */
export function budgetExceeded(sessionId: string, c: BudgetCheck): BatonError {
  return new BatonError(
    'BUDGET_EXCEEDED',
    `Session ${sessionId}: ${budgetName(c)} is exceeded (${budgetUse(c)}) and its policy is stop: no new work until it is raised.`,
    {
      hint: hint('budget.raise', {
        session: sessionId,
        scope: c.scope,
        name: c.name,
        unit: c.unit,
        suggested: suggestedRaise(c),
      }),
      details: { sessionId, budget: c },
    },
  );
}

/** The log's sentence for a `budget.set` (old events hold only `max`). */
export function budgetSentence(d: Record<string, unknown>): string {
  const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : '');
  const whose =
    typeof d['phase'] === 'string'
      ? `Phase ${d['phase']}'s`
      : typeof d['agent'] === 'string'
        ? `Agent ${d['agent']}'s`
        : '';
  const parts: string[] = [];
  if ('max' in d)
    parts.push(typeof d['max'] === 'number' ? `token budget set to ${n(d['max'])}` : 'token budget removed');
  if ('maxUsd' in d)
    parts.push(
      typeof d['maxUsd'] === 'number' ? `cost budget set to $${d['maxUsd'].toFixed(2)}` : 'cost budget removed',
    );
  if (typeof d['onExceed'] === 'string') parts.push(`on exceed: ${d['onExceed']}`);
  const text = parts.join(', ') || 'budget unchanged';
  const sentence = whose ? `${whose} ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
  return `${sentence}.`;
}
