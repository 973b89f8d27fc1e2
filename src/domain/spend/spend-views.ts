/**
 * Views of spend that the token summary adds: counts that are only a lower bound (a response
 * cut before its final usage), and tokens with their estimated cost by the machine that
 * recorded them. Pure.
 */
import { groupCost } from './cost.js';
import type { Cost } from './cost.js';
import type { PricingTable } from './pricing.js';
import type { SessionState, TokenCounts } from '../state.js';
import { zeroTokens } from '../state.js';

/** Responses counted without their final usage, and whose they are; the session's counts are then "at least". */
export interface LowerBound {
  responses: number;
  agents: string[];
}

/**
 * The responses whose counts are a lower bound: the last response of a transcript that had no
 * final usage when last read (a stream cut by a crash, or still running). Null when none.
 */
export function tokensLowerBound(s: SessionState): LowerBound | null {
  const open = Object.values(s.transcripts?.files ?? {}).filter((c) => c.open);
  if (!open.length) return null;
  return { responses: new Set(open.map((c) => c.open)).size, agents: [...new Set(open.map((c) => c.agent))].sort() };
}

/** Name of the row of tokens recorded before records were counted by host (a snapshot older than this). */
export const UNKNOWN_HOST = '(unknown host)';

/** Tokens and estimated cost of one machine. */
export interface HostSpend {
  tokens: TokenCounts;
  cost: Cost;
}

function minus(a: TokenCounts, b: TokenCounts): TokenCounts {
  const cacheWrite = Math.max(0, (a.cacheWrite ?? 0) - (b.cacheWrite ?? 0));
  return {
    input: Math.max(0, a.input - b.input),
    output: Math.max(0, a.output - b.output),
    cached: Math.max(0, a.cached - b.cached),
    ...(cacheWrite ? { cacheWrite } : {}),
  };
}

/**
 * Tokens and cost by the host that recorded them (the events' actor host): on a shared store,
 * every machine's records summed. Tokens the host rows do not account for (a state folded
 * before hosts were counted) are one `(unknown host)` row, so the rows always sum to the total.
 */
export function spendByHost(s: SessionState, table: PricingTable): Record<string, HostSpend> {
  const out: Record<string, HostSpend> = {};
  const sum = zeroTokens();
  for (const [host, h] of Object.entries(s.tokens.byHost ?? {})) {
    const tokens: TokenCounts = {
      input: h.input,
      output: h.output,
      cached: h.cached,
      ...(h.cacheWrite ? { cacheWrite: h.cacheWrite } : {}),
    };
    const cells = Object.entries(h.byModel ?? {}).map(([model, c]) => ({ ...c, model }));
    out[host] = { tokens, cost: groupCost(tokens, cells, table) };
    sum.input += h.input;
    sum.output += h.output;
    sum.cached += h.cached;
    sum.cacheWrite = (sum.cacheWrite ?? 0) + (h.cacheWrite ?? 0);
  }
  const rest = minus(s.tokens, sum);
  if (rest.input + rest.output + rest.cached + (rest.cacheWrite ?? 0) > 0)
    out[UNKNOWN_HOST] = { tokens: rest, cost: groupCost(rest, [], table) };
  return out;
}
