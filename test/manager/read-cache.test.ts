/**
 * A read primes the manager's first guess for the next change (a hook binds, then records,
 * with one load). The guess must never cost correctness: a writer in between is caught by the
 * conditional append, and a caller that mutates what it read cannot skew the next change.
 */
import { describe, expect, it } from 'vitest';
import { settingsOf } from '../../src/domain/settings.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';

function managers(): [SessionManager, SessionManager] {
  const store = new MemoryStore();
  return [
    new SessionManager({ store, agent: 'a', derivedFiles: { mirrors: false } }),
    new SessionManager({ store, agent: 'b', derivedFiles: { mirrors: false } }),
  ];
}

describe('a read before a change', () => {
  it('a change after a read sees what another writer appended in between, and keeps both', async () => {
    const [a, b] = managers();
    await a.start({ title: 'S', id: 's1' });
    const read = await a.get('s1');
    await b.setSettings('s1', { autoCheckpoint: false });
    const seen: number[] = [];
    const w = await a.setSettings('s1', (s) => {
      seen.push(s.revision);
      return { handoffFile: settingsOf(s).autoCheckpoint };
    });
    expect(seen.at(-1)).toBe(read.revision + 1);
    expect(settingsOf(w.state)).toMatchObject({ autoCheckpoint: false, handoffFile: false });
    const types = (await a.store.readEvents('s1')).map((e) => e.type);
    expect(types.filter((t) => t === 'metadata.set')).toHaveLength(2);
  });

  it('mutating the state a read returned does not change what the next change is validated against', async () => {
    const [a] = managers();
    await a.start({ title: 'S', id: 's1' });
    const read = await a.get('s1');
    read.title = 'scribbled';
    read.revision = 999;
    const r = await a.setSettings('s1', { autoCheckpoint: false });
    expect(r.state.title).toBe('S');
    expect(r.state.revision).toBe(2);
    expect((await a.store.readEvents('s1')).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('a change the remembered state would refuse is judged again on a fresh read: another writer made it valid', async () => {
    const [a, b] = managers();
    await a.start({ title: 'S', id: 's1', phases: [{ id: 'p', name: 'P' }] });
    await a.phase('s1', 'p', 'start');
    // b records an error a has never read: a's remembered state does not know it.
    const e = await b.error('s1', { message: 'boom', type: 'tool', phase: 'p' });
    const r = await a.resolveError('s1', e.result, 'fixed');
    expect(r.state.phases[0]!.errors.find((x) => x.id === e.result)?.resolved).toBe(true);
  });

  it('a session deleted and created again under its id takes changes (the remembered one is not used)', async () => {
    const [a, b] = managers();
    await a.start({ title: 'Old', id: 's1' });
    await a.lifecycle('s1', 'abandon', 'gone');
    await b.delete('s1');
    await b.start({ title: 'New', id: 's1' });
    const r = await a.note('s1', { text: 'hello' });
    expect(r.state.title).toBe('New');
    expect(r.state.status).toBe('active');
  });
});
