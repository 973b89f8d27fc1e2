/**
 * Claiming through the manager (memory store, injected clock): which sessions are
 * candidates, oldest first; concurrent claims by many managers (workers with their own pid)
 * over one store give each session to exactly one of them; a claim writes the resume and the
 * lease in one append.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_URL, needsRealServer, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
let clock = T0;
let store: MemoryStore;

function worker(pid: number): SessionManager {
  return new SessionManager({ store, now: () => new Date(clock), agent: `w${pid}`, pid, host: 'h' });
}

beforeEach(() => {
  clock = T0;
  store = new MemoryStore();
});

/** Session `id`, active with a lease of `ttlMs` held by pid 1 (a run that will die). */
async function leased(m: SessionManager, id: string, ttlMs = 60_000): Promise<void> {
  await m.start({ title: id, id, switch: true, phases: [{ id: 'p', name: 'p' }] });
  await m.leases.acquire(id, { owner: 'run', ttlMs });
  // Workers share the store, not a workspace: the next start must not pause this one.
  await store.setActive(null);
}

describe('claim', () => {
  it('candidates: interrupted and expired-lease sessions, oldest interruption first; not paused, completed, validly leased or archived ones', async () => {
    const m = worker(1);
    await leased(m, 'valid', 600_000);
    await leased(m, 'expiring', 1000);
    clock += 10;
    await m.start({ title: 'i', id: 'interrupted', switch: true });
    await m.lifecycle('interrupted', 'interrupt', 'crash');
    await m.start({ title: 'p', id: 'paused', switch: true });
    await m.lifecycle('paused', 'pause');
    await m.start({ title: 'c', id: 'done', switch: true });
    await m.lifecycle('done', 'complete');
    await m.start({ title: 'a', id: 'archived', switch: true });
    await m.lifecycle('archived', 'pause');
    await m.archive('archived');
    // 'expiring' expired at T0+1000, after 'interrupted' was interrupted (T0+10).
    clock = T0 + 5000;
    expect((await m.claims.candidates()).map((r) => r.id)).toEqual(['interrupted', 'expiring']);
  });

  it('a claimed lease renewed with a shorter lifetime (a run going on under it) is claimable when that shorter lease ends', async () => {
    const m = worker(1);
    await leased(m, 's1', 1000);
    clock += 2000;
    const c = (await worker(2).claims.claim({ owner: 'claim:w2', ttlMs: 600_000 }))!;
    // The worker's run (another process) adopts the claimed lease and renews it for 2 s.
    await worker(3).leases.renew('s1', c.lease.token, 2000);
    // The run dies; 3 s later its lease has ended, long before the claim's 10 minutes would.
    clock += 3000;
    expect((await worker(4).claims.candidates()).map((r) => r.id)).toEqual(['s1']);
    const next = (await worker(4).claims.claim({ owner: 'claim:w4', ttlMs: 60_000 }))!;
    expect(next.lease.token).toBe(c.lease.token + 1);
  });

  it('a claim resumes the session and takes the next fencing token in one append', async () => {
    const m = worker(1);
    await leased(m, 's1', 1000);
    clock += 2000;
    const before = (await m.get('s1')).revision;
    const c = (await worker(2).claims.claim({ owner: 'claim:w2', ttlMs: 30_000 }))!;
    expect(c.sessionId).toBe('s1');
    expect(c.lease).toMatchObject({ owner: 'claim:w2', pid: 2, token: 2 });
    expect(c.cause?.cause).toBe('lease-expired');
    const log = await m.log('s1', before);
    expect(log.map((e) => e.type)).toEqual([
      'lease.expired',
      'session.interrupted',
      'session.resumed',
      'lease.acquired',
    ]);
    expect(new Set(log.map((e) => e.time)).size).toBe(1);
    expect((await m.get('s1')).status).toBe('active');
    expect(await worker(3).claims.claim({ owner: 'claim:w3', ttlMs: 30_000 })).toBeNull();
  });

  it('12 workers racing over 8 expired sessions: each session claimed exactly once, then nothing is left', async () => {
    const m = worker(1);
    const ids = Array.from({ length: 8 }, (_, i) => `s${i}`);
    for (const id of ids) await leased(m, id, 1000);
    clock += 5000;
    const workers = Array.from({ length: 12 }, (_, i) => worker(100 + i));
    const claims = await Promise.all(workers.map((w) => w.claims.claim({ owner: 'claim', ttlMs: 60_000 })));
    const got = claims
      .filter((c) => c !== null)
      .map((c) => c!.sessionId)
      .sort();
    expect(got).toEqual(ids);
    expect(claims.filter((c) => c === null).length).toBe(4);
    for (const id of ids) {
      const acquired = (await m.log(id)).filter((e) => e.type === 'lease.acquired');
      expect(acquired.map((e) => (e.data as { token: number }).token)).toEqual([1, 2]);
    }
  });

  it('claimWait: woken by the change feed when a session is interrupted; null after its timeout or when aborted', async () => {
    const m = worker(1);
    await m.start({ title: 's', id: 's', switch: true });
    const waiting = worker(2).claims.wait({ owner: 'claim', ttlMs: 60_000 }, { pollMs: 60_000, timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 20));
    await m.lifecycle('s', 'interrupt', 'crash');
    const c = await waiting;
    expect(c?.sessionId).toBe('s');
    expect(await worker(3).claims.wait({ owner: 'claim', ttlMs: 60_000 }, { pollMs: 10, timeoutMs: 50 })).toBeNull();
    const stop = new AbortController();
    const aborted = worker(4).claims.wait(
      { owner: 'claim', ttlMs: 60_000 },
      { pollMs: 60_000, timeoutMs: null, signal: stop.signal },
    );
    setTimeout(() => stop.abort(), 20);
    expect(await aborted).toBeNull();
  });
});

describe.skipIf(!PG_URL)('claim on PostgreSQL: lease expiry judged by the database clock', () => {
  needsRealServer({
    "a worker whose clock runs 10 minutes ahead does not take over a live run; it claims once the lease ended by the server's clock":
      'a workspace-lock section (start --switch) holds a transaction on one connection and writes through another; the embedded server runs one session, so the writes wait for the lock holder',
    'nothing else to claim: a dead holder of this host is found and claimed at once, and leases held on other hosts or by claims are judged without loading their sessions':
      'the same (start --switch); and a claim holds its pick in a transaction while it appends through another connection',
    "a watcher of another handle hears of a claim by its notification, sent after the claim's commit, not by its poll":
      'the same (start --switch), and the claim holds its pick on one connection while it appends through another',
  });
  const schemas: string[] = [];
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  it("a worker whose clock runs 10 minutes ahead does not take over a live run; it claims once the lease ended by the server's clock", async () => {
    const schema = freshSchema('skew');
    schemas.push(schema);
    const url = urlWith({ schema });
    const open = (): PostgresStore => {
      const s = new PostgresStore({ url });
      stores.push(s);
      return s;
    };
    const runner = new SessionManager({ store: open(), agent: 'run', pid: 1, host: 'h' });
    await runner.start({ title: 'live', id: 'live', switch: true, phases: [{ id: 'p', name: 'p' }] });
    const { result: lease } = await runner.leases.acquire('live', { owner: 'run', ttlMs: 60_000 });
    // Workers share the store, not a workspace: the next start must not pause this one.
    await runner.store.setActive(null);
    await runner.start({ title: 'short', id: 'short', switch: true, phases: [{ id: 'p', name: 'p' }] });
    await runner.store.setActive(null);
    await runner.leases.acquire('short', { owner: 'run', ttlMs: 1000 });
    // The worker's machine: its clock 10 minutes ahead of every other.
    const ahead = new SessionManager({
      store: open(),
      agent: 'w',
      pid: 2,
      host: 'h2',
      now: () => new Date(Date.now() + 600_000),
    });
    // Its own clock says both leases ended; the server's says 'live' is valid for a minute.
    let c = await ahead.claims.claim({ owner: 'claim:w', ttlMs: 60_000 });
    while (c === null) {
      // 'short' ends a second after it was taken, by the server's clock.
      await new Promise((r) => setTimeout(r, 100));
      c = await ahead.claims.claim({ owner: 'claim:w', ttlMs: 60_000 });
    }
    expect(c.sessionId).toBe('short');
    expect(await ahead.claims.claim({ owner: 'claim:w', ttlMs: 60_000 })).toBeNull();
    // The live run keeps its lease and goes on writing under it.
    const live = await runner.get('live');
    expect(live.status).toBe('active');
    expect(live.lease?.token).toBe(lease.token);
    await runner.leases.renew('live', lease.token, 60_000);
    // The claim's own times are the server's, not the fast clock's.
    expect(Math.abs(Date.parse(c.lease.acquiredAt) - Date.now())).toBeLessThan(300_000);
  }, 60_000);

  it('nothing else to claim: a dead holder of this host is found and claimed at once, and leases held on other hosts or by claims are judged without loading their sessions', async () => {
    const schema = freshSchema('holders');
    schemas.push(schema);
    const url = urlWith({ schema });
    const open = (): PostgresStore => {
      const s = new PostgresStore({ url });
      stores.push(s);
      return s;
    };
    // A pid that ran on this host and has exited: the holder of 'dead', a run killed here.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const dying = new SessionManager({ store: open(), agent: 'run', pid: gone, host: 'h', bootId: 'b1' });
    const elsewhere = new SessionManager({ store: open(), agent: 'run', pid: 7, host: 'h2', bootId: 'b2' });
    for (const [m, id] of [
      [dying, 'dead'],
      [elsewhere, 'far-1'],
      [elsewhere, 'far-2'],
      [elsewhere, 'far-3'],
    ] as const) {
      await m.start({ title: id, id, switch: true, phases: [{ id: 'p', name: 'p' }] });
      await m.store.setActive(null);
      await m.leases.acquire(id, { owner: 'run', ttlMs: 600_000 });
    }
    // A session claimed by a worker of this host, alive or not: a detached lease, never a gone holder.
    await elsewhere.start({ title: 'taken', id: 'taken', switch: true, phases: [{ id: 'p', name: 'p' }] });
    await elsewhere.store.setActive(null);
    await elsewhere.lifecycle('taken', 'interrupt', 'crash');
    const other = new SessionManager({ store: open(), agent: 'w0', pid: gone, host: 'h', bootId: 'b1' });
    expect((await other.claims.claim({ owner: 'claim:w0', ttlMs: 600_000 }))?.sessionId).toBe('taken');

    const w = new SessionManager({ store: open(), agent: 'w', pid: process.pid, host: 'h', bootId: 'b1' });
    const loaded: string[] = [];
    const load = w.store.load.bind(w.store);
    w.store.load = (id) => {
      loaded.push(id);
      return load(id);
    };
    const c = await w.claims.claim({ owner: 'claim:w', ttlMs: 60_000 });
    expect(c?.sessionId).toBe('dead');
    expect(c?.cause?.cause).toBe('holder-gone');
    expect(await w.claims.claim({ owner: 'claim:w', ttlMs: 60_000 })).toBeNull();
    // Only the session of this host's gone holder was loaded, not those held elsewhere or claimed.
    expect(new Set(loaded)).toEqual(new Set(['dead']));
    expect((await elsewhere.get('far-1')).lease?.owner).toBe('run');
  }, 60_000);

  it("a watcher of another handle hears of a claim by its notification, sent after the claim's commit, not by its poll", async () => {
    const schema = freshSchema('heard');
    schemas.push(schema);
    const url = urlWith({ schema });
    const open = (): PostgresStore => {
      const s = new PostgresStore({ url });
      stores.push(s);
      return s;
    };
    const runner = new SessionManager({ store: open(), agent: 'run', pid: 1, host: 'h' });
    await runner.start({ title: 'lapsing', id: 'lapsing', switch: true, phases: [{ id: 'p', name: 'p' }] });
    await runner.store.setActive(null);
    await runner.leases.acquire('lapsing', { owner: 'run', ttlMs: 500 });
    const watcher = new SessionManager({ store: open() });
    // What the watcher hears, as type and fencing token: the claim's lease has token 2.
    const heard: string[] = [];
    const stop = await watcher.watch({
      sessionId: 'lapsing',
      onChange: (c) =>
        heard.push(...c.events.map((e) => (e.type === 'lease.acquired' ? `${e.type} ${e.data.token}` : e.type))),
    });
    try {
      const w = new SessionManager({ store: open(), agent: 'w', pid: 2, host: 'h2' });
      let c = await w.claims.claim({ owner: 'claim:w', ttlMs: 60_000 });
      for (let i = 0; c === null && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        c = await w.claims.claim({ owner: 'claim:w', ttlMs: 60_000 });
      }
      expect(c?.sessionId).toBe('lapsing');
      // The watcher's poll comes every 15 s (watch.ts): heard within 5 s, it was the notification.
      const end = Date.now() + 5_000;
      while (!heard.includes('lease.acquired 2') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(heard).toEqual(expect.arrayContaining(['session.resumed', 'lease.acquired 2']));
    } finally {
      await stop();
    }
  }, 60_000);
});
