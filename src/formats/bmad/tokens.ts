/**
 * BMAD's token block, by the seed's "Token Deserialization and Defaults" rules: `max`
 * missing or null → 150000; any other missing field → 0; legacy `saved_by_isolation` is read
 * as `saved`; `max_limit` and `warning_threshold` (still written by the PR's own template)
 * have no mapping and are reported. Budget use = current / max: above 80 % a warning
 * (yellow), above 95 % critical (red). Savings: total if no isolation = current + saved,
 * savings % = saved / (current + saved).
 *
 * In baton terms the main session's `current` is the session's usage (input); the agents'
 * own tokens are isolated (they are what `saved` counts) and stay on their units.
 */
import type { ProblemReport } from '../problems.js';
import type { FormatProblem, ForeignTokens } from '../types.js';
import { num, obj, problem } from '../util.js';

export const DEFAULT_MAX = 150000;
export const WARN_RATIO = 0.8;
export const CRITICAL_RATIO = 0.95;

/** The BMAD-specific token figures, reported next to the normalized ones. */
export interface BmadTokenReport {
  max: number;
  initial: number;
  current: number;
  peak: number;
  saved: number;
  /** current / max × 100, one decimal. */
  percentUsed: number;
  /** current / max × 100 at the document's precision (whole percent, as its `{percentage}` displays: "Tokens: 45,000/150,000 (30%)"). */
  percent: number;
  /** How far the work would run past `max` without isolation (current + saved − max; the seed's "Would exceed limit by"), 0 when within. */
  projectedOverrun: number;
  /** ok ≤ 80 % < warning ≤ 95 % < critical. */
  level: 'ok' | 'warning' | 'critical';
  remaining: number;
  /** current + saved. */
  totalIfNoIsolation: number;
  /** saved / (current + saved) × 100, rounded; null when both are 0. */
  savingsPercent: number | null;
  /** Sum of `agents_spawned[].tokens_used`, null when no agent has it. */
  agentsTokens: number | null;
}

/** {@link ForeignTokens} plus the BMAD report (the "metadata" of the budget and savings). */
export type BmadTokens = ForeignTokens & { bmad: BmadTokenReport };

function isNum(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v);
}

type Report = ProblemReport;

/**
 * The tokens saved by isolation. The seed's "Fallback Logic", in its order: 1. max
 * missing/null → 150000; 2. any other missing field → 0; 3. "If legacy
 * tokens.saved_by_isolation exists, read it as tokens.saved" (last, so it applies whether or
 * not `saved` is there too).
 */
function savedOf(t: Record<string, unknown>, p: Report): number {
  let saved = num(t['saved']);
  if ('saved_by_isolation' in t && t['saved_by_isolation'] !== null) {
    const legacy = num(t['saved_by_isolation']);
    const both = 'saved' in t && t['saved'] !== null;
    const before = saved;
    saved = legacy;
    p(
      'LEGACY_FIELD',
      'warning',
      `tokens.saved_by_isolation is the legacy name of tokens.saved; read as saved = ${legacy}${both ? ` (rule 3 of BMAD's token fallback logic applies last, so it wins over tokens.saved ${before})` : ''}.`,
      'baton export writes it back as it is unless baton changes the savings.',
      {
        field: 'tokens.saved_by_isolation',
        current: 'tokens.saved',
        value: t['saved_by_isolation'],
        ...(both ? { overrides: before } : {}),
      },
    );
  }
  return saved;
}

/** Template-era fields BMAD's rules do not read (max_limit is mapped by no rule; warnings are at fixed ratios). */
function templateFieldProblems(t: Record<string, unknown>, max: number, p: Report): void {
  if ('max_limit' in t) {
    p(
      'LEGACY_FIELD',
      'warning',
      `tokens.max_limit (${JSON.stringify(t['max_limit'])}) is a template-era field BMAD's rules do not read; the budget is tokens.max${t['max'] === undefined || t['max'] === null ? `, which is missing, so ${DEFAULT_MAX}` : ` = ${max}`}.`,
      'Set tokens.max to the budget you mean.',
      { field: 'tokens.max_limit', current: 'tokens.max', value: t['max_limit'] },
    );
  }
  if ('warning_threshold' in t) {
    p(
      'LEGACY_FIELD',
      'info',
      `tokens.warning_threshold (${JSON.stringify(t['warning_threshold'])}) is a template-era field; BMAD warns at fixed ratios of max (80 %, 95 %).`,
      null,
      { field: 'tokens.warning_threshold', current: null, value: t['warning_threshold'] },
    );
  }
}

/** Reads `tokens`; problems are pushed onto `problems`. */
export function readTokens(
  raw: unknown,
  agentsTokens: number | null,
  sessionId: string,
  file: string,
  problems: FormatProblem[],
): BmadTokens {
  const p = (
    code: string,
    sev: 'error' | 'warning' | 'info',
    msg: string,
    hint: string | null,
    details?: Record<string, unknown>,
  ) => problems.push(problem(code, sev, msg, { sessionId, path: file, hint, details }));
  const t = obj(raw);
  if (raw === undefined || raw === null) {
    p(
      'MISSING_FIELD',
      'warning',
      `${sessionId} has no tokens block; max 150000 and 0 for the rest are assumed.`,
      null,
      { field: 'tokens', assumed: { max: DEFAULT_MAX, initial: 0, current: 0, peak: 0, saved: 0 } },
    );
  }
  for (const f of ['max', 'initial', 'current', 'peak', 'saved', 'saved_by_isolation']) {
    const v = t[f];
    if (v !== undefined && v !== null && !isNum(v))
      p(
        'BAD_VALUE',
        'warning',
        `tokens.${f} is ${JSON.stringify(v)}, not a number; ${f === 'max' ? DEFAULT_MAX : 0} is assumed.`,
        null,
        { field: `tokens.${f}`, value: v },
      );
  }
  const max = isNum(t['max']) && (t['max'] as number) > 0 ? (t['max'] as number) : DEFAULT_MAX;
  if (raw !== undefined && raw !== null && (t['max'] === undefined || t['max'] === null)) {
    p(
      'MISSING_FIELD',
      'info',
      `tokens.max is ${t['max'] === null ? 'null' : 'missing'}; BMAD's default budget ${DEFAULT_MAX} applies.`,
      null,
      { field: 'tokens.max', assumed: DEFAULT_MAX },
    );
  }
  const saved = savedOf(t, p);
  templateFieldProblems(t, max, p);
  const current = num(t['current']);
  const initial = num(t['initial']);
  const peak = num(t['peak']);
  if (peak < current)
    p(
      'BAD_VALUE',
      'info',
      `tokens.peak ${peak} is below tokens.current ${current} (peak is the highest usage).`,
      null,
      { field: 'tokens.peak', value: peak, current },
    );
  const ratio = current / max;
  const level = ratio > CRITICAL_RATIO ? 'critical' : ratio > WARN_RATIO ? 'warning' : 'ok';
  const percentUsed = Math.round(ratio * 1000) / 10;
  if (level !== 'ok') {
    p(
      'BUDGET_THRESHOLD',
      level === 'critical' ? 'warning' : 'info',
      `${sessionId} uses ${current} of ${max} tokens (${Math.round(ratio * 100)}%): ${level === 'critical' ? 'critical (red, above 95 %)' : 'warning (yellow, above 80 %)'}.`,
      'Spawn isolated agents for heavy work or close the session and start a new one.',
      { level, percentUsed, current, max },
    );
  }
  if (agentsTokens !== null && agentsTokens !== saved) {
    p(
      'TOKENS_DISAGREE',
      'info',
      `tokens.saved is ${saved} but the spawned agents used ${agentsTokens} tokens (isolation savings are the agents' tokens).`,
      null,
      { saved, agentsTokens },
    );
  }
  const total = current + saved;
  return {
    input: current,
    output: 0,
    cached: 0,
    byAgent: null,
    byUnit: null,
    agrees: null,
    max,
    bmad: {
      max,
      initial,
      current,
      peak,
      saved,
      percentUsed,
      percent: Math.round(ratio * 100),
      projectedOverrun: Math.max(0, total - max),
      level,
      remaining: Math.max(0, max - current),
      totalIfNoIsolation: total,
      savingsPercent: total === 0 ? null : Math.round((saved / total) * 100),
      agentsTokens,
    },
  };
}
