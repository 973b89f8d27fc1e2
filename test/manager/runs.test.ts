/**
 * Runs through the manager (memory store, injected clock, pids that exist or not): the
 * session's status follows its runs; each run's records go to its own phase; a phase is
 * claimed once; a dead run is found by a process check on its host and by its lapsing
 * liveness elsewhere; one run's end never pauses another's work.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { beforeEach, describe, expect, it } from 'vitest';
import { effectiveStatus } from '../../src/domain/runs/lease.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
let clock = T0;
let store: MemoryStore;

function manager(host = 'h'): SessionManager {
  return new SessionManager({
    store,
    now: () => new Date(clock),
    agent: 'me',
    pid: process.pid,
    host,
    bootId: 'boot-1',
  });
}

/** A pid that existed and has exited. */
function _deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

beforeEach(() => {
  clock = T0;
  store = new MemoryStore();
});

async function session(m: SessionManager): Promise<string> {
  const s = await m.start({
    title: 'work',
    id: 's1',
    phases: [
      { id: 'backend', name: 'Backend' },
      { id: 'frontend', name: 'Frontend' },
      { id: 'docs', name: 'Docs', blockedBy: ['backend'] },
    ],
  });
  return s.id;
}

describe('runs', () => {
  it('two runs each record on their own phase, whichever started last', async () => {
    const m = manager();
    const id = await session(m);
    const a = (
      await m.runs.start(id, {
        kind: 'conversation',
        ttlMs: null,
        cli: 'claude',
        agentSessionId: 'aaa',
        agent: 'claude',
      })
    ).result;
    const b = (
      await m.runs.start(id, {
        kind: 'conversation',
        ttlMs: null,
        cli: 'claude',
        agentSessionId: 'bbb',
        agent: 'claude',
      })
    ).result;
    await m.runs.claimPhase(id, a.id, 'backend');
    clock += 1000;
    await m.runs.claimPhase(id, b.id, 'frontend');
    const s = await m.get(id);
    expect(m.runs.recordPhase(s, a.id, 'claude')?.id).toBe('backend');
    expect(m.runs.recordPhase(s, b.id, 'claude')?.id).toBe('frontend');
    expect(s.phases.find((p) => p.id === 'backend')?.owner).toBe(a.id);
  });

  it("a run with no phase yet records on the session, not on another live run's phase", async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000, agent: 'claude' })).result;
    const b = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000, agent: 'claude' })).result;
    await m.runs.claimPhase(id, a.id, 'backend');
    const s = await m.get(id);
    // B's turns before it takes a phase (tokens read at its first tool call) are not A's work.
    expect(m.runs.recordPhase(s, b.id, 'claude')).toBeNull();
    // Outside a run, the phase in progress still takes them.
    expect(m.runs.recordPhase(s, null, 'claude')?.id).toBe('backend');
  });

  it("a phase owned by a live run is refused to another, naming the free ones; a dead run's phase can be claimed", async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    const b = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    expect((await m.runs.claimPhase(id, a.id, null)).result).toBe('backend');
    const refused = await m.runs.claimPhase(id, b.id, 'backend').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'LOCKED', details: { owner: a.id, free: ['frontend'] } });
    expect((await m.runs.claimPhase(id, b.id, null)).result).toBe('frontend');
    // a lapses (no heartbeat); b goes on renewing.
    clock += 45_000;
    await m.runs.renew(id, b.id);
    clock += 30_000;
    const c = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    const taken = await m.runs.claimPhase(id, c.id, null);
    expect(taken.result).toBe('backend');
    expect(taken.events.map((e) => e.type)).toContain('phase.claimed');
    const s = await m.get(id);
    expect(s.runs?.find((r) => r.id === a.id)?.ended).toMatchObject({ how: 'died', cause: 'lease-lapsed' });
    expect(s.status).toBe('active');
  });

  it('the first run to end leaves the session active while another is live; the last one pauses it', async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'conversation', ttlMs: null })).result;
    const b = (await m.runs.start(id, { kind: 'conversation', ttlMs: null })).result;
    await m.runs.end(id, a.id, { how: 'finished', cause: 'agent-session-end' });
    expect((await m.get(id)).status).toBe('active');
    await m.runs.end(id, b.id, { how: 'finished', cause: 'agent-session-end' });
    const s = await m.get(id);
    expect(s.status).toBe('paused');
    expect(s.statusCause?.cause).toBe('agent-session-end');
  });

  it('a run whose process is gone reads as interrupted at once, and the sweep records its death with what was salvaged', async () => {
    const m = manager();
    const id = await session(m);
    const agent = spawn('sleep', ['30']);
    const a = (
      await m.runs.start(id, {
        kind: 'conversation',
        ttlMs: null,
        pid: agent.pid!,
        cli: 'claude',
        agentSessionId: 'dead-one',
      })
    ).result;
    await m.runs.claimPhase(id, a.id, 'backend');
    expect(m.runs.status(await m.get(id)).status).toBe('active');
    agent.kill('SIGKILL');
    await once(agent, 'exit');
    const before = await m.get(id);
    expect(before.status).toBe('active');
    expect(m.runs.status(before)).toMatchObject({ status: 'interrupted', cause: { cause: 'run-died' } });
    expect(m.runs.status(before).cause?.detail).toContain('in flight: backend');
    const swept = await m.runs.sweep(id, async () => ({
      lastTools: ['Write a.ts'],
      steps: [
        { name: 'one', status: 'completed' },
        { name: 'two', status: 'in_progress' },
      ],
    }));
    expect(swept.map((r) => r.id)).toEqual([a.id]);
    const s = await m.get(id);
    expect(s.status).toBe('interrupted');
    expect(s.runs?.[0]?.ended).toMatchObject({ how: 'died', cause: 'process-gone' });
    expect(s.runs?.[0]?.salvage?.lastTools).toEqual(['Write a.ts']);
    expect(await m.runs.sweep(id)).toEqual([]);
  });

  it('a run of another host is not judged by pid; it dies when its liveness lapses', async () => {
    const m = manager();
    const id = await session(m);
    // Its pid (this process's, alive here) means nothing on this host: only the lapse counts.
    const far = manager('other-host');
    const a = (await far.runs.start(id, { kind: 'conversation', ttlMs: 60_000 })).result;
    await far.runs.claimPhase(id, a.id, 'frontend');
    expect(m.runs.status(await m.get(id)).status).toBe('active');
    clock += 61_000;
    const s = await m.get(id);
    expect(effectiveStatus(s, new Date(clock).toISOString())).toMatchObject({
      status: 'interrupted',
      cause: { cause: 'run-lapsed' },
    });
    // The next write records it.
    await m.note(id, { text: 'hello' });
    const after = await m.get(id);
    expect(after.runs?.find((r) => r.id === a.id)?.ended?.how).toBe('died');
    expect(after.status).toBe('interrupted');
  });

  it('switch-like changes are refused while another run is live, unless forced', async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'command', ttlMs: 60_000 })).result;
    const s = await m.get(id);
    expect(() => m.runs.assertNoOtherLiveRun(s, null, 'pause')).toThrow(expect.objectContaining({ code: 'LOCKED' }));
    expect(() => m.runs.assertNoOtherLiveRun(s, a.id, 'pause')).not.toThrow();
    expect(() => m.runs.assertNoOtherLiveRun(s, null, 'pause', true)).not.toThrow();
  });

  it('records made in a run carry its id in their actor', async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    const r = await m.change(
      id,
      () => ({
        events: [{ type: 'note.added', data: { noteId: 'note-1', text: 'x', phaseId: null, agent: null } }],
        result: undefined,
      }),
      { run: a.id },
    );
    expect(r.events[0]?.actor.run).toBe(a.id);
  });
});

describe('list', () => {
  it('reports a session whose only run died as interrupted, without anyone writing it down', async () => {
    const m = manager();
    const id = await session(m);
    const agent = spawn('sleep', ['30']);
    const a = (await m.runs.start(id, { kind: 'conversation', ttlMs: null, pid: agent.pid! })).result;
    await m.runs.claimPhase(id, a.id, 'backend');
    expect((await m.list()).find((r) => r.id === id)?.status).toBe('active');
    agent.kill('SIGKILL');
    await once(agent, 'exit');
    const row = (await m.list()).find((r) => r.id === id);
    expect(row?.status).toBe('interrupted');
    expect(row?.cause?.cause).toBe('run-died');
    expect((await m.get(id)).status).toBe('active');
  });

  it('a run heartbeat does not rewrite the registry row; a run starting or ending does', async () => {
    const m = manager();
    const id = await session(m);
    const a = (await m.runs.start(id, { kind: 'library', ttlMs: 60_000 })).result;
    const rowAfterStart = (await store.list()).summaries.find((r) => r.id === id)!;
    expect(rowAfterStart.runs?.map((r) => r.id)).toEqual([a.id]);
    clock += 10_000;
    await m.runs.renew(id, a.id);
    expect((await store.list()).summaries.find((r) => r.id === id)!.revision).toBe(rowAfterStart.revision);
    await m.runs.end(id, a.id, { how: 'finished', cause: 'done' });
    expect((await store.list()).summaries.find((r) => r.id === id)!.runs).toBeUndefined();
  });
});
