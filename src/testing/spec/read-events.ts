import { describe, expect, it } from 'vitest';
import { seed, stateOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: readEvents. */
export function readEventsTests(suite: StoreSuite): void {
  describe('readEvents', () => {
    it('returns the events after a seq, in order', async () => {
      await seed(suite.store, 'r', 5);
      expect((await suite.store.readEvents('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await suite.store.readEvents('r', 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await suite.store.readEvents('r', 2)).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
      expect((await suite.store.readEvents('r', 5)).map((e) => e.seq)).toEqual([6]);
      expect(await suite.store.readEvents('r', 6)).toEqual([]);
      expect(await suite.store.readEvents('r', 60)).toEqual([]);
    });

    it('returns at most `limit` events after a seq: a page, oldest first', async () => {
      await seed(suite.store, 'rl', 40);
      expect((await suite.store.readEvents('rl', 0, 3)).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await suite.store.readEvents('rl', 20, 5)).map((e) => e.seq)).toEqual([21, 22, 23, 24, 25]);
      expect((await suite.store.readEvents('rl', 38, 10)).map((e) => e.seq)).toEqual([39, 40, 41]);
      expect(await suite.store.readEvents('rl', 41, 10)).toEqual([]);
      expect(await suite.store.readEvents('rl', 20, 2)).toEqual((await suite.store.readEvents('rl', 20)).slice(0, 2));
    });

    it('reads every event even when a snapshot exists', async () => {
      const events = await seed(suite.store, 'rs', 3);
      await suite.store.writeSnapshot('rs', { revision: 4, state: stateOf('rs', events) });
      expect((await suite.store.readEvents('rs')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect((await suite.store.readEvents('rs', 3)).map((e) => e.seq)).toEqual([4]);
    });
  });
}
