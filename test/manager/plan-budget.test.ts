/**
 * A plan file sets the whole budget policy (docs/budgets.md, "Setting them"): the session's
 * tokens, dollars and on-exceed policy, each agent's and each phase's, recorded as
 * `budget.set` events in the session's first commit, so they hold from the first change on.
 * Bad values are refused before anything is written, naming the field and what is allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { readPlanFile } from '../../src/manager/plan-file.js';
import { MemoryStore } from '../../src/store/memory.js';
import { tempDir } from '../support/temp.js';

const manager = (): SessionManager =>
  new SessionManager({ store: new MemoryStore(), agent: 'lead', derivedFiles: { mirrors: false } });

async function planOf(name: string, text: string): Promise<Awaited<ReturnType<typeof readPlanFile>>> {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, name), text);
  return readPlanFile(name, dir);
}

async function refusal(name: string, text: string): Promise<{ code: string; message: string; way: string }> {
  const e = await planOf(name, text).catch((x: unknown) => x);
  if (!isBatonError(e)) throw new Error(`expected a BatonError, got ${String(e)}`);
  return { code: e.code, message: e.message, way: String(e.way) };
}

const YAML = `
title: Budgeted
budget:
  tokens: 60000
  cost: 5.5
  onExceed: stop
  agents:
    reviewer: { tokens: 8000, onExceed: ask }
    coder: 20000
phases:
  - id: design
    name: Design
    budget: 10000
  - id: build
    name: Build
    blockedBy: [design]
    budget: { cost: 2, onExceed: stop }
    owner: ana
`;

describe('budgets from a plan file', () => {
  it('sets the session, agent and phase budgets with their policies, in the first commit', async () => {
    const plan = await planOf('plan.yaml', YAML);
    expect(plan.budget).toBe(60000);
    const m = manager();
    const s = await m.start({ title: 'B', id: 'b', phases: plan.phases, budget: plan.budget, budgets: plan.budgets });
    expect((await m.budgets.get('b')).policies).toEqual({
      session: { tokens: 60000, usd: 5.5, onExceed: 'stop' },
      agents: {
        reviewer: { tokens: 8000, usd: null, onExceed: 'ask' },
        coder: { tokens: 20000, usd: null, onExceed: 'warn' },
      },
      phases: {
        design: { tokens: 10000, usd: null, onExceed: 'warn' },
        build: { tokens: null, usd: 2, onExceed: 'stop' },
      },
    });
    // One append: the session and its budgets, each one budget.set (so `baton log` shows them).
    const events = await m.store.readEvents('b');
    expect(events.map((e) => e.type)).toEqual([
      'session.created',
      'budget.set',
      'budget.set',
      'budget.set',
      'budget.set',
      'budget.set',
    ]);
    expect(s.revision).toBe(6);
    expect(events[1]!.data).toEqual({ maxUsd: 5.5, onExceed: 'stop' });
    // A phase field other than budget is still kept as metadata.
    expect(s.phases[1]!.metadata).toEqual({ owner: 'ana' });
    expect(s.phases[1]!.metadata).not.toHaveProperty('budget');
  });

  it("the plan's stop policy holds: past the session budget, starting a phase is refused until it is raised", async () => {
    const plan = await planOf(
      'plan.json',
      JSON.stringify({ budget: { tokens: 1000, onExceed: 'stop' }, phases: ['a'] }),
    );
    const m = manager();
    await m.start({ title: 'B', id: 'b', phases: plan.phases, budget: plan.budget, budgets: plan.budgets });
    await m.tokens('b', { agent: 'lead', phase: null, input: 1200, output: 0, cached: 0 });
    const e = await m.phase('b', 'a', 'start').catch((x: unknown) => x);
    expect(isBatonError(e) && e.code).toBe('BUDGET_EXCEEDED');
    await m.budgets.set('b', { tokens: 5000 });
    await m.phase('b', 'a', 'start');
    expect((await m.get('b')).phases[0]!.status).toBe('in_progress');
  });

  it('`budget: N` alone is still a token budget with the default policy, and sets nothing more', async () => {
    const plan = await planOf('plan.yaml', 'budget: 60000\nphases: [a]\n');
    expect(plan.budget).toBe(60000);
    expect(plan.budgets).toBeUndefined();
    const m = manager();
    await m.start({ title: 'B', id: 'b', phases: plan.phases, budget: plan.budget, budgets: plan.budgets });
    expect((await m.budgets.get('b')).policies.session).toEqual({ tokens: 60000, usd: null, onExceed: 'warn' });
    expect((await m.store.readEvents('b')).length).toBe(1);
  });

  it.each([
    ['budget: 0', 'budget: must be a positive whole number of tokens; got 0'],
    ['budget: "lots"', 'budget: must be a number of tokens or a block {tokens, cost, onExceed}; got "lots"'],
    ['budget: {tokens: 1.5}', 'budget.tokens: must be a positive whole number of tokens; got 1.5'],
    ['budget: {cost: -3}', 'budget.cost: must be a positive amount of US dollars (e.g. 5 or 2.50); got -3'],
    ['budget: {cost: "$5"}', 'budget.cost: must be a positive amount of US dollars (e.g. 5 or 2.50); got "$5"'],
    ['budget: {onExceed: halt}', 'budget.onExceed: must be warn, ask or stop; got "halt"'],
    ['budget: {usd: 5}', 'budget.usd: unknown field; a budget has tokens, cost, onExceed, agents'],
    ['budget: {on-exceed: stop}', 'budget.on-exceed: unknown field; a budget has tokens, cost, onExceed, agents'],
    ['budget: {agents: [a]}', 'budget.agents: must map agent names to budgets, e.g. {reviewer: 20000}; got ["a"]'],
    [
      'budget: {agents: {rev: {onExceed: stop}}}',
      'budget.agents.rev: needs tokens or cost (an onExceed policy alone limits nothing)',
    ],
    [
      'budget: {agents: {rev: {tokens: 5, agents: {}}}}',
      'budget.agents.rev.agents: unknown field; a budget has tokens, cost, onExceed',
    ],
  ])('%s is refused, naming the field and what is allowed', async (line, why) => {
    const r = await refusal('plan.yaml', `${line}\nphases: [a]\n`);
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toBe(`Plan plan.yaml is not valid: ${why}.`);
    expect(r.way).toContain('`budget: {tokens: 60000, cost: 5, onExceed: stop}`');
  });

  it("a phase's bad budget names the phase entry", async () => {
    const bad = await refusal(
      'plan.json',
      JSON.stringify({
        phases: [
          { id: 'a', name: 'A' },
          { id: 'b', name: 'B', budget: { onExceed: 'sometimes' } },
        ],
      }),
    );
    expect(bad.message).toBe(
      'Plan plan.json is not valid: phases.1.budget.onExceed: must be warn, ask or stop; got "sometimes".',
    );
    const policyOnly = await refusal(
      'plan.json',
      JSON.stringify({ phases: [{ name: 'A', budget: { onExceed: 'stop' } }] }),
    );
    expect(policyOnly.message).toBe(
      'Plan plan.json is not valid: phases.0.budget: needs tokens or cost (an onExceed policy alone limits nothing).',
    );
  });

  it('bad budgets given to start are refused before a switch pauses the active session', async () => {
    const m = manager();
    await m.start({ title: 'First', id: 'first' });
    const e = await m
      .start({ title: 'B', id: 'b', switch: true, budgets: [{ onExceed: 'sometimes' }] })
      .catch((x: unknown) => x);
    expect(isBatonError(e) && e.code).toBe('BAD_INPUT');
    expect((await m.get('first')).status).toBe('active');
    expect(await m.store.exists('b')).toBe(false);
  });
});
