import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../store/types.js';
import { seed } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: repair. */
export function repairTests(suite: StoreSuite): void {
  describe('repair', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('reports nothing and changes nothing on a healthy session', async (ctx) => {
      // Part of the optional maintenance capability: a store without repair() skips this.
      if (!store.repair) return ctx.skip();
      await seed(store, 'ok', 3);
      const before = await store.readEvents('ok');
      expect(await store.repair('ok')).toEqual([]);
      expect(await store.readEvents('ok')).toEqual(before);
    });
  });
}
