/**
 * A session's tokens counted the way the toolkit it was imported from counts them, where that
 * differs from baton (recorded at import as `ToolkitRules.tokens`):
 *
 * - totals that disagree with the toolkit's own per-agent breakdown (Maestro's `token_usage`
 *   40100 against a `by_agent` sum of 44100) are reported, and the written totals are kept,
 *   moved by what baton recorded since; baton's ledger keeps the breakdown;
 * - BMAD's isolation: tokens recorded against a phase (a spawned agent) are that agent's own;
 *   the main session's `current` is the rest, and the agents' tokens add to what isolation
 *   saved (`tokens.saved` at import plus the agents' tokens recorded since);
 * - BMAD's thresholds are strictly above 80 % and 95 %.
 *
 * Pure; no format name is branched on.
 */
import type { TokenCounts, SessionState } from '../state.js';
import type { BudgetModel } from './tokens.js';
import { budgetView } from './tokens.js';
import type { BudgetView } from './tokens.js';
import { toolkitRulesOf } from './toolkit-rules.js';
import type { ToolkitRules, WrittenCounts } from './toolkit-rules.js';

const n = (v: number): string => v.toLocaleString('en-US');

/** The budget model of a session: as baton's, unless its toolkit counts otherwise. */
export function budgetModelOf(s: SessionState): BudgetModel {
  const t = toolkitRulesOf(s)?.tokens;
  if (!t) return {};
  return {
    ...(t.strictThresholds ? { strict: true } : {}),
    ...(t.isolatedAgents ? { used: isolation(s)!.main } : {}),
  };
}

/** The session's token budget as its toolkit counts it (baton's {@link budgetView} otherwise). */
export function sessionBudget(s: SessionState): BudgetView {
  return budgetView(s.tokens, budgetModelOf(s));
}

/** The split of an isolating toolkit: the main session's tokens, each agent's (by phase), and the savings. */
export interface IsolationView {
  /** Input + output not recorded against a phase: BMAD's `current`. */
  main: number;
  /** Each spawned agent's tokens, by phase id: what it reported to the toolkit plus what baton recorded against it since. */
  agents: Record<string, number>;
  /** `tokens.saved` at import plus the agents' tokens recorded in baton since. */
  saved: number;
  /** main + saved (BMAD's "Total Consumed (if no isolation)"). */
  totalIfNoIsolation: number;
  /** saved / (main + saved), whole percent; null when both are 0. */
  savingsPercent: number | null;
}

/** The isolation split, or null when the session's toolkit does not isolate its agents. */
export function isolation(s: SessionState): IsolationView | null {
  const t = toolkitRulesOf(s)?.tokens;
  if (!t?.isolatedAgents) return null;
  const agents: Record<string, number> = {};
  // What each agent reported to the toolkit (BMAD `tokens_used`, kept on its phase) and recorded since.
  for (const p of s.phases) {
    const used = p.metadata['tokens_used'];
    if (typeof used === 'number' && Number.isFinite(used)) agents[p.id] = used;
  }
  let inAgents = 0;
  for (const [phase, c] of Object.entries(s.tokens.byPhase)) {
    agents[phase] = (agents[phase] ?? 0) + c.input + c.output;
    inAgents += c.input + c.output;
  }
  const main = Math.max(0, s.tokens.input + s.tokens.output - inAgents);
  const saved = (t.saved ?? 0) + inAgents;
  const total = main + saved;
  return {
    main,
    agents,
    saved,
    totalIfNoIsolation: total,
    savingsPercent: total === 0 ? null : Math.round((saved / total) * 100),
  };
}

/**
 * The rules a re-import records from the toolkit's file as it is now, against the session as
 * baton has it. An isolating toolkit's `saved` is "at import": {@link isolation} adds the
 * agents' tokens baton recorded against phases to it. A file baton mirrored already holds
 * those tokens in its `saved`, so they are taken out again; a file that did not get them
 * (not mirrored since) keeps the savings baton had: the higher count is kept, as for tokens.
 */
export function reimportedRules(current: SessionState, rules: ToolkitRules): ToolkitRules {
  const t = rules.tokens;
  const before = toolkitRulesOf(current)?.tokens;
  if (!t?.isolatedAgents || !before?.isolatedAgents) return rules;
  let inAgents = 0;
  for (const c of Object.values(current.tokens.byPhase)) inAgents += c.input + c.output;
  const saved = Math.max((t.saved ?? 0) - inAgents, before.saved ?? 0);
  return { ...rules, tokens: { ...t, saved } };
}

/** The totals as the toolkit wrote them, moved by what baton recorded since; null when they agree with the breakdown. */
export function writtenTotals(s: SessionState): WrittenCounts | null {
  const tt = toolkitRulesOf(s)?.tokens?.totals;
  if (!tt) return null;
  const t: TokenCounts = s.tokens;
  const keep = (k: keyof WrittenCounts): number => Math.max(0, tt.written[k] + (t[k] - tt.ledger[k]));
  return { input: keep('input'), output: keep('output'), cached: keep('cached') };
}

/** What a person should know about the session's tokens under its toolkit's rules: warnings, then facts. */
export function toolkitTokenNotes(s: SessionState): { warnings: string[]; lines: string[] } {
  const rules = toolkitRulesOf(s);
  const tt = rules?.tokens;
  if (!rules || !tt) return { warnings: [], lines: [] };
  const warnings: string[] = [];
  const lines: string[] = [];
  const w = writtenTotals(s);
  if (w && tt.totals) {
    const b = tt.totals.ledger;
    warnings.push(
      `${rules.toolkit}'s token totals (${n(tt.totals.written.input)} in / ${n(tt.totals.written.output)} out / ${n(tt.totals.written.cached)} cached) disagree with its per-agent breakdown (${n(b.input)} / ${n(b.output)} / ${n(b.cached)}): the written totals are kept (now ${n(w.input)} / ${n(w.output)} / ${n(w.cached)}); baton's per-agent figures are the breakdown's.`,
    );
  }
  const iso = isolation(s);
  if (iso) {
    const agents = Object.entries(iso.agents);
    lines.push(
      `Main session (${rules.toolkit} current): ${n(iso.main)} tokens; agents, isolated (not counted in it): ${agents.length ? agents.map(([p, v]) => `${p} ${n(v)}`).join(', ') : 'none recorded'}`,
    );
    lines.push(
      `Savings from isolation: ${n(iso.saved)} tokens${iso.savingsPercent === null ? '' : ` (${iso.savingsPercent}%)`}; total if no isolation ${n(iso.totalIfNoIsolation)}`,
    );
  }
  return { warnings, lines };
}
