import { describe, expect, it } from 'vitest';
import { seed } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: repair. */
export function repairTests(suite: StoreSuite): void {
  describe('repair', () => {
    it('reports nothing and changes nothing on a healthy session', async (ctx) => {
      // Part of the optional maintenance capability: a store without repair() skips this.
      if (!suite.store.repair) return ctx.skip();
      await seed(suite.store, 'ok', 3);
      const before = await suite.store.readEvents('ok');
      expect(await suite.store.repair('ok')).toEqual([]);
      expect(await suite.store.readEvents('ok')).toEqual(before);
    });
  });
}
