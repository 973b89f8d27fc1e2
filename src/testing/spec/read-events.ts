import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../store/types.js';
import { seed, stateOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: readEvents. */
export function readEventsTests(suite: StoreSuite): void {
  describe('readEvents', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('returns the events after a seq, in order', async () => {
      await seed(store, 'r', 5);
      expect((await store.readEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await store.readEvents('r', 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await store.readEvents('r', 2)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
      expect((await store.readEvents('r', 5)).map((e) => e.seq)).toEqual([6]);
      expect(await store.readEvents('r', 6)).toEqual([]);
      expect(await store.readEvents('r', 60)).toEqual([]);
    });

    it('reads every event even when a snapshot exists', async () => {
      const events = await seed(store, 'rs', 3);
      await store.writeSnapshot('rs', { revision: 4, state: stateOf('rs', events) });
      expect((await store.readEvents('rs')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect((await store.readEvents('rs', 3)).map((e) => e.seq)).toEqual([4]);
    });
  });
}
