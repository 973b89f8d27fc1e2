import { describe, expect, it } from 'vitest';
import { decidePhase, decideTokens, MAX_TOKENS_PER_RECORD, positive, tokenCount } from '../../src/domain/decide.js';
import type { SessionState, TokenUsage } from '../../src/domain/state.js';
import { decideBudgetPolicy } from '../../src/domain/spend/budget-policy.js';
import { budgetView, BUDGET_CRITICAL, BUDGET_WARNING } from '../../src/domain/toolkits/tokens.js';
import { commit, refusal, session } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

describe('tokenCount', () => {
  it.each([
    ['12', 12],
    [' 12 ', 12],
    ['0', 0],
    [0, 0],
    [1200, 1200],
    [MAX_TOKENS_PER_RECORD, MAX_TOKENS_PER_RECORD],
    [String(MAX_TOKENS_PER_RECORD), MAX_TOKENS_PER_RECORD],
  ])('accepts %j as %d', (v, n) => {
    expect(tokenCount(v, 'input')).toBe(n);
  });

  it.each([
    ['abc'],
    ['1.5'],
    ['-1'],
    ['12abc'],
    [''],
    [' '],
    ['1e3'],
    ['0x10'],
    [-1],
    [1.5],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [Number.NEGATIVE_INFINITY],
    [MAX_TOKENS_PER_RECORD + 1],
    [null],
    [true],
    [{}],
    [[5]],
  ])('rejects %j with BAD_INPUT', (v) => {
    const err = refusal(() => tokenCount(v, 'output'), 'BAD_INPUT');
    expect(err.message).toMatch(/^output must be a whole number/);
    expect(cliHint(err)).toContain('--output');
  });

  it('quotes the bad value in the message', () => {
    expect(refusal(() => tokenCount('abc', 'input')).message).toContain('got "abc"');
    expect(refusal(() => tokenCount(-1, 'input')).message).toContain('got -1');
  });
});

describe('positive', () => {
  it('accepts positive integers and numeric strings', () => {
    expect(positive(1, 'budget')).toBe(1);
    expect(positive('500', 'budget')).toBe(500);
  });
  it.each([[0], ['0'], [-5], [1.5], ['x'], [Number.NaN], [Number.POSITIVE_INFINITY]])('rejects %j', (v) => {
    expect(refusal(() => positive(v, 'budget'), 'BAD_INPUT').message).toMatch(
      /^budget must be a positive whole number/,
    );
  });
});

function twoPhases(budgetMax: number | null = null): SessionState {
  return session(
    [
      { id: 'design', name: 'Design' },
      { id: 'build', name: 'Build' },
    ],
    { budgetMax },
  );
}

describe('decideTokens', () => {
  it('builds a tokens.recorded event, reading numeric strings and defaulting missing counts to 0', () => {
    const s = twoPhases();
    expect(decideTokens(s, { agent: 'alice', phase: 'design', input: '12', output: 3 })).toEqual([
      { type: 'tokens.recorded', data: { agent: 'alice', phaseId: 'design', input: 12, output: 3, cached: 0 } },
    ]);
    expect(decideTokens(s, { agent: 'bob' })[0]!.data).toEqual({
      agent: 'bob',
      phaseId: null,
      input: 0,
      output: 0,
      cached: 0,
    });
  });

  it('resolves a phase by name, and refuses an unknown one with NOT_FOUND', () => {
    const s = twoPhases();
    expect(decideTokens(s, { agent: 'a', phase: 'Build', input: 1 })[0]!.data).toMatchObject({ phaseId: 'build' });
    expect(decideTokens(s, { agent: 'a', phase: '', input: 1 })[0]!.data).toMatchObject({ phaseId: null });
    expect(cliHint(refusal(() => decideTokens(s, { agent: 'a', phase: 'deploy', input: 1 }), 'NOT_FOUND'))).toContain(
      'design, build',
    );
  });

  it('refuses a missing agent and bad counts', () => {
    const s = twoPhases();
    expect(refusal(() => decideTokens(s, { agent: '', input: 1 }), 'BAD_INPUT').message).toMatch(/agent name/);
    refusal(() => decideTokens(s, { agent: 'a', input: -1 }), 'BAD_INPUT');
    refusal(() => decideTokens(s, { agent: 'a', output: 'abc' }), 'BAD_INPUT');
    refusal(() => decideTokens(s, { agent: 'a', cached: 1.5 }), 'BAD_INPUT');
    refusal(() => decideTokens(s, { agent: 'a', input: Number.NaN }), 'BAD_INPUT');
  });
});

describe('token totals after folding', () => {
  it('sums totals, by agent and by phase; unattributed use counts only in totals and by agent', () => {
    let s = twoPhases();
    const records = [
      { agent: 'alice', phase: 'design', input: 100, output: 10, cached: 1 },
      { agent: 'bob', phase: 'design', input: 200, output: 20, cached: 2 },
      { agent: 'alice', phase: 'build', input: 300, output: 30, cached: 3 },
      { agent: 'alice', phase: null, input: 400, output: 40, cached: 4 },
      { agent: 'carol', phase: 'build', input: '5', output: '6', cached: '7' },
    ];
    for (const r of records) s = commit(s, decideTokens(s, r));
    expect(s.tokens).toEqual({
      input: 1005,
      output: 106,
      cached: 17,
      budgetMax: null,
      byAgent: {
        alice: { input: 800, output: 80, cached: 8 },
        bob: { input: 200, output: 20, cached: 2 },
        carol: { input: 5, output: 6, cached: 7 },
      },
      byPhase: {
        design: { input: 300, output: 30, cached: 3 },
        build: { input: 305, output: 36, cached: 10 },
      },
      // Every record was made by the one host these events name.
      byHost: { 'test-host': { input: 1005, output: 106, cached: 17 } },
    });
    expect(s.revision).toBe(1 + records.length);
  });

  it('the by-agent buckets are independent objects', () => {
    let s = twoPhases();
    s = commit(s, decideTokens(s, { agent: 'a', input: 1 }));
    s = commit(s, decideTokens(s, { agent: 'b', input: 2 }));
    expect(s.tokens.byAgent['a']).toEqual({ input: 1, output: 0, cached: 0 });
    expect(s.tokens.byAgent['b']).toEqual({ input: 2, output: 0, cached: 0 });
  });

  it('phase verbs do not touch token counts', () => {
    let s = twoPhases();
    s = commit(s, decideTokens(s, { agent: 'a', input: 1 }));
    s = commit(s, decidePhase(s, 'design', 'start'));
    expect(s.tokens.input).toBe(1);
  });
});

describe('budget', () => {
  function usage(input: number, output: number, budgetMax: number | null, cached = 0): TokenUsage {
    return { input, output, cached, byAgent: {}, byPhase: {}, budgetMax };
  }

  it('uses 80 % and 95 % thresholds', () => {
    expect(BUDGET_WARNING).toBe(0.8);
    expect(BUDGET_CRITICAL).toBe(0.95);
  });

  it.each([
    [0, 'ok', 0],
    [500, 'ok', 50],
    [799, 'ok', 79.9],
    [800, 'warning', 80],
    [949, 'warning', 94.9],
    [950, 'critical', 95],
    [999, 'critical', 99.9],
    [1000, 'critical', 100],
    [1001, 'exceeded', 100.1],
    [2500, 'exceeded', 250],
  ])('used %d of 1000 → %s (%d %%)', (used, level, percent) => {
    // split between input and output: both count
    const view = budgetView(usage(Math.floor(used / 2), used - Math.floor(used / 2), 1000));
    expect(view).toEqual({ max: 1000, used, percent, level });
  });

  it('does not count cached tokens against the budget', () => {
    expect(budgetView(usage(100, 0, 1000, 900))).toEqual({ max: 1000, used: 100, percent: 10, level: 'ok' });
  });

  it('reports level none with no budget, still counting use', () => {
    expect(budgetView(usage(70, 30, null, 5))).toEqual({ max: null, used: 100, percent: null, level: 'none' });
  });

  it('rounds the percentage to one decimal', () => {
    expect(budgetView(usage(1, 0, 3)).percent).toBe(33.3);
    expect(budgetView(usage(2, 0, 3)).percent).toBe(66.7);
  });

  it('a token budget is set and cleared; fold applies it', () => {
    let s = twoPhases(1000);
    expect(s.tokens.budgetMax).toBe(1000);
    expect(decideBudgetPolicy(s, { tokens: '5000' })).toEqual([{ type: 'budget.set', data: { max: 5000 } }]);
    s = commit(s, decideBudgetPolicy(s, { tokens: 5000 }));
    expect(s.tokens.budgetMax).toBe(5000);
    s = commit(s, decideBudgetPolicy(s, { tokens: null }));
    expect(s.tokens.budgetMax).toBeNull();
    for (const bad of [0, -1, 'lots', 2.5])
      refusal(() => decideBudgetPolicy(s, { tokens: bad as number }), 'BAD_INPUT');
  });

  it('levels move as folded token use crosses the thresholds', () => {
    let s = twoPhases(100);
    const levels: string[] = [];
    for (const n of [79, 1, 14, 1, 5, 1]) {
      s = commit(s, decideTokens(s, { agent: 'a', input: n }));
      levels.push(budgetView(s.tokens).level);
    }
    expect(levels).toEqual(['ok', 'warning', 'warning', 'critical', 'critical', 'exceeded']);
  });
});
