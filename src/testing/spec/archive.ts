import { beforeEach, describe, expect, it } from 'vitest';
import { fold } from '../../domain/apply.js';
import type { SessionStore } from '../../store/types.js';
import { createdEvent, expectCode, expectContiguous, seed, stateOf, stored, summaryOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: archive. */
export function archiveTests(suite: StoreSuite): void {
  describe('archive', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('moves a session to the archive; it still loads, lists and blocks its id', async () => {
      await seed(store, 'arch', 2);
      await seed(store, 'live');
      expect(await store.isArchived('arch')).toBe(false);
      await store.archive('arch');
      expect(await store.isArchived('arch')).toBe(true);
      expect(await store.isArchived('live')).toBe(false);
      expect(await store.exists('arch')).toBe(true);
      const loaded = await store.load('arch');
      expect(loaded.revision).toBe(3);
      expectContiguous(loaded.events);
      expect((await store.readEvents('arch', 1)).map((e) => e.seq)).toEqual([2, 3]);
      const r = await store.list();
      expect(r.missing).toEqual([]);
      expect(r.summaries.find((s) => s.id === 'arch')?.archived).toBe(true);
      expect(r.summaries.find((s) => s.id === 'live')?.archived).toBe(false);
      await expectCode(store.create('arch', [createdEvent()], summaryOf('arch', stored([createdEvent()]))), 'EXISTS');
      // Archiving twice is harmless.
      await store.archive('arch');
      expect(await store.isArchived('arch')).toBe(true);
      expect((await store.load('arch')).revision).toBe(3);
    });

    it('keeps the snapshot usable after archiving', async () => {
      const events = await seed(store, 'as', 3);
      await store.writeSnapshot('as', { revision: 4, state: stateOf('as', events) });
      await store.archive('as');
      const loaded = await store.load('as');
      expect(loaded.revision).toBe(4);
      expect(fold(loaded.snapshot?.state ?? null, loaded.events, 'as')).toEqual(stateOf('as', events));
    });
  });
}
