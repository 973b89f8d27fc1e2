/**
 * `baton log` filters by type and agent and hides lease renewals.
 */
import { describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/index.js';
import { expectError, withSession } from './helpers.js';
import type { EventJson, Workspace } from './helpers.js';

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
