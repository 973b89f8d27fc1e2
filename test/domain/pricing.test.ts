/**
 * Prices and cost: the arithmetic per model (input, output, cache reads and writes apart),
 * model names with dates and prefixes, unknown models never priced, the cost report by
 * agent, phase and model, the cost budget levels, and the pricing override (valid and not).
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { NO_MODEL, costBudgetView, costReport, formatCost } from '../../src/domain/spend/cost.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { BUILTIN_PRICING, applyPricingOverride, costOf, modelIds, priceOf } from '../../src/domain/spend/pricing.js';
import type { SessionState } from '../../src/domain/state.js';

const M = 1_000_000;

function session(
  records: Array<{
    agent: string;
    phaseId?: string | null;
    model?: string;
    input?: number;
    output?: number;
    cached?: number;
    cacheWrite?: number;
  }>,
  costBudgetUsd?: number,
): SessionState {
  const actor = { agent: null, pid: 1, host: 'h' };
  const events = [
    {
      seq: 1,
      type: 'session.created',
      time: 't',
      actor,
      data: {
        title: 't',
        idFormat: 'explicit',
        phases: [
          { id: 'p1', name: 'p1' },
          { id: 'p2', name: 'p2' },
        ],
        budgetMax: null,
      },
    },
    ...records.map((r, i) => ({
      seq: i + 2,
      type: 'tokens.recorded',
      time: 't',
      actor,
      data: {
        agent: r.agent,
        phaseId: r.phaseId ?? null,
        input: r.input ?? 0,
        output: r.output ?? 0,
        cached: r.cached ?? 0,
        ...(r.cacheWrite ? { cacheWrite: r.cacheWrite } : {}),
        ...(r.model ? { model: r.model } : {}),
      },
    })),
    ...(costBudgetUsd === undefined
      ? []
      : [{ seq: records.length + 2, type: 'budget.cost_set', time: 't', actor, data: { maxUsd: costBudgetUsd } }]),
  ] as StoredEvent[];
  return fold(null, events, 's')!;
}

describe('prices', () => {
  it('cost per model: input, output, cache reads and cache writes each at their own price', () => {
    const c = { input: 2 * M, output: M / 2, cached: 10 * M, cacheWrite: M };
    // Claude Sonnet 4.5: 3 in, 15 out, 0.30 cache read, 3.75 cache write.
    expect(costOf(c, priceOf(BUILTIN_PRICING, 'claude-sonnet-4-5')!)).toBeCloseTo(6 + 7.5 + 3 + 3.75, 10);
    // GPT-5: 1.25 in, 10 out, 0.125 cached; a cache write priced as input.
    expect(costOf(c, priceOf(BUILTIN_PRICING, 'gpt-5')!)).toBeCloseTo(2.5 + 5 + 1.25 + 1.25, 10);
    // Gemini 2.5 Pro: 1.25 in, 10 out, 0.125 cached.
    expect(costOf({ input: M, output: M, cached: M }, priceOf(BUILTIN_PRICING, 'gemini-2.5-pro')!)).toBeCloseTo(
      1.25 + 10 + 0.125,
      10,
    );
  });

  it('finds dated, prefixed and tagged names of a known model, and nothing for an unknown one', () => {
    expect(modelIds('models/Gemini-2.5-Pro')).toContain('gemini-2.5-pro');
    expect(priceOf(BUILTIN_PRICING, 'claude-sonnet-4-5-20250929')).toEqual(BUILTIN_PRICING['claude-sonnet-4-5']);
    expect(priceOf(BUILTIN_PRICING, 'anthropic/claude-opus-4-1@20250805')).toEqual(BUILTIN_PRICING['claude-opus-4-1']);
    expect(priceOf(BUILTIN_PRICING, 'gemini-3-pro-preview')).toEqual(BUILTIN_PRICING['gemini-3-pro']);
    expect(priceOf(BUILTIN_PRICING, 'gpt-mock')).toBeNull();
    // A bigger sibling is a different model, never a fallback.
    expect(priceOf(BUILTIN_PRICING, 'claude-sonnet-9')).toBeNull();
    expect(priceOf(BUILTIN_PRICING, null)).toBeNull();
  });
});

describe('cost report', () => {
  it('by agent, phase and model; tokens of an unknown model or of no model make the cost unknown, with the priced part kept', () => {
    const s = session([
      { agent: 'claude', phaseId: 'p1', model: 'claude-sonnet-4-5', input: M, output: M },
      { agent: 'codex', phaseId: 'p2', model: 'gpt-5', input: M, cached: M },
      { agent: 'codex', phaseId: 'p2', model: 'gpt-mock', input: 500 },
      { agent: 'human', phaseId: 'p1', input: 100 },
    ]);
    const r = costReport(s, BUILTIN_PRICING);
    expect(r.byAgent['claude']).toEqual({ usd: 18, pricedUsd: 18, unpriced: { tokens: 0, models: [] } });
    expect(r.byAgent['codex']).toEqual({
      usd: null,
      pricedUsd: 1.375,
      unpriced: { tokens: 500, models: ['gpt-mock'] },
    });
    expect(r.byAgent['human']).toEqual({ usd: null, pricedUsd: 0, unpriced: { tokens: 100, models: [NO_MODEL] } });
    expect(r.byPhase['p1']).toEqual({ usd: null, pricedUsd: 18, unpriced: { tokens: 100, models: [NO_MODEL] } });
    expect(r.byModel['gpt-5']).toEqual({ usd: 1.375, pricedUsd: 1.375, unpriced: { tokens: 0, models: [] } });
    expect(r.byModel['gpt-mock']!.usd).toBeNull();
    expect(r.total).toEqual({
      usd: null,
      pricedUsd: 19.375,
      unpriced: { tokens: 600, models: [NO_MODEL, 'gpt-mock'] },
    });
    expect(formatCost(r.total)).toBe(`at least $19.38 (600 tokens of ${NO_MODEL}, gpt-mock not priced)`);
    expect(formatCost(r.byAgent['human']!)).toBe(`unknown (100 tokens of ${NO_MODEL} not priced)`);
    expect(formatCost(r.byAgent['claude']!)).toBe('$18.00');
  });

  it('cost budget: ok below 80 %, warning from 80 %, critical from 95 %, exceeded above 100 %', () => {
    // Claude Haiku 4.5 output: $5 per million, so 200,000 output tokens cost $1.
    const at = (output: number): string =>
      costReport(session([{ agent: 'a', model: 'claude-haiku-4-5', output }], 10), BUILTIN_PRICING).budget.level;
    expect(at(1_590_000)).toBe('ok');
    expect(at(1_600_000)).toBe('warning');
    expect(at(1_899_999)).toBe('warning');
    expect(at(1_900_000)).toBe('critical');
    expect(at(2_000_000)).toBe('critical');
    expect(at(2_000_200)).toBe('exceeded');
    expect(
      costReport(session([{ agent: 'a', model: 'claude-haiku-4-5', output: 1_600_000 }], 10), BUILTIN_PRICING).budget,
    ).toEqual({ maxUsd: 10, usedUsd: 8, percent: 80, level: 'warning', complete: true });
    expect(costBudgetView(null, { usd: 1, pricedUsd: 1, unpriced: { tokens: 0, models: [] } }).level).toBe('none');
  });
});

describe('pricing override', () => {
  it('adds and replaces rows, defaults cache prices to the input price, and null removes a model', () => {
    const t = applyPricingOverride(
      JSON.stringify({
        models: {
          'GPT-Mock': { input: 1, output: 2 },
          'claude-sonnet-4-5': { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 },
          'gpt-5': null,
        },
      }),
      '/x/pricing.json',
    );
    expect(t['gpt-mock']).toEqual({ input: 1, output: 2, cacheRead: 1, cacheWrite: 1 });
    expect(t['claude-sonnet-4-5']).toEqual({ input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 });
    expect(priceOf(t, 'gpt-5')).toBeNull();
    expect(t['claude-haiku-4-5']).toEqual(BUILTIN_PRICING['claude-haiku-4-5']);
    // The built-in table itself is never changed.
    expect(BUILTIN_PRICING['gpt-5']).toBeDefined();
  });

  it.each([
    ['not JSON', '{"models": ', 'not JSON'],
    ['no models object', '{"prices": {}}', '"models"'],
    ['a negative price', '{"models": {"m": {"input": -1, "output": 1}}}', '"m".input'],
    ['a missing output', '{"models": {"m": {"input": 1}}}', '"m".output'],
    ['an unknown field', '{"models": {"m": {"input": 1, "output": 1, "cache": 1}}}', 'unknown field "cache"'],
    ['a row that is a number', '{"models": {"m": 3}}', 'must be an object'],
  ])('refuses %s with BAD_INPUT naming the file', (_what, text, part) => {
    let err: unknown;
    try {
      applyPricingOverride(text, '/ws/.baton/pricing.json');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'BAD_INPUT', details: { file: '/ws/.baton/pricing.json' } });
    expect((err as Error).message).toContain('/ws/.baton/pricing.json');
    expect((err as Error).message).toContain(part);
  });
});
