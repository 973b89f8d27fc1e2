import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../domain/errors.js';
import { expectContiguous, noteEvent, rejection, seed, sleep, stateOf, tokensEvent } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: conditional append. */
export function conditionalAppendTests(suite: StoreSuite): void {
  describe('conditional append', () => {
    it('appends after the expected revision and gives the next seqs', async () => {
      await seed(suite.store, 's');
      expect(await suite.store.append('s', 1, [noteEvent(1)])).toEqual({ revision: 2 });
      expect(await suite.store.append('s', 2, [noteEvent(2), tokensEvent(3), noteEvent(4)])).toEqual({ revision: 5 });
      const events = await suite.store.readEvents('s');
      expectContiguous(events);
      expect(events.map((e) => e.type)).toEqual([
        'session.created',
        'note.added',
        'note.added',
        'tokens.recorded',
        'note.added',
      ]);
      expect(events[4]).toMatchObject({ ...noteEvent(4), seq: 5 });
    });

    it('refuses a stale or future expectedRevision with CONFLICT and writes nothing', async () => {
      await seed(suite.store, 's', 3);
      const before = await suite.store.readEvents('s');
      for (const expected of [0, 1, 3, 5, 100]) {
        const e = await rejection(suite.store.append('s', expected, [noteEvent(50), noteEvent(51)]));
        expect(isBatonError(e, 'CONFLICT')).toBe(true);
      }
      expect(await suite.store.readEvents('s')).toEqual(before);
      const loaded = await suite.store.load('s');
      expect(loaded.revision).toBe(4);
      // The right revision still works afterwards.
      expect(await suite.store.append('s', 4, [noteEvent(52)])).toEqual({ revision: 5 });
      expectContiguous(await suite.store.readEvents('s'));
    });

    it('lets exactly one of 10 concurrent appends expecting the same revision win', async () => {
      await seed(suite.store, 'race', 1);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => suite.store.append('race', 2, [noteEvent(100 + i)])),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect((won[0] as PromiseFulfilledResult<{ revision: number }>).value).toEqual({ revision: 3 });
      expect(lost).toHaveLength(9);
      for (const r of lost) expect(isBatonError(r.reason, 'CONFLICT')).toBe(true);
      const events = await suite.store.readEvents('race');
      expect(events).toHaveLength(3);
      expectContiguous(events);
    });

    it('keeps every concurrent commuting change when each writer retries on CONFLICT', async () => {
      await seed(suite.store, 'retry');
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; i < 5; i++) {
          for (;;) {
            const { revision } = await suite.store.load('retry');
            try {
              await suite.store.append('retry', revision, [tokensEvent(w * 10 + i, 1)]);
              break;
            } catch (e) {
              if (!isBatonError(e, 'CONFLICT')) throw e;
              await sleep(Math.random() * 3);
            }
          }
        }
      };
      await Promise.all(Array.from({ length: 4 }, (_, w) => writer(w)));
      const events = await suite.store.readEvents('retry');
      expect(events).toHaveLength(21);
      expectContiguous(events);
      expect(stateOf('retry', events).tokens.input).toBe(20);
    });
  });
}
