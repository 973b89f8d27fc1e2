import { describe, expect, it } from 'vitest';
import { checkpointOf, noteEvent, seed, stateOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: durability (durable stores). */
export function durabilityTests(suite: StoreSuite): void {
  describe('durability (durable stores)', () => {
    it('a reopened store holds every acknowledged append', async (ctx) => {
      if (!suite.store.capabilities.durable || !suite.reopen) ctx.skip();
      const events = await seed(suite.store, 'd', 3);
      await suite.store.writeSnapshot('d', { revision: 4, state: stateOf('d', events) });
      await suite.store.append('d', 4, [noteEvent(5)]);
      await suite.store.setActive('d');
      await suite.store.saveCheckpoint('d', checkpointOf('d', events, 'cp-1'));
      await suite.store.close();
      const again = await suite.second();
      expect(await again.readCheckpoint('d', 'cp-1')).toEqual({
        id: 'cp-1',
        valid: true,
        checkpoint: checkpointOf('d', events, 'cp-1'),
      });
      const loaded = await again.load('d');
      expect(loaded.revision).toBe(5);
      expect(loaded.snapshot?.revision).toBe(4);
      expect(await again.getActive()).toBe('d');
      expect((await again.list()).summaries.map((s) => s.id)).toEqual(['d']);
    });
  });
}
