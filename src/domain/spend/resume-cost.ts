/**
 * What resuming a conversation will cost. A resumed conversation re-sends its whole context
 * on its first turn: served from the provider's prompt cache while the cache lives (a cache
 * read), written to it again once the cache has expired (a cache write; OpenAI and Gemini
 * bill that as plain input). baton knows the context at the conversation's last turn (the
 * last response its transcript reported: prompt and output, which the next prompt carries)
 * and when it was; with the pricing table and the cache's time to live it estimates the first
 * resumed turn both ways, and which way it likely goes now. An estimate: the new message and
 * the reply are not counted, and a model the table does not know has no price (never a guess).
 * Pure: the caller gives the clock, the prices and the time to live.
 */
import { BatonError } from '../errors.js';
import { formatUsd } from './cost.js';
import { priceOf } from './pricing.js';
import type { ModelPrice, PricingTable } from './pricing.js';
import type { LastTurn } from '../state.js';

export type { LastTurn } from '../state.js';

/** Default prompt-cache time to live: five minutes, the API default of Anthropic and OpenAI. */
export const DEFAULT_CACHE_TTL_SECONDS = 300;
/** The one-hour cache (Anthropic's extended cache; subscriptions and `ttl: 1h`). */
export const LONG_CACHE_TTL_SECONDS = 3600;

/** Cache time to live in seconds, for every CLI or per CLI (`claude`, `codex`, `gemini`). */
export interface CacheTtl {
  all: number | null;
  byCli: Record<string, number>;
}

/** Anthropic bills a one-hour cache write at twice the input price (the 5-minute one at 1.25×, the table's `cacheWrite`). */
const ONE_HOUR_WRITE_FACTOR = 2;

function seconds(v: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)?\s*$/i.exec(v);
  if (!m) return null;
  const unit = (m[2] ?? 's').toLowerCase();
  const n = Number(m[1]) * (unit === 'h' ? 3600 : unit === 's' ? 1 : 60);
  return n > 0 && n <= 7 * 86400 ? Math.round(n) : null;
}

/**
 * Reads a cache time-to-live setting (`BATON_CACHE_TTL`): `5m`, `1h`, `300s`, or per CLI,
 * `claude=1h,codex=5m`; empty or null: none set. Anything else is a `BAD_INPUT` naming `source`.
 */
export function parseCacheTtl(text: string | null | undefined, source = 'BATON_CACHE_TTL'): CacheTtl {
  const out: CacheTtl = { all: null, byCli: {} };
  if (!text?.trim()) return out;
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const value = seconds(eq >= 0 ? part.slice(eq + 1) : part);
    const cli = eq >= 0 ? part.slice(0, eq).trim().toLowerCase() : null;
    if (value === null || cli === '')
      throw new BatonError('BAD_INPUT', `${source} is not a cache time to live: ${JSON.stringify(text)}.`, {
        hint: `Give a duration (5m, 1h, 300s) for every CLI, or one per CLI: ${source}=claude=1h,codex=5m.`,
        details: { source },
      });
    if (cli === null) out.all = value;
    else out.byCli[cli] = value;
  }
  return out;
}

/** The estimate of a conversation's first resumed turn. */
export interface ResumeCost {
  /** Tokens re-sent (the context at the last turn). */
  tokens: number;
  /** When the last turn was; null when the transcript did not say. */
  lastTurnAt: string | null;
  /** Seconds from the last turn to the estimate; null when its time is unknown. */
  ageSeconds: number | null;
  model: string | null;
  /** The cache time to live assumed, and where it came from. */
  ttlSeconds: number;
  ttlFrom: 'setting' | 'transcript' | 'default';
  /** Whether the cache likely still holds the context now; `unknown` without the last turn's time. */
  cache: 'warm' | 'cold' | 'unknown';
  /** US dollars of the turn with the cache warm (all read from it) and cold (all written again); null: the model has no price. */
  warmUsd: number | null;
  coldUsd: number | null;
  /** The one that applies now (cold when unknown: the safe side); null without a price. */
  usd: number | null;
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** The price of writing the cache for `ttlSeconds`: the table's (5-minute) write, or Anthropic's one-hour write. */
function writePrice(price: ModelPrice, ttlSeconds: number): number {
  // Only where the table prices a write apart from input (Anthropic): elsewhere a write is input.
  if (ttlSeconds > DEFAULT_CACHE_TTL_SECONDS && price.cacheWrite > price.input)
    return price.input * ONE_HOUR_WRITE_FACTOR;
  return price.cacheWrite;
}

/**
 * Estimates the first turn of resuming a conversation of `cli` whose last turn was `last`, at
 * `now`. The cache time to live: the setting for the CLI, else the setting for all, else one
 * hour when the transcript shows the provider wrote the one-hour cache, else five minutes.
 */
export function resumeCost(
  cli: string,
  last: LastTurn,
  table: PricingTable,
  now: string,
  ttl: CacheTtl = { all: null, byCli: {} },
): ResumeCost {
  const set = ttl.byCli[cli] ?? ttl.all;
  const ttlSeconds = set ?? (last.cache1h ? LONG_CACHE_TTL_SECONDS : DEFAULT_CACHE_TTL_SECONDS);
  const ttlFrom = set !== null ? 'setting' : last.cache1h ? 'transcript' : 'default';
  const t = last.at ? Date.parse(last.at) : Number.NaN;
  const ageSeconds = Number.isFinite(t) ? Math.max(0, Math.round((Date.parse(now) - t) / 1000)) : null;
  const cache = ageSeconds === null ? 'unknown' : ageSeconds < ttlSeconds ? 'warm' : 'cold';
  const price = priceOf(table, last.model);
  const warmUsd = price ? round((last.context * price.cacheRead) / 1e6) : null;
  const coldUsd = price ? round((last.context * writePrice(price, ttlSeconds)) / 1e6) : null;
  return {
    tokens: last.context,
    lastTurnAt: last.at,
    ageSeconds,
    model: last.model,
    ttlSeconds,
    ttlFrom,
    cache,
    warmUsd,
    coldUsd,
    usd: cache === 'warm' ? warmUsd : coldUsd,
  };
}

function ago(s: number): string {
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

/**
 * The estimate for people, after the resume command: `about 45,000 tokens, about $0.17 if
 * resumed now, the cache likely cold (last turn 2 h ago; $0.0135 while warm)`.
 */
export function formatResumeCost(c: ResumeCost): string {
  const tokens = `about ${c.tokens.toLocaleString('en-US')} tokens`;
  const when = c.ageSeconds === null ? 'time of the last turn unknown' : `last turn ${ago(c.ageSeconds)} ago`;
  if (c.usd === null) return `${tokens}, cost unknown (${c.model ?? 'no model'} has no price), ${when}`;
  const state =
    c.cache === 'warm'
      ? `the cache likely warm (${when}, cache ${ago(c.ttlSeconds)}; ${formatUsd(c.coldUsd ?? 0)} once cold)`
      : c.cache === 'cold'
        ? `the cache likely cold (${when}; ${formatUsd(c.warmUsd ?? 0)} while warm)`
        : `counted cold (${when}; ${formatUsd(c.warmUsd ?? 0)} if warm)`;
  return `${tokens}, about ${formatUsd(c.usd)} if resumed now, ${state}`;
}
