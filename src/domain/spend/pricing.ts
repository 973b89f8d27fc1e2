/**
 * Model prices, and turning tokens into an estimated cost in US dollars.
 *
 * The built-in table is an ESTIMATE: list prices per million tokens for standard (not batch,
 * not priority) requests with prompts under the long-context tier, as the providers published
 * them around {@link PRICING_AS_OF}. Prices change and differ by contract, region and tier;
 * a store's pricing file overrides any row (docs/tokens-and-cost.md). A model that is not in
 * the table has an unknown cost: it is reported as such, never guessed.
 */
import { BatonError } from '../errors.js';
import type { TokenCounts } from '../state.js';

/** When the built-in prices were collected (year-month). */
export const PRICING_AS_OF = '2026-06';

/** US dollars per million tokens. `cacheWrite` is the 5-minute cache write where a provider has several. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Prices by model id (lower case). */
export type PricingTable = Record<string, ModelPrice>;

function p(input: number, output: number, cacheRead: number, cacheWrite: number): ModelPrice {
  return { input, output, cacheRead, cacheWrite };
}

/*
 * Anthropic: cache reads at 0.1x input, 5-minute cache writes at 1.25x input.
 * OpenAI and Gemini bill no separate cache write per token: a cache write is priced as input.
 */
/** The built-in table (see the module comment: an estimate as of {@link PRICING_AS_OF}). */
export const BUILTIN_PRICING: Readonly<PricingTable> = Object.freeze({
  'claude-opus-4-8': p(5, 25, 0.5, 6.25),
  'claude-opus-4-7': p(5, 25, 0.5, 6.25),
  'claude-opus-4-6': p(5, 25, 0.5, 6.25),
  'claude-opus-4-5': p(5, 25, 0.5, 6.25),
  'claude-opus-4-1': p(15, 75, 1.5, 18.75),
  'claude-opus-4': p(15, 75, 1.5, 18.75),
  'claude-sonnet-4-6': p(3, 15, 0.3, 3.75),
  'claude-sonnet-4-5': p(3, 15, 0.3, 3.75),
  'claude-sonnet-4': p(3, 15, 0.3, 3.75),
  'claude-3-7-sonnet': p(3, 15, 0.3, 3.75),
  'claude-haiku-4-5': p(1, 5, 0.1, 1.25),
  'claude-3-5-haiku': p(0.8, 4, 0.08, 1),
  'gpt-5.5': p(5, 30, 0.5, 5),
  'gpt-5.4': p(2.5, 15, 0.25, 2.5),
  'gpt-5.4-mini': p(0.75, 4.5, 0.075, 0.75),
  'gpt-5.4-nano': p(0.2, 1.25, 0.02, 0.2),
  'gpt-5.1': p(1.25, 10, 0.125, 1.25),
  'gpt-5.1-codex': p(1.25, 10, 0.125, 1.25),
  'gpt-5': p(1.25, 10, 0.125, 1.25),
  'gpt-5-codex': p(1.25, 10, 0.125, 1.25),
  'gpt-5-mini': p(0.25, 2, 0.025, 0.25),
  'gpt-5-nano': p(0.05, 0.4, 0.005, 0.05),
  'gpt-4.1': p(2, 8, 0.5, 2),
  'gemini-3.1-pro': p(2, 12, 0.2, 2),
  'gemini-3-pro': p(2, 12, 0.2, 2),
  'gemini-3-flash': p(0.5, 3, 0.05, 0.5),
  'gemini-2.5-pro': p(1.25, 10, 0.125, 1.25),
  'gemini-2.5-flash': p(0.3, 2.5, 0.03, 0.3),
  'gemini-2.5-flash-lite': p(0.1, 0.4, 0.01, 0.1),
});

/**
 * The ids a model name is looked up under, most specific first: as given (lower case), then
 * without a provider prefix (`models/`, `anthropic/`), a Vertex `@version`, a release date
 * (`-20250929`, `-2025-09-29`) and a `-preview`/`-latest` tag. Never a different model.
 */
export function modelIds(model: string): string[] {
  const ids: string[] = [];
  let m = model.trim().toLowerCase();
  const add = (x: string): void => {
    if (x && !ids.includes(x)) ids.push(x);
  };
  add(m);
  m = m.slice(m.lastIndexOf('/') + 1);
  add(m);
  m = m.replace(/@.*$/, '');
  add(m);
  m = m.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  add(m);
  m = m.replace(/-(preview(-\d{2}-\d{4})?|latest)$/, '');
  add(m);
  return ids;
}

/** The price of a model, or null when the table does not know it. */
export function priceOf(table: PricingTable, model: string | null | undefined): ModelPrice | null {
  if (!model) return null;
  for (const id of modelIds(model)) if (Object.hasOwn(table, id)) return table[id]!;
  return null;
}

/** Estimated cost in US dollars of some token counts at a price. */
export function costOf(c: TokenCounts, price: ModelPrice): number {
  return (
    (c.input * price.input +
      c.output * price.output +
      c.cached * price.cacheRead +
      (c.cacheWrite ?? 0) * price.cacheWrite) /
    1_000_000
  );
}

const FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/**
 * Reads a pricing override (the JSON text of a store's pricing file) and returns the table in
 * effect: the built-in one with the file's rows over it. Shape:
 * `{ "models": { "<model id>": { "input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75 } } }`
 * in US dollars per million tokens; `cacheRead` defaults to `input`, `cacheWrite` to `input`;
 * a row set to null removes a built-in model (its cost becomes unknown). Anything else is a
 * `BAD_INPUT` naming `file`.
 */
export function applyPricingOverride(
  text: string,
  file: string,
  base: Readonly<PricingTable> = BUILTIN_PRICING,
): PricingTable {
  const bad = (why: string): BatonError =>
    new BatonError('BAD_INPUT', `The pricing file ${file} is not valid: ${why}.`, {
      hint: `Fix it (shape: {"models": {"<model>": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}}, dollars per million tokens) or remove it to use the built-in prices.`,
      details: { file },
    });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw bad(`it is not JSON (${(e as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('it must be a JSON object');
  const models = (doc as Record<string, unknown>)['models'];
  if (typeof models !== 'object' || models === null || Array.isArray(models)) throw bad('it needs a "models" object');
  const table: PricingTable = { ...base };
  for (const [name, row] of Object.entries(models as Record<string, unknown>)) {
    const id = name.trim().toLowerCase();
    if (!id || id.length > 200) throw bad(`model name ${JSON.stringify(name)} is empty or too long`);
    if (row === null) {
      delete table[id];
      continue;
    }
    if (typeof row !== 'object' || Array.isArray(row))
      throw bad(`the row of ${JSON.stringify(name)} must be an object or null`);
    const r = row as Record<string, unknown>;
    for (const k of Object.keys(r))
      if (!(FIELDS as readonly string[]).includes(k))
        throw bad(`${JSON.stringify(name)} has an unknown field ${JSON.stringify(k)} (fields: ${FIELDS.join(', ')})`);
    const num = (k: (typeof FIELDS)[number], fallback?: number): number => {
      const v = r[k] ?? fallback;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1_000_000)
        throw bad(
          `${JSON.stringify(name)}.${k} must be a price from 0 to 1000000 dollars per million tokens; got ${JSON.stringify(r[k] ?? null)}`,
        );
      return v;
    };
    const input = num('input');
    table[id] = {
      input,
      output: num('output'),
      cacheRead: num('cacheRead', input),
      cacheWrite: num('cacheWrite', input),
    };
  }
  return table;
}
