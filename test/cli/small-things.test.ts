/**
 * The small things a user notices (issue 25): `-q` silences every confirmation; `status` and
 * `archive` right after `complete` act on the session just finished; `list` says that
 * archived sessions are hidden; `tokens add` prints what it recorded; `hooks uninstall`
 * leaves no backup behind; `log` filters by type and agent and hides lease renewals.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/index.js';
import { expectError, withSession, workspace } from './helpers.js';
import type { EventJson, Workspace } from './helpers.js';

describe('-q silences every confirmation', () => {
  it('resume --apply -q prints nothing (the plan without --apply is data and still prints)', async () => {
    const ws = await withSession('q1');
    await ws.ok(['pause']);
    expect((await ws.ok(['resume', '-q'])).stdout).toContain('Resume plan');
    const r = await ws.ok(['resume', '--apply', '-q']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect((await ws.status('q1')).status).toBe('active');
    // Without -q it still says so; --json is data, which -q keeps.
    await ws.ok(['pause']);
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe('Resumed q1 from live; it is active.\n');
    await ws.ok(['pause']);
    expect(JSON.parse((await ws.ok(['resume', '--apply', '-q', '--json'])).stdout)).toMatchObject({
      session: 'q1',
      status: 'active',
    });
  });
});

describe('right after complete', () => {
  it('status shows the session just finished and says none is active; archive archives it', async () => {
    const ws = await withSession('done1', 'a');
    await ws.ok(['phase', 'start', 'a']);
    await ws.ok(['phase', 'complete', 'a']);
    await ws.ok(['complete']);
    const status = await ws.ok(['status']);
    expect(status.stdout).toContain('Session done1');
    expect(status.stdout).toContain('No session is active: done1 has completed.');
    const json = JSON.parse((await ws.ok(['status', '--json'])).stdout) as {
      id: string;
      active: boolean;
      note: string;
    };
    expect(json).toMatchObject({ id: 'done1', status: 'completed', active: false });
    // A change still needs a session: nothing is written to a finished session by accident.
    expectError(await ws.run(['note', 'add', 'x']), 'NO_ACTIVE_SESSION');
    expect((await ws.ok(['archive'])).stdout).toBe('Archived done1 (the session just finished; none is active)\n');
    expect(
      (await ws.json<Array<{ id: string; archived: boolean }>>(['list', '--all'])).find((r) => r.id === 'done1')
        ?.archived,
    ).toBe(true);
    // Archived, it is no longer the one just finished: back to the usual refusal.
    expectError(await ws.run(['status']), 'NO_ACTIVE_SESSION');
  });

  it('after fail and abandon too: always the session finished last, never the paused one', async () => {
    const ws = await withSession('p0');
    await ws.ok(['start', 'Failing', '--id', 'f1', '--switch']);
    await ws.ok(['fail', '--reason', 'broke']);
    expect((await ws.ok(['status'])).stdout).toContain('No session is active: f1 has failed.');
    await ws.ok(['start', 'Dropped', '--id', 'a1']);
    await ws.ok(['abandon']);
    expect((await ws.ok(['status'])).stdout).toContain('No session is active: a1 was abandoned.');
    expect((await ws.ok(['archive'])).stdout).toBe('Archived a1 (the session just finished; none is active)\n');
    expect((await ws.status('f1')).archived).toBe(false);
    expect((await ws.status('p0')).status).toBe('paused');
  });
});

describe('list with nothing to show', () => {
  it('names the archived sessions and --all', async () => {
    const ws = await withSession('arch1');
    await ws.ok(['complete']);
    await ws.ok(['archive', 'arch1']);
    expect((await ws.ok(['list'])).stdout).toBe('No sessions (1 archived: `baton list --all` shows it).\n');
    expect((await ws.ok(['list', '--all'])).stdout).toContain('arch1');
    expect((await workspace().ok(['init'], {})).code).toBe(0);
  });
});

describe('tokens add', () => {
  it('prints the amount recorded, and the running total labelled as the session total', async () => {
    const ws = await withSession('t1', 'plan');
    await ws.ok(['tokens', 'add', '--agent', 'alice', '--input', '5000', '--output', '700']);
    const r = await ws.ok([
      'tokens',
      'add',
      '--agent',
      'bob',
      '--phase',
      'plan',
      '--input',
      '100',
      '--output',
      '20',
      '--cached',
      '3',
    ]);
    expect(r.stdout).toBe(
      'Recorded 100 in / 20 out / 3 cached for bob on phase plan\nSession total: 5,100 in / 720 out / 3 cached\n',
    );
    const json = JSON.parse((await ws.ok(['tokens', 'add', '--agent', 'bob', '--input', '1', '--json'])).stdout) as {
      recorded: unknown;
      tokens: { input: number };
    };
    expect(json.recorded).toEqual({ agent: 'bob', phaseId: null, model: null, input: 1, output: 0, cached: 0 });
    expect(json.tokens.input).toBe(5101);
  });
});

describe('hooks uninstall', () => {
  it('removes the .baton-backup its install left, keeping the user settings', async () => {
    const ws = workspace();
    const file = ws.write('.claude/settings.json', '{\n  "model": "opus"\n}\n');
    const installed = await ws.json<{ backup: string }>(['hooks', 'install', 'claude']);
    expect(fs.existsSync(installed.backup)).toBe(true);
    const removed = await ws.json<{ backup: string | null; changed: boolean }>(['hooks', 'uninstall', 'claude']);
    expect(removed).toMatchObject({ changed: true, backup: null });
    expect(fs.existsSync(`${file}.baton-backup`)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    expect(fs.readdirSync(ws.path('.claude'))).toEqual(['settings.json']);
  });
});

/** A session with events of several types and agents, and a lease renewed three times. */
async function busy(): Promise<Workspace> {
  const ws = await withSession('lg', 'build,test');
  await ws.ok(['phase', 'start', 'build', '--agent', 'alice']);
  await ws.ok(['note', 'add', 'from bob', '--agent', 'bob']);
  await ws.ok(['phase', 'complete', 'build', '--agent', 'alice']);
  await ws.ok(['tokens', 'add', '--agent', 'bob', '--input', '10']);
  const m = openManager({ dir: ws.store, cwd: ws.dir, agent: 'worker' });
  const lease = (await m.leases.acquire('lg', { owner: 'worker', ttlMs: 60_000, agent: 'worker' })).result;
  for (let i = 0; i < 3; i++) await m.leases.renew('lg', lease.token, 60_000);
  await m.close();
  return ws;
}

describe('log filters', () => {
  it('hides lease renewals from people by default and says so; --all and --type lease.renewed show them; --json keeps them', async () => {
    const ws = await busy();
    const plain = await ws.run(['log']);
    expect(plain.stdout).not.toContain('lease.renewed');
    expect(plain.stdout).toContain('lease.acquired');
    expect(plain.stderr).toBe('(3 lease renewals not shown: --all shows them)\n');
    expect((await ws.ok(['log', '--all'])).stdout.match(/lease\.renewed/g)).toHaveLength(3);
    expect((await ws.ok(['log', '--type', 'lease.renewed'])).stdout.trim().split('\n')).toHaveLength(3);
    expect((await ws.json<EventJson[]>(['log'])).filter((e) => e.type === 'lease.renewed')).toHaveLength(3);
  });

  it('--type takes exact types, families (phase, phase.*), comma lists and repeats; --agent the agent; --json honours both', async () => {
    const ws = await busy();
    const types = async (...args: string[]): Promise<string[]> =>
      (await ws.json<EventJson[]>(['log', ...args])).map((e) => e.type);
    expect(await types('--type', 'phase')).toEqual(['phase.started', 'phase.completed']);
    expect(await types('--type', 'phase.*')).toEqual(['phase.started', 'phase.completed']);
    expect(await types('--type', 'phase.completed,note')).toEqual(['note.added', 'phase.completed']);
    expect(await types('--type', 'note', '--type', 'tokens.recorded')).toEqual(['note.added', 'tokens.recorded']);
    expect(await types('--agent', 'bob')).toEqual(['note.added', 'tokens.recorded']);
    expect(await types('--agent', 'alice', '--type', 'phase.started')).toEqual(['phase.started']);
    const bob = await ws.run(['log', '--agent', 'bob']);
    // bob wrote no renewal: none is said to be hidden.
    expect(bob.stderr).toBe('');
    const human = bob.stdout.trim().split('\n');
    expect(human).toHaveLength(2);
    expect(human.every((l) => l.includes(' bob '))).toBe(true);
    const bad = expectError(await ws.run(['log', '--type', 'phaze']), 'BAD_INPUT');
    expect(bad.message).toContain('"phaze" matches no event type');
    expect(bad.hint).toContain('phase');
  });
});
