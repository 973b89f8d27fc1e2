/**
 * Budget policies in the domain: a `budget.set` changes only the fields it carries (an old
 * event, only `max`); phase and agent budgets fold into their own maps and never alter the
 * state they were folded from; the verdict picks the strictest exceeded policy; new work past
 * a stop budget is refused with BUDGET_EXCEEDED while records of work done are not.
 */
import { describe, expect, it } from 'vitest';
import { assertBudget, budgetVerdict, decideBudgetPolicy } from '../../src/domain/spend/budget-policy.js';
import { decidePhase, decideTokens } from '../../src/domain/decide.js';
import { commit, refusal, session } from './helpers.js';

const spec = [
  { id: 'design', name: 'design' },
  { id: 'build', name: 'build' },
];

describe('budget policies', () => {
  it('a budget.set changes only the fields it carries; an old event { max } still folds', () => {
    let s = session(spec);
    s = commit(s, decideBudgetPolicy(s, { tokens: '3000', onExceed: 'stop' }));
    expect([s.tokens.budgetMax, s.tokens.onExceed]).toEqual([3000, 'stop']);
    s = commit(s, decideBudgetPolicy(s, { usd: '2.5' }));
    expect([s.tokens.budgetMax, s.tokens.costBudgetUsd, s.tokens.onExceed]).toEqual([3000, 2.5, 'stop']);
    s = commit(s, [{ type: 'budget.set', data: { max: 100 } }]);
    expect([s.tokens.budgetMax, s.tokens.onExceed]).toEqual([100, 'stop']);
  });

  it('phase and agent budgets fold into their own maps without touching the state they came from', () => {
    const s0 = session(spec);
    const s1 = commit(s0, decideBudgetPolicy(s0, { tokens: 500, phase: 'build', onExceed: 'ask' }));
    const s2 = commit(s1, decideBudgetPolicy(s1, { usd: 1, phase: 'build' }));
    expect(s1.tokens.phaseBudgets).toEqual({ build: { tokens: 500, usd: null, onExceed: 'ask' } });
    expect(s2.tokens.phaseBudgets).toEqual({ build: { tokens: 500, usd: 1, onExceed: 'ask' } });
    expect(s0.tokens.phaseBudgets).toBeUndefined();
    const s3 = commit(s2, decideBudgetPolicy(s2, { tokens: null, usd: null, phase: 'build' }));
    expect(s3.tokens.phaseBudgets).toEqual({});
    const s4 = commit(s3, decideBudgetPolicy(s3, { tokens: 10, agent: 'rev' }));
    expect(s4.tokens.agentBudgets).toEqual({ rev: { tokens: 10, usd: null, onExceed: 'warn' } });
  });

  it('refuses bad input with a way out: nothing to set, an unknown policy or phase, a phase and an agent at once', () => {
    const s = session(spec);
    expect(refusal(() => decideBudgetPolicy(s, {}), 'BAD_INPUT').message).toMatch(/needs a token budget/);
    expect(refusal(() => decideBudgetPolicy(s, { onExceed: 'halt' }), 'BAD_INPUT').message).toMatch(
      /warn, ask or stop/,
    );
    refusal(() => decideBudgetPolicy(s, { tokens: 1, phase: 'nope' }), 'NOT_FOUND');
    refusal(() => decideBudgetPolicy(s, { tokens: 1, phase: 'build', agent: 'a' }), 'BAD_INPUT');
    refusal(() => decideBudgetPolicy(s, { usd: '-3' }), 'BAD_INPUT');
  });

  it('the verdict: warn at 80 %, the strictest exceeded policy wins, scoped budgets only for their phase or agent', () => {
    let s = session(spec);
    s = commit(s, decideBudgetPolicy(s, { tokens: 1000, onExceed: 'ask' }));
    s = commit(s, decideBudgetPolicy(s, { tokens: 100, phase: 'build', onExceed: 'stop' }));
    s = commit(s, decideTokens(s, { agent: 'a', phase: 'design', input: 850, output: 0 }));
    expect(budgetVerdict(s, null, { phase: 'design', agent: 'a' }).action).toBe('warn');
    s = commit(s, decideTokens(s, { agent: 'a', phase: 'build', input: 200, output: 0 }));
    const design = budgetVerdict(s, null, { phase: 'design', agent: 'a' });
    expect([design.action, design.worst?.scope]).toEqual(['ask', 'session']);
    const build = budgetVerdict(s, null, { phase: 'build', agent: 'a' });
    expect([build.action, build.worst?.scope, build.worst?.name, build.worst?.used]).toEqual([
      'stop',
      'phase',
      'build',
      200,
    ]);
  });

  it('past a stop budget, starting work is BUDGET_EXCEEDED with a raise hint; records of work done are not refused', () => {
    let s = session(spec);
    s = commit(s, decideBudgetPolicy(s, { tokens: 1000, onExceed: 'stop' }));
    s = commit(s, decideTokens(s, { agent: 'a', input: 1200, output: 0 }));
    const e = refusal(
      () => assertBudget(s, decidePhase(s, 'design', 'start', { agent: 'a' }), 'a', () => null),
      'BUDGET_EXCEEDED',
    );
    expect(e.hintAction).toEqual({
      action: 'budget.raise',
      args: { session: s.id, scope: 'session', name: null, unit: 'tokens', suggested: 2000 },
    });
    expect(() => assertBudget(s, decideTokens(s, { agent: 'a', input: 5, output: 0 }), 'a', () => null)).not.toThrow();
    s = commit(s, decideBudgetPolicy(s, { tokens: 2000 }));
    expect(() => assertBudget(s, decidePhase(s, 'design', 'start', { agent: 'a' }), 'a', () => null)).not.toThrow();
  });
});
