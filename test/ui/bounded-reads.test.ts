/**
 * What the session page, the event log and `baton status` read of a big session, counted at
 * the store (every event `load` and `readEvents` return), on the file store and on PostgreSQL:
 * the snapshot, the events after it, and the one page shown; never the journal. A filtered
 * page of the event log reads the journal once, then only the events appended since.
 */
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/domain/events.js';
import type { NewEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/index.js';
import { FileStore } from '../../src/store/file/store.js';
import { openStore } from '../../src/store/open.js';
import type { SessionStore } from '../../src/store/types.js';
import { tempDir } from '../support/temp.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';

const EVENTS = 20_000;
const TAIL = 7;
const actor = { agent: null, pid: process.pid, host: os.hostname() };
const at = (): string => new Date().toISOString();

/** `store`, with every event its `load` and `readEvents` return counted in `rows.n`. */
function counting(store: SessionStore): { store: SessionStore; rows: { n: number } } {
  const rows = { n: 0 };
  const wrapped = new Proxy(store, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (key === 'readEvents')
        return async (id: string, after?: number, limit?: number) => {
          const got = await target.readEvents(id, after, limit);
          rows.n += got.length;
          return got;
        };
      if (key === 'load')
        return async (id: string) => {
          const got = await target.load(id);
          rows.n += got.events.length;
          return got;
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, rows };
}

function event(i: number): NewEvent {
  if (i % 1000 === 0) return newEvent('substep.reached', { phaseId: 'build', name: `step ${i}` }, at(), actor);
  return newEvent(
    'tokens.recorded',
    { agent: `a${i % 3}`, phaseId: 'build', input: 10, output: 2, cached: 0, model: 'claude-sonnet-4-5' },
    at(),
    actor,
  );
}

const schemas: string[] = [];
const cases: Array<[string, () => SessionStore]> = [
  [
    'file',
    () => {
      const dir = `${tempDir('baton-ui-reads-')}/.baton`;
      FileStore.init(dir);
      return new FileStore({ root: dir });
    },
  ],
];
if (PG_URL) {
  cases.push([
    'postgres',
    () => {
      const schema = freshSchema('reads');
      schemas.push(schema);
      return openStore({ url: urlWith({ schema }), env: {} });
    },
  ]);
} else console.warn('SKIPPED: bounded dashboard reads on PostgreSQL (BATON_TEST_PG_URL is not set).');

afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

async function bigSession(m: SessionManager, store: SessionStore): Promise<number> {
  await m.createFrom('big', [
    newEvent(
      'session.created',
      { title: 'Big', idFormat: 'custom', phases: [{ id: 'build', name: 'Build' }], budgetMax: 1_000_000 },
      at(),
      actor,
    ),
    newEvent('phase.started', { phaseId: 'build', agent: 'a0', forced: false }, at(), actor),
  ]);
  let rev = 2;
  while (rev < EVENTS) {
    const k = Math.min(1000, EVENTS - rev);
    rev = (
      await store.append(
        'big',
        rev,
        Array.from({ length: k }, (_, j) => event(rev + j)),
      )
    ).revision;
  }
  // A snapshot a little before the end, as a working session has one: the page reads it and the tail.
  await store.writeSnapshot('big', { revision: rev, state: await m.get('big') });
  return (
    await store.append(
      'big',
      rev,
      Array.from({ length: TAIL }, (_, j) => event(rev + j)),
    )
  ).revision;
}

describe.each(cases)('dashboard reads, %s store', (_name, open) => {
  it('opens the session page, an event log page and `status` reading the snapshot, its tail and one page', async () => {
    const { store, rows } = counting(open());
    const m = new SessionManager({ store, agent: 'reader' });
    try {
      const rev = await bigSession(m, store);
      const journal = await store.readEvents('big');
      // A reader of its own, as `baton ui` and `baton status` are processes of their own.
      const reader = new SessionManager({ store, agent: 'reader' });
      rows.n = 0;
      const page = await reader.dashboard.session('big');
      expect(rows.n).toBeLessThanOrEqual(TAIL);
      // What it shows is the whole journal's, not the tail's.
      const tokenRecords = journal.filter((e) => e.type === 'tokens.recorded');
      expect(page.tokens.records).toBe(tokenRecords.length);
      expect(page.tokens.total.at(-1)).toBe(tokenRecords.length * 12);
      expect(page.tokens.time.length).toBeLessThanOrEqual(400);
      expect(page.tokens.usd!.at(-1)).toBeGreaterThan(0);
      expect(page.facets.types['tokens.recorded']).toBe(tokenRecords.length);
      expect(page.facets.types['substep.reached']).toBe(journal.filter((e) => e.type === 'substep.reached').length);
      expect(Object.values(page.facets.types).reduce((a, b) => a + b, 0)).toBe(rev);
      expect(page.attempts).toHaveLength(1);
      expect(page.attempts[0]!.substeps).toHaveLength(journal.filter((e) => e.type === 'substep.reached').length);

      // The newest page of the event log, then one deep in it, and oldest first.
      rows.n = 0;
      const newest = await reader.dashboard.events('big', { limit: 100 });
      expect(rows.n).toBeLessThanOrEqual(TAIL + 100);
      expect(newest.total).toBe(rev);
      expect(newest.events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => rev - i));
      expect(newest.events[0]!.text).toMatch(/tokens|sub-step|step/);
      rows.n = 0;
      const deep = await reader.dashboard.events('big', { offset: 3000, limit: 50 });
      expect(rows.n).toBeLessThanOrEqual(TAIL + 50);
      expect(deep.events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => rev - 3000 - i));
      const asc = await reader.dashboard.events('big', { order: 'asc', offset: 10, limit: 5 });
      expect(asc.events.map(({ text: _, ...e }) => e)).toEqual(journal.slice(10, 15));

      // `baton status`: what its command reads (the state, the lease's holder, the runs).
      rows.n = 0;
      const s = await reader.get('big');
      reader.leases.holderGone(s.lease ?? null, s);
      reader.runs.liveness(s);
      expect(rows.n).toBeLessThanOrEqual(TAIL);
      expect(s.revision).toBe(rev);

      // A filtered page reads the journal once, then only what is appended since.
      rows.n = 0;
      const filtered = await reader.dashboard.events('big', { type: 'tokens.recorded', agent: 'a1', limit: 100 });
      expect(filtered.events).toHaveLength(100);
      expect(filtered.total).toBe(tokenRecords.filter((e) => e.data.agent === 'a1').length);
      rows.n = 0;
      const after = (await store.append('big', rev, [event(rev + 1), event(rev + 2)])).revision;
      const again = await reader.dashboard.events('big', { type: 'tokens.recorded', limit: 10 });
      // The state's tail (now two longer), and the two new events for the kept journal.
      expect(rows.n).toBeLessThanOrEqual(TAIL + 2 + 2);
      expect(again.events[0]!.seq).toBe(after);
      const moved = await reader.dashboard.session('big');
      expect(moved.tokens.records).toBe(tokenRecords.length + 2);
      await reader.close();
    } finally {
      await m.close();
    }
  });

  it('a session whose snapshot predates histories shows the same page, and its next snapshot carries one', async () => {
    const { store, rows } = counting(open());
    const m = new SessionManager({ store, agent: 'reader' });
    try {
      const rev = await bigSession(m, store);
      const fresh = await new SessionManager({ store, agent: 'reader' }).dashboard.session('big');
      // The snapshot an older baton wrote: the same state, without a history.
      const { history: _, ...old } = await m.get('big');
      await store.writeSnapshot('big', { revision: rev, state: old as never });
      const reader = new SessionManager({ store, agent: 'reader', snapshotEvery: 3 });
      const page = await reader.dashboard.session('big');
      expect({ ...page, now: null, runs: null }).toEqual({ ...fresh, now: null, runs: null });
      for (let i = 0; i < 3; i++) await reader.note('big', { text: `note ${i}` });
      // The snapshot is written after the answer: wait for it (the store is shared, not closed here).
      let snap = await store.load('big');
      for (let i = 0; i < 100 && (snap.snapshot?.revision ?? 0) < rev + 3; i++) {
        await new Promise((r) => setTimeout(r, 50));
        snap = await store.load('big');
      }
      expect(snap.snapshot!.revision).toBe(rev + 3);
      expect(snap.snapshot!.state.history!.types['note.added']).toBe(3);
      rows.n = 0;
      const after = await new SessionManager({ store, agent: 'reader' }).dashboard.session('big');
      expect(rows.n).toBe(0);
      expect(after.facets.types['tokens.recorded']).toBe(fresh.facets.types['tokens.recorded']);
    } finally {
      await m.close();
    }
  });
});
