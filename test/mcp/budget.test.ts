/**
 * Budgets over MCP with the SDK's Client: past a budget with policy stop, a tool that starts
 * new work (phase_start, substep_reach) is refused with BUDGET_EXCEEDED and a hint naming
 * `budget_set`, while reads and records of work done (session_status, tokens_add,
 * note_add) still work; after `budget_set` raises it, the same call succeeds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, ok, refused } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

describe('budget_set and BUDGET_EXCEEDED over MCP', () => {
  it('refuses new work past a stop budget with a hint naming budget_set, keeps reads, and lets the work go on after a raise', async () => {
    const h = await connect();
    open.push(h);
    const c = h.client;
    await ok(c, 'session_start', { title: 'Spend', id: 's1', phases: ['design', 'build'] });
    const set = await ok(c, 'budget_set', { tokens: 2000, onExceed: 'stop' });
    expect(set['budgets'].policies.session).toEqual({ tokens: 2000, usd: null, onExceed: 'stop' });
    await ok(c, 'phase_start', { phase: 'design' });
    await ok(c, 'tokens_add', { input: 2400, output: 100 });
    const e = await refused(c, 'phase_start', { phase: 'build' }, 'BUDGET_EXCEEDED');
    expect(e.message).toBe(
      "Session s1: the session's token budget is exceeded (2,500 of 2,000 tokens (125%)) and its policy is stop: no new work until it is raised.",
    );
    expect(e.hint).toBe(
      'Ask the user whether to spend more; if they agree, call `budget_set` with tokens 4000 (reading tools still work).',
    );
    await refused(c, 'substep_reach', { phase: 'design', name: 'sketch' }, 'BUDGET_EXCEEDED');
    // Reads, and records of what was already done, still go in.
    const status = await ok(c, 'session_status', {});
    expect(status['budgets'].verdict.action).toBe('stop');
    await ok(c, 'note_add', { text: 'stopped at the budget' });
    await ok(c, 'tokens_add', { input: 10 });
    await ok(c, 'budget_set', { tokens: 4000 });
    await ok(c, 'phase_start', { phase: 'build' });
    const after = await ok(c, 'session_status', {});
    expect(after['budgets'].verdict.action).toBe('ok');
  });

  it("a phase's budget with stop refuses work in that phase only", async () => {
    const h = await connect();
    open.push(h);
    const c = h.client;
    await ok(c, 'session_start', { title: 'Spend', id: 's2', phases: ['design', 'build'] });
    await ok(c, 'budget_set', { tokens: 500, phase: 'design', onExceed: 'stop' });
    await ok(c, 'phase_start', { phase: 'design' });
    await ok(c, 'tokens_add', { input: 600, phase: 'design' });
    const e = await refused(c, 'substep_reach', { phase: 'design', name: 'more' }, 'BUDGET_EXCEEDED');
    expect(e.message).toContain("phase design's token budget is exceeded (600 of 500 tokens (120%))");
    expect(e.hint).toContain('and phase "design"');
    await ok(c, 'phase_start', { phase: 'build', force: true });
  });
});
