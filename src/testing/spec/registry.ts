import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../domain/summary.js';
import type { SessionStore } from '../../store/types.js';
import { at, noteEvent, seed, stored, summaryOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: registry. */
export function registryTests(suite: StoreSuite): void {
  describe('registry', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('lists the rows given at create time, with nothing missing', async () => {
      const a = await seed(store, 'list-a');
      const b = await seed(store, 'list-b', 3);
      const r = await store.list();
      expect(r.missing).toEqual([]);
      const byId = Object.fromEntries(r.summaries.map((s) => [s.id, s]));
      expect(Object.keys(byId).sort()).toEqual(['list-a', 'list-b']);
      expect(byId['list-a']).toEqual(summaryOf('list-a', a));
      expect(byId['list-b']).toEqual(summaryOf('list-b', b));
    });

    it('takes rows from putSummaries and from append options', async () => {
      const events = await seed(store, 'p', 1);
      const paused: SessionSummary = { ...summaryOf('p', events), status: 'paused', revision: 2, updatedAt: at(5) };
      await store.putSummaries([paused, { ...paused, id: 'ghost', title: 'no such session' }]);
      let r = await store.list();
      expect(r.summaries).toEqual([paused]);
      expect(r.missing).toEqual([]);

      const next = [...events, ...stored([noteEvent(2)], 2)];
      const row = { ...summaryOf('p', next), title: 'renamed', updatedAt: at(6) };
      await store.append('p', 2, [noteEvent(2)], { summary: row });
      r = await store.list();
      expect(r.summaries).toEqual([row]);
      // An append without a row leaves the row alone.
      await store.append('p', 3, [noteEvent(3)]);
      expect((await store.list()).summaries).toEqual([row]);
    });

    it('accounts for every session exactly once, as a row or as missing, even when rebuilding', async () => {
      const ids = ['acc-1', 'acc-2', 'acc-3'];
      for (const id of ids) await seed(store, id, 1);
      await store.archive('acc-2');
      for (const rebuild of [false, true, false]) {
        const r = await store.list({ rebuild });
        const seen = [...r.summaries.map((x) => x.id), ...r.missing];
        expect(seen.sort(), `rebuild: ${rebuild}`).toEqual(ids);
        // Rows handed back for the missing ones are listed from then on.
        const rows = await Promise.all(r.missing.map(async (id) => summaryOf(id, await store.readEvents(id))));
        await store.putSummaries(rows);
        const after = await store.list();
        expect(after.missing).toEqual([]);
        expect(after.summaries.map((x) => x.id).sort()).toEqual(ids);
        expect(after.summaries.find((x) => x.id === 'acc-2')?.archived).toBe(true);
      }
    });

    it('lists an empty store as empty', async () => {
      const r = await store.list();
      expect(r.summaries).toEqual([]);
      expect(r.missing).toEqual([]);
    });
  });
}
