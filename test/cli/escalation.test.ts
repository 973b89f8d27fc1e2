/*
 * Issue 25: after the retries were used up, the hint offered "retry with --force, skip the
 * phase, abort the session, or adjust the plan", but a failed phase could not be skipped and
 * nothing adjusted a plan. Each choice is now a command that works, recorded as an event and
 * shown in the log; the resume plan's choices are the names of those commands.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

interface PhaseJson {
  id: string;
  status: string;
  retryCount: number;
  maxRetries: number;
  blockedBy: string[];
  skipReason: string | null;
}

/** Session s: design → build → test (each blocked by the one before), design with 1 retry, failed twice: its retries are used up. */
async function escalated(): Promise<Workspace> {
  const ws = workspace();
  ws.write(
    'plan.json',
    JSON.stringify({
      phases: [
        { id: 'design', name: 'Design', maxRetries: 1 },
        { id: 'build', name: 'Build', blockedBy: ['design'] },
        { id: 'test', name: 'Test', blockedBy: ['build'] },
      ],
    }),
  );
  await ws.ok(['start', 'Escalation', '--id', 's', '--plan', 'plan.json']);
  await ws.ok(['phase', 'start', 'design']);
  await ws.ok(['phase', 'fail', 'design', '--reason', 'tests fail']);
  await ws.ok(['phase', 'retry', 'design']);
  await ws.ok(['phase', 'fail', 'design', '--reason', 'still failing']);
  return ws;
}

async function phases(ws: Workspace): Promise<PhaseJson[]> {
  return (await ws.json<{ phases: PhaseJson[] }>(['status'])).phases;
}

/** The commands a text quotes in backticks, as words (plain words and '…' quoting). */
function commands(text: string): string[][] {
  return [...text.matchAll(/`(baton [^`]+)`/g)].map((m) =>
    [...m[1]!.matchAll(/'([^']*)'|(\S+)/g)].map((w) => w[1] ?? w[2]!).slice(1),
  );
}

describe('escalation: every choice a person is offered works (issue 25)', () => {
  it('RETRIES_EXHAUSTED names the commands of the choices, and each one runs', async () => {
    const probe = await escalated();
    const e = expectError(await probe.run(['phase', 'retry', 'design']), 'RETRIES_EXHAUSTED');
    const offered = commands(e.hint);
    expect(offered.map((c) => c.slice(0, 2).join(' '))).toEqual([
      'phase retry',
      'phase skip',
      'fail --session',
      'abandon --session',
      'plan set',
      'plan --help',
    ]);
    // The choices are alternatives: each on a session of its own, where it must succeed.
    for (const c of offered) {
      const ws = await escalated();
      await ws.ok(c);
    }
  });

  it('retry --force: the phase runs again, recorded as forced', async () => {
    const ws = await escalated();
    await ws.ok(['phase', 'retry', 'design', '--force']);
    expect((await phases(ws))[0]).toMatchObject({ status: 'in_progress', retryCount: 2, maxRetries: 1 });
    expect((await ws.log()).at(-1)).toMatchObject({ type: 'phase.retried', data: { phaseId: 'design', forced: true } });
  });

  it("skip: a failed phase is skipped as the user's decision, its dependants may start, the log shows it", async () => {
    const ws = await escalated();
    const out = await ws.ok(['phase', 'skip', 'design', '--reason', 'the user: design is good enough']);
    expect(out.stdout).toBe("Skipped phase design (it had failed: the user's decision, recorded)\n");
    const [design] = await phases(ws);
    expect(design).toMatchObject({ status: 'skipped', skipReason: 'the user: design is good enough' });
    expect((await ws.log()).at(-1)).toMatchObject({
      type: 'phase.skipped',
      data: { phaseId: 'design', reason: 'the user: design is good enough', from: 'failed' },
    });
    expect((await ws.ok(['log'])).stdout).toMatch(
      /phase\.skipped .*phaseId="design".*reason="the user: design is good enough".*from="failed"/,
    );
    await ws.ok(['phase', 'start', 'build']);
    // A phase in progress still cannot be skipped: it fails first.
    expectError(await ws.run(['phase', 'skip', 'build']), 'INVALID_TRANSITION');
  });

  it('fail and abandon end the session, recorded and shown', async () => {
    for (const [verb, status, type] of [
      ['fail', 'failed', 'session.failed'],
      ['abandon', 'abandoned', 'session.abandoned'],
    ] as const) {
      const ws = await escalated();
      await ws.ok([verb, '--reason', 'the user gave up']);
      expect((await ws.json<{ status: string }>(['status', '--session', 's'])).status).toBe(status);
      expect((await ws.json<Array<{ type: string }>>(['log', '--session', 's'])).at(-1)).toMatchObject({
        type,
        data: { detail: 'the user gave up' },
      });
      expect((await ws.ok(['log', '--session', 's'])).stdout).toContain(type);
    }
  });

  it('plan set / add / remove change the plan, each recorded as an event and shown in the log', async () => {
    const ws = await escalated();
    // One more retry, by raising the limit: no --force needed.
    expect((await ws.ok(['plan', 'set', 'design', '--max-retries', '2', '--reason', 'one more try'])).stdout).toBe(
      'Changed phase design (retries 1/2)\n',
    );
    await ws.ok(['phase', 'retry', 'design']);
    await ws.ok(['phase', 'fail', 'design']);

    // A fix-up phase after design; build now waits for it too.
    const added = await ws.json<{ phase: PhaseJson; phases: string[] }>([
      'plan',
      'add',
      'Fix design',
      '--after',
      'design',
      '--blocked-by',
      'design',
      '--max-retries',
      '3',
    ]);
    expect(added.phase).toMatchObject({ id: 'fix-design', status: 'pending', maxRetries: 3, blockedBy: ['design'] });
    expect(added.phases).toEqual(['design', 'fix-design', 'build', 'test']);
    await ws.ok(['plan', 'set', 'build', '--blocked-by', 'fix-design']);

    // Refusals: a cycle, a phase others depend on (the hint's command fixes that), a started phase.
    expect(
      expectError(await ws.run(['plan', 'set', 'fix-design', '--blocked-by', 'build']), 'BAD_INPUT').message,
    ).toContain('cycle');
    const dep = expectError(await ws.run(['plan', 'remove', 'build']), 'BAD_INPUT');
    expect(dep.message).toBe('Phase build cannot be removed: test depends on it.');
    const fix = commands(dep.hint);
    expect(fix).toEqual([['plan', 'set', 'test', '--blocked-by', '', '--session', 's']]);
    for (const c of fix) await ws.ok(c);
    expect(expectError(await ws.run(['plan', 'remove', 'design']), 'INVALID_TRANSITION').message).toBe(
      'Phase design is failed; only a pending phase can be removed from the plan.',
    );
    expectError(await ws.run(['plan', 'set', 'design']), 'BAD_INPUT');
    expectError(await ws.run(['plan', 'set', 'design', '--max-retries', '-1']), 'BAD_INPUT');
    expectError(await ws.run(['plan', 'add', 'Again', '--id', 'design']), 'EXISTS');

    await ws.ok(['plan', 'remove', 'build', '--reason', 'folded into fix-design']);
    const ps = await phases(ws);
    expect(ps.map((p) => [p.id, p.blockedBy])).toEqual([
      ['design', []],
      ['fix-design', ['design']],
      ['test', []],
    ]);
    const types = (await ws.log()).map((e) => e.type);
    expect(
      types.filter((t) => t.startsWith('phase.') && !['phase.started', 'phase.failed', 'phase.retried'].includes(t)),
    ).toEqual(['phase.updated', 'phase.added', 'phase.updated', 'phase.updated', 'phase.removed']);
    const log = (await ws.ok(['log'])).stdout;
    for (const t of ['phase.added', 'phase.removed', 'phase.updated']) expect(log).toContain(t);
    expect(log).toMatch(/phase\.removed .*phaseId="build".*reason="folded into fix-design"/);
  });

  it("the resume plan's escalation choices are commands that exist, and every command it prints runs", async () => {
    const ws = await escalated();
    await ws.ok(['pause']);
    const plan = await ws.json<{ failed: Array<{ phaseId: string; escalation: { choices: string[]; hint: string } }> }>(
      ['resume'],
    );
    const { choices, hint } = plan.failed[0]!.escalation;
    expect(choices).toEqual([
      'baton phase retry',
      'baton phase skip',
      'baton fail',
      'baton abandon',
      'baton plan set',
      'baton plan add',
      'baton plan remove',
    ]);
    for (const c of choices) {
      const r = await ws.run([...c.split(' ').slice(1), '--help']);
      expect(r.code, `${c} --help\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`Usage: baton ${c.slice('baton '.length)}`);
    }
    const text = (await ws.ok(['resume'])).stdout;
    expect(text).toContain(hint);
    expect(text).not.toMatch(/abort|adjust/);
    // The session is paused: the hint says to reopen it first, then each choice runs.
    const [reopen, ...rest] = commands(text);
    expect(reopen).toEqual(['resume', '--apply', '--session', 's']);
    expect(rest.length).toBe(6);
    for (const c of rest) {
      const fresh = await escalated();
      await fresh.ok(['pause']);
      await fresh.ok(reopen!);
      await fresh.ok(c);
    }
    expect(fs.existsSync(ws.path('.baton'))).toBe(true);
  });
});
