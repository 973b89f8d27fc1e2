/**
 * What the dashboard reads of a big session's journal, counted at the store (every row
 * `readEvents` returns), on the file store and on PostgreSQL: once a session's journal has been
 * read, later views of its page and of its event log read only the events appended since, not
 * the journal again, however long it is.
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

const EVENTS = 5_000;
const actor = { agent: null, pid: process.pid, host: os.hostname() };
const at = (): string => new Date().toISOString();

/** `store`, with every row its `readEvents` returns counted in `rows.n`. */
function counting(store: SessionStore): { store: SessionStore; rows: { n: number } } {
  const rows = { n: 0 };
  const wrapped = new Proxy(store, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (key === 'readEvents')
        return async (id: string, after?: number) => {
          const got = await target.readEvents(id, after);
          rows.n += got.length;
          return got;
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, rows };
}

function tokens(i: number): NewEvent {
  return newEvent(
    'tokens.recorded',
    { agent: `a${i % 3}`, phaseId: 'build', input: 10, output: 2, cached: 0 },
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

describe.each(cases)('dashboard reads, %s store', (_name, open) => {
  it('reads the journal once, then only what is appended since, for the page and the event log', async () => {
    const { store, rows } = counting(open());
    const m = new SessionManager({ store, agent: 'reader' });
    try {
      await m.createFrom('big', [
        newEvent(
          'session.created',
          { title: 'Big', idFormat: 'custom', phases: [{ id: 'build', name: 'Build' }], budgetMax: null },
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
            Array.from({ length: k }, (_, j) => tokens(rev + j)),
          )
        ).revision;
      }
      await m.dashboard.session('big');
      const first = rows.n;
      expect(first).toBeLessThanOrEqual(EVENTS);

      // Views of an unchanged session read no event at all.
      rows.n = 0;
      const again = await m.dashboard.session('big');
      const page = await m.dashboard.events('big', { type: 'tokens.recorded', agent: 'a1', limit: 100 });
      expect(rows.n).toBe(0);
      expect(page.events).toHaveLength(100);
      expect(again.tokens.records).toBe(EVENTS - 2);

      // Seven events later: the next view reads those seven, and shows them.
      rev = (
        await store.append(
          'big',
          rev,
          Array.from({ length: 7 }, (_, j) => tokens(rev + j)),
        )
      ).revision;
      rows.n = 0;
      const after = await m.dashboard.session('big');
      const log = await m.dashboard.events('big', { limit: 10 });
      expect(rows.n).toBe(7);
      expect(after.tokens.records).toBe(EVENTS - 2 + 7);
      expect(after.facets.types['tokens.recorded']).toBe(EVENTS - 2 + 7);
      expect(log.events[0]!.seq).toBe(rev);
    } finally {
      await m.close();
    }
  });
});
