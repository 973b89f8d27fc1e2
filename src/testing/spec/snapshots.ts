import { describe, expect, it } from 'vitest';
import { fold } from '../../domain/apply.js';
import { expectCode, expectContiguous, noteEvent, seed, stateOf, tokensEvent } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: snapshots. */
export function snapshotTests(suite: StoreSuite): void {
  describe('snapshots', () => {
    it('load returns the snapshot plus only the later events', async () => {
      const events = await seed(suite.store, 'snap', 4);
      const state5 = stateOf('snap', events);
      await suite.store.writeSnapshot('snap', { revision: 5, state: state5 });
      let loaded = await suite.store.load('snap');
      expect(loaded.snapshot?.revision).toBe(5);
      expect(loaded.snapshot?.state).toEqual(state5);
      expect(loaded.events).toEqual([]);
      expect(loaded.revision).toBe(5);

      await suite.store.append('snap', 5, [noteEvent(6), tokensEvent(7, 3)]);
      loaded = await suite.store.load('snap');
      expect(loaded.snapshot?.revision).toBe(5);
      expect(loaded.events.map((e) => e.seq)).toEqual([6, 7]);
      expect(loaded.revision).toBe(7);
      const all = await suite.store.readEvents('snap');
      expect(fold(loaded.snapshot!.state, loaded.events, 'snap')).toEqual(stateOf('snap', all));
      // The journal is untouched by snapshots.
      expect(all).toHaveLength(7);
      expectContiguous(all);
    });

    it('accepts a snapshot of an earlier revision and replays from there', async () => {
      const events = await seed(suite.store, 'old', 6);
      const state3 = stateOf('old', events.slice(0, 3));
      await suite.store.writeSnapshot('old', { revision: 3, state: state3 });
      const loaded = await suite.store.load('old');
      expect(loaded.snapshot?.revision).toBe(3);
      expect(loaded.snapshot?.state).toEqual(state3);
      expect(loaded.events.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
      expect(loaded.revision).toBe(7);
    });

    it('uses the newest snapshot written', async () => {
      let events = await seed(suite.store, 'newest', 2);
      await suite.store.writeSnapshot('newest', { revision: 3, state: stateOf('newest', events) });
      await suite.store.append('newest', 3, [noteEvent(4), noteEvent(5)]);
      events = await suite.store.readEvents('newest');
      await suite.store.writeSnapshot('newest', { revision: 5, state: stateOf('newest', events) });
      await suite.store.append('newest', 5, [noteEvent(6)]);
      const loaded = await suite.store.load('newest');
      expect(loaded.snapshot?.revision).toBe(5);
      expect(loaded.events.map((e) => e.seq)).toEqual([6]);
      expect(loaded.repairs).toEqual([]);
    });

    it('keeps the newer snapshot when an older one arrives after it', async () => {
      const events = await seed(suite.store, 'late', 5);
      await suite.store.writeSnapshot('late', { revision: 6, state: stateOf('late', events) });
      // Written after its changes were answered, an older snapshot can land second.
      await suite.store.writeSnapshot('late', { revision: 3, state: stateOf('late', events.slice(0, 3)) });
      const loaded = await suite.store.load('late');
      expect(loaded.snapshot?.revision).toBe(6);
      expect(loaded.snapshot?.state).toEqual(stateOf('late', events));
      expect(loaded.events).toEqual([]);
      expect(loaded.repairs).toEqual([]);
    });

    it('refuses a snapshot past the journal end with BAD_INPUT', async () => {
      const events = await seed(suite.store, 'past', 1);
      await expectCode(
        suite.store.writeSnapshot('past', { revision: 3, state: { ...stateOf('past', events), revision: 3 } }),
        'BAD_INPUT',
      );
      const loaded = await suite.store.load('past');
      expect(loaded.snapshot).toBeNull();
      expect(loaded.revision).toBe(2);
    });
  });
}
