import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../domain/summary.js';
import { at, noteEvent, seed, stored, summaryOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: registry. */
export function registryTests(suite: StoreSuite): void {
  describe('registry', () => {
    it('lists the rows given at create time, with nothing missing', async () => {
      const a = await seed(suite.store, 'list-a');
      const b = await seed(suite.store, 'list-b', 3);
      const r = await suite.store.list();
      expect(r.missing).toEqual([]);
      const byId = Object.fromEntries(r.summaries.map((s) => [s.id, s]));
      expect(Object.keys(byId).sort()).toEqual(['list-a', 'list-b']);
      expect(byId['list-a']).toEqual(summaryOf('list-a', a));
      expect(byId['list-b']).toEqual(summaryOf('list-b', b));
    });

    it('takes rows from putSummaries and from append options', async () => {
      const events = await seed(suite.store, 'p', 1);
      const paused: SessionSummary = { ...summaryOf('p', events), status: 'paused', revision: 2, updatedAt: at(5) };
      await suite.store.putSummaries([paused, { ...paused, id: 'ghost', title: 'no such session' }]);
      let r = await suite.store.list();
      expect(r.summaries).toEqual([paused]);
      expect(r.missing).toEqual([]);

      const next = [...events, ...stored([noteEvent(2)], 2)];
      const row = { ...summaryOf('p', next), title: 'renamed', updatedAt: at(6) };
      await suite.store.append('p', 2, [noteEvent(2)], { summary: row });
      r = await suite.store.list();
      expect(r.summaries).toEqual([row]);
      // An append without a row leaves the row alone.
      await suite.store.append('p', 3, [noteEvent(3)]);
      expect((await suite.store.list()).summaries).toEqual([row]);
    });

    it('accounts for every session exactly once, as a row or as missing, even when rebuilding', async () => {
      const ids = ['acc-1', 'acc-2', 'acc-3'];
      for (const id of ids) await seed(suite.store, id, 1);
      await suite.store.archive('acc-2');
      for (const rebuild of [false, true, false]) {
        const r = await suite.store.list({ rebuild });
        const seen = [...r.summaries.map((x) => x.id), ...r.missing];
        expect(seen.sort(), `rebuild: ${rebuild}`).toEqual(ids);
        // Rows handed back for the missing ones are listed from then on.
        const rows = await Promise.all(r.missing.map(async (id) => summaryOf(id, await suite.store.readEvents(id))));
        await suite.store.putSummaries(rows);
        const after = await suite.store.list();
        expect(after.missing).toEqual([]);
        expect(after.summaries.map((x) => x.id).sort()).toEqual(ids);
        expect(after.summaries.find((x) => x.id === 'acc-2')?.archived).toBe(true);
      }
    });

    it('lists an empty store as empty', async () => {
      const r = await suite.store.list();
      expect(r.summaries).toEqual([]);
      expect(r.missing).toEqual([]);
    });
  });
}
