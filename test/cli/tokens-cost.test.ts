/**
 * Cost through the CLI: `tokens add --model` and `--cache-write`, the estimated cost in
 * `tokens`, `status`, the handoff and `--json` by agent, phase and model, the cost budget
 * warnings (80 %, 95 %, exceeded), and the store's pricing file (valid, and malformed: a
 * clear error naming it, nothing changed).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, withSession, workspace } from './helpers.js';
import type { StatusJson, TokensJson } from './helpers.js';

describe('tokens add --model and the estimated cost', () => {
  it('prices each model apart, and says which tokens have no price', async () => {
    const ws = await withSession('c1', 'plan,code');
    // claude-sonnet-4-5: 1M in $3, 100k out $1.50, 2M cache read $0.60, 400k cache write $1.50.
    const add = await ws.json<{ tokens: Record<string, unknown> }>([
      'tokens',
      'add',
      '--agent',
      'claude',
      '--phase',
      'plan',
      '--model',
      'claude-sonnet-4-5-20250929',
      '--input',
      '1000000',
      '--output',
      '100000',
      '--cached',
      '2000000',
      '--cache-write',
      '400000',
    ]);
    expect(add.tokens).toMatchObject({
      input: 1_000_000,
      cacheWrite: 400_000,
      cost: { usd: 6.6, pricedUsd: 6.6, unpriced: { tokens: 0, models: [] } },
    });
    await ws.ok(['tokens', 'add', '--agent', 'codex', '--phase', 'code', '--model', 'gpt-mock', '--input', '500']);

    const t = await ws.json<
      TokensJson & {
        cost: {
          total: unknown;
          byAgent: Record<string, unknown>;
          byModel: Record<string, unknown>;
          byPhase: Record<string, unknown>;
        };
      }
    >(['tokens']);
    expect(t.byModel).toEqual({
      'claude-sonnet-4-5-20250929': { input: 1_000_000, output: 100_000, cached: 2_000_000, cacheWrite: 400_000 },
      'gpt-mock': { input: 500, output: 0, cached: 0 },
    });
    expect(t.cost.total).toEqual({ usd: null, pricedUsd: 6.6, unpriced: { tokens: 500, models: ['gpt-mock'] } });
    expect(t.cost.byAgent['claude']).toEqual({ usd: 6.6, pricedUsd: 6.6, unpriced: { tokens: 0, models: [] } });
    expect(t.cost.byPhase['code']).toEqual({
      usd: null,
      pricedUsd: 0,
      unpriced: { tokens: 500, models: ['gpt-mock'] },
    });

    const human = (await ws.ok(['tokens', '--by', 'model'])).stdout;
    expect(human).toContain('Cost (estimate): at least $6.60 (500 tokens of gpt-mock not priced)\n');
    expect(human).toMatch(/^ {2}MODEL\s+INPUT\s+OUTPUT\s+CACHED\s+COST$/m);
    expect(human).toMatch(/^ {2}gpt-mock\s+500\s+0\s+0 {2}unknown \(500 tokens of gpt-mock not priced\)$/m);
    expect((await ws.ok(['status'])).stdout).toContain(
      'Cost (estimate): at least $6.60 (500 tokens of gpt-mock not priced)\n',
    );
    const s = await ws.status();
    expect(
      (s.tokens as unknown as { cost: { byModel: Record<string, unknown> } }).cost.byModel[
        'claude-sonnet-4-5-20250929'
      ],
    ).toEqual({ usd: 6.6, pricedUsd: 6.6, unpriced: { tokens: 0, models: [] } });
    const handoff = (await ws.ok(['handoff'])).stdout;
    expect(handoff).toContain('- Cost (estimate): at least $6.60 (500 tokens of gpt-mock not priced)\n');
    expect(handoff).toContain('- Cost by agent: claude $6.60; codex unknown (500 tokens of gpt-mock not priced)\n');

    const log = (await ws.log()).filter((e) => e.type === 'tokens.recorded').map((e) => e.data);
    expect(log[0]).toMatchObject({ model: 'claude-sonnet-4-5-20250929', cacheWrite: 400_000 });
  });

  it('cost budget: warnings at 80 % and 95 % and when exceeded, on stderr only', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Cost', '--id', 'cb']);
    expect((await ws.ok(['budget', 'set', '--cost', '10'])).stdout).toBe('Cost budget set to $10.00\n');
    // claude-haiku-4-5 output: $5 per million tokens.
    const add = (output: number) =>
      ws.run(['tokens', 'add', '--agent', 'a', '--model', 'claude-haiku-4-5', '--output', String(output)]);
    expect((await add(1_500_000)).stderr).toBe('');
    const warn = await add(100_000);
    expect(warn.code).toBe(0);
    expect(warn.stdout).toBe(
      'Recorded 0 in / 100,000 out / 0 cached for a (claude-haiku-4-5)\nSession total: 0 in / 1,600,000 out / 0 cached\n',
    );
    expect(warn.stderr).toBe('cost-budget[warning]: $8.00 of $10.00 used (80%).\n');
    expect((await add(300_000)).stderr).toBe('cost-budget[critical]: $9.50 of $10.00 used (95%).\n');
    expect((await add(200_000)).stderr).toBe('cost-budget[exceeded]: $10.50 of $10.00 used (105%).\n');
    const t = await ws.json<{ cost: { budget: unknown } }>(['tokens']);
    expect(t.cost.budget).toEqual({ maxUsd: 10, usedUsd: 10.5, percent: 105, level: 'exceeded', complete: true });
    // Tokens without a price can only make it worse: the warning says they are left out.
    expect((await ws.run(['tokens', 'add', '--agent', 'b', '--input', '5'])).stderr).toBe(
      'cost-budget[exceeded]: $10.50 of $10.00 used (105%), not counting tokens without a price.\n',
    );
    await ws.ok(['budget', 'clear', '--cost']);
    expect((await ws.json<{ cost: { budget: { maxUsd: unknown } } }>(['tokens'])).cost.budget.maxUsd).toBeNull();
    expectError(await ws.run(['budget', 'set', '--cost', 'lots']), 'BAD_INPUT');
    expectError(await ws.run(['budget', 'set']), 'BAD_INPUT');
  });
});

describe('the pricing file (.baton/pricing.json)', () => {
  it('overrides the built-in prices for every report', async () => {
    const ws = await withSession('pf');
    await ws.ok([
      'tokens',
      'add',
      '--agent',
      'codex',
      '--model',
      'gpt-mock',
      '--input',
      '2000000',
      '--output',
      '1000000',
    ]);
    ws.write('.baton/pricing.json', JSON.stringify({ models: { 'gpt-mock': { input: 1, output: 4 } } }));
    expect((await ws.json<{ cost: { total: unknown } }>(['tokens'])).cost.total).toEqual({
      usd: 6,
      pricedUsd: 6,
      unpriced: { tokens: 0, models: [] },
    });
    const s = await ws.status();
    expect((s.tokens as unknown as { cost: { total: { usd: number } } }).cost.total.usd).toBe(6);
    const p = await ws.json<{ file: string; overridden: string[]; models: Record<string, unknown> }>(['pricing']);
    expect(p.file).toBe(ws.path('.baton', 'pricing.json'));
    expect(p.overridden).toEqual(['gpt-mock']);
    expect(p.models['claude-haiku-4-5']).toEqual({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
    // BATON_PRICING names another file, which then wins.
    const other = ws.write('prices.json', JSON.stringify({ models: { 'gpt-mock': { input: 2, output: 8 } } }));
    expect(
      (await ws.json<{ cost: { total: { usd: number } } }>(['tokens'], { env: { BATON_PRICING: other } })).cost.total
        .usd,
    ).toBe(12);
  });

  it('a malformed file: a clear error naming it, the file untouched, recording still works', async () => {
    const ws = await withSession('bad');
    const file = ws.write('.baton/pricing.json', '{"models": {"gpt-mock": {"input": "cheap"}}}');
    const before = fs.readFileSync(file, 'utf8');
    const e = expectError(await ws.run(['tokens']), 'BAD_INPUT');
    expect(e.message).toBe(
      `The pricing file ${file} is not valid: "gpt-mock".input must be a price from 0 to 1000000 dollars per million tokens; got "cheap".`,
    );
    expectError(await ws.run(['status']), 'BAD_INPUT');
    const add = await ws.run(['tokens', 'add', '--agent', 'a', '--model', 'gpt-mock', '--input', '7']);
    expect(add.code).toBe(0);
    expect(add.stderr).toContain(`warning: cost not estimated: The pricing file ${file} is not valid`);
    expect((await ws.ok(['handoff'])).stdout).toContain(`- Cost: not estimated (The pricing file ${file} is not valid`);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect((await ws.log()).filter((x) => x.type === 'tokens.recorded')).toHaveLength(1);
    fs.rmSync(file);
    expect(((await ws.status()) as StatusJson).tokens.input).toBe(7);
  });
});
