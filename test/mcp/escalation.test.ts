/*
 * Issue 25 over MCP: after a phase used all its retries, `resume_plan` offered "retry", "skip",
 * "abort", "adjust", which are not tools, and there was no session_fail / session_abandon nor
 * any way to change a plan. Each choice is now a tool, driven here with the SDK's client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, expectToolHint, ok, refused } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

/** s1: design → build → test (each blocked by the one before), design with 1 retry, failed twice. */
async function escalated(): Promise<Harness> {
  const h = await connect();
  open.push(h);
  const c = h.client;
  await ok(c, 'session_start', {
    title: 'Escalation',
    id: 's1',
    phases: [
      { id: 'design', name: 'Design', maxRetries: 1 },
      { id: 'build', name: 'Build', blockedBy: ['design'] },
      { id: 'test', name: 'Test', blockedBy: ['build'] },
    ],
  });
  await ok(c, 'phase_start', { phase: 'design' });
  await ok(c, 'phase_fail', { phase: 'design', reason: 'tests fail' });
  await ok(c, 'phase_retry', { phase: 'design' });
  await ok(c, 'phase_fail', { phase: 'design', reason: 'still failing' });
  return h;
}

async function lastEvent(h: Harness): Promise<{ type: string; data: Record<string, unknown> }> {
  return (await h.manager.log('s1')).at(-1) as unknown as { type: string; data: Record<string, unknown> };
}

describe('escalation over MCP (issue 25)', () => {
  it("resume_plan's choices are tools the server lists, and RETRIES_EXHAUSTED names them", async () => {
    const h = await escalated();
    const tools = new Set((await h.client.listTools()).tools.map((t) => t.name));
    const { plan, text } = await ok<{
      plan: { failed: Array<{ escalation: { choices: string[]; hint: string } }> };
      text: string;
    }>(h.client, 'resume_plan', {});
    const { choices, hint } = plan.failed[0]!.escalation;
    expect(choices).toEqual([
      'phase_retry',
      'phase_skip',
      'session_fail',
      'session_abandon',
      'plan_set',
      'plan_add',
      'plan_remove',
    ]);
    for (const c of choices) expect(tools.has(c), c).toBe(true);
    await expectToolHint(h.client, hint, 'escalation hint');
    expect(text).toContain(hint);
    expect(text).not.toMatch(/abort|adjust/);
    const e = await refused(h.client, 'phase_retry', { phase: 'design' }, 'RETRIES_EXHAUSTED');
    await expectToolHint(h.client, e.hint!, 'RETRIES_EXHAUSTED');
    for (const c of choices) expect(e.hint).toContain(`\`${c}\``);
  });

  it('each choice, driven as a tool call, does what it says and is recorded', async () => {
    let h = await escalated();
    expect((await ok(h.client, 'phase_retry', { phase: 'design', force: true }))['phase']).toMatchObject({
      status: 'in_progress',
      retryCount: 2,
    });
    expect(await lastEvent(h)).toMatchObject({ type: 'phase.retried', data: { forced: true } });

    h = await escalated();
    expect(
      (await ok(h.client, 'phase_skip', { phase: 'design', reason: 'the user says: good enough' }))['phase'],
    ).toMatchObject({ status: 'skipped' });
    expect(await lastEvent(h)).toMatchObject({
      type: 'phase.skipped',
      data: { phaseId: 'design', reason: 'the user says: good enough', from: 'failed' },
    });
    await ok(h.client, 'phase_start', { phase: 'build' });

    for (const [tool, status, type] of [
      ['session_fail', 'failed', 'session.failed'],
      ['session_abandon', 'abandoned', 'session.abandoned'],
    ] as const) {
      h = await escalated();
      expect(await ok(h.client, tool, { reason: 'the user gave up' })).toMatchObject({ session: 's1', status });
      // The session's end, then the end of this connection's run on it (docs/runs.md).
      const [end, run] = (await h.manager.log('s1')).slice(-2) as unknown as Array<{
        type: string;
        data: Record<string, unknown>;
      }>;
      expect(end).toMatchObject({ type, data: { detail: 'the user gave up' } });
      expect(run).toMatchObject({ type: 'run.ended', data: { how: 'finished', cause: `session-${status}` } });
    }

    h = await escalated();
    const c = h.client;
    expect(await ok(c, 'plan_set', { phase: 'design', maxRetries: 2, reason: 'one more try' })).toMatchObject({
      phase: 'design',
      phases: ['design', 'build', 'test'],
    });
    expect(await lastEvent(h)).toMatchObject({
      type: 'phase.updated',
      data: { phaseId: 'design', maxRetries: 2, reason: 'one more try' },
    });
    await ok(c, 'phase_retry', { phase: 'design' });
    expect(await ok(c, 'plan_add', { name: 'Fix design', after: 'design', blockedBy: ['design'] })).toMatchObject({
      phase: 'fix-design',
      phases: ['design', 'fix-design', 'build', 'test'],
    });
    expect(await lastEvent(h)).toMatchObject({ type: 'phase.added', data: { phaseId: 'fix-design', after: 'design' } });
    const dep = await refused(c, 'plan_remove', { phase: 'build' }, 'BAD_INPUT');
    await expectToolHint(c, dep.hint!, 'plan_remove');
    expect(dep.hint).toContain('`plan_set` with phase "test" and blockedBy []');
    await ok(c, 'plan_set', { phase: 'test', blockedBy: [] });
    await refused(c, 'plan_set', { phase: 'design', blockedBy: ['test', 'fix-design'] }, 'BAD_INPUT');
    await refused(c, 'plan_remove', { phase: 'design' }, 'INVALID_TRANSITION');
    expect(await ok(c, 'plan_remove', { phase: 'build', reason: 'not needed' })).toMatchObject({
      phase: null,
      phases: ['design', 'fix-design', 'test'],
    });
    expect(await lastEvent(h)).toMatchObject({
      type: 'phase.removed',
      data: { phaseId: 'build', reason: 'not needed' },
    });
  });
});
