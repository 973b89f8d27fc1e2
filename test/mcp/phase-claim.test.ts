/**
 * `phase_claim` between two MCP connections to one server's manager (two agents at once, in
 * memory): the first to claim a phase gets it, started for its connection's run; the second
 * is refused with LOCKED naming the owner and the phases that are free; without a phase it
 * gets the first free one; records that name no phase then go to each connection's own phase.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { connect, ok, refused } from './helpers.js';
import type { Harness } from './helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

describe('phase_claim, two connections at once', () => {
  it('first claimer wins; the other is told which are free and takes one; records go to each one’s phase', async () => {
    const manager = new SessionManager({ store: new MemoryStore(), pid: process.pid, host: 'h' });
    const a = await connect({ manager, clientName: 'agent-a' });
    const b = await connect({ manager, clientName: 'agent-b' });
    open.push(a, b);
    await ok(a.client, 'session_start', { title: 'Team', id: 't1', phases: ['api', 'ui', 'docs'] });

    const first = await ok<{ phase: { id: string; status: string }; run: string }>(a.client, 'phase_claim', {
      phase: 'api',
    });
    expect(first.phase).toMatchObject({ id: 'api', status: 'in_progress' });
    const e = await refused(b.client, 'phase_claim', { phase: 'api' }, 'LOCKED');
    expect(e.message).toContain(first.run);
    expect(e.details['free']).toEqual(['ui', 'docs']);
    const second = await ok<{ phase: { id: string }; run: string }>(b.client, 'phase_claim', {});
    expect(second.phase.id).toBe('ui');
    expect(second.run).not.toBe(first.run);

    // Two phases in progress: each connection's records that name no phase go to its own.
    await ok(a.client, 'file_record', { action: 'created', paths: ['api.ts'] });
    await ok(b.client, 'file_record', { action: 'created', paths: ['page.tsx'] });
    const s = await manager.get('t1');
    const files = (id: string): string[] => s.phases.find((p) => p.id === id)!.files.map((f) => f.path);
    expect([files('api'), files('ui'), files('docs')]).toEqual([['api.ts'], ['page.tsx'], []]);
    expect(s.phases.find((p) => p.id === 'api')!.owner).toBe(first.run);
    expect(s.phases.find((p) => p.id === 'ui')!.owner).toBe(second.run);
  });
});
