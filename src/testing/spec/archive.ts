import { describe, expect, it } from 'vitest';
import { fold } from '../../domain/apply.js';
import { createdEvent, expectCode, expectContiguous, seed, stateOf, stored, summaryOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: archive. */
export function archiveTests(suite: StoreSuite): void {
  describe('archive', () => {
    it('moves a session to the archive; it still loads, lists and blocks its id', async () => {
      await seed(suite.store, 'arch', 2);
      await seed(suite.store, 'live');
      expect(await suite.store.isArchived('arch')).toBe(false);
      await suite.store.archive('arch');
      expect(await suite.store.isArchived('arch')).toBe(true);
      expect(await suite.store.isArchived('live')).toBe(false);
      expect(await suite.store.exists('arch')).toBe(true);
      const loaded = await suite.store.load('arch');
      expect(loaded.revision).toBe(3);
      expectContiguous(loaded.events);
      expect((await suite.store.readEvents('arch', 1)).map((e) => e.seq)).toEqual([2, 3]);
      const r = await suite.store.list();
      expect(r.missing).toEqual([]);
      expect(r.summaries.find((s) => s.id === 'arch')?.archived).toBe(true);
      expect(r.summaries.find((s) => s.id === 'live')?.archived).toBe(false);
      await expectCode(
        suite.store.create('arch', [createdEvent()], summaryOf('arch', stored([createdEvent()]))),
        'EXISTS',
      );
      // Archiving twice is harmless.
      await suite.store.archive('arch');
      expect(await suite.store.isArchived('arch')).toBe(true);
      expect((await suite.store.load('arch')).revision).toBe(3);
    });

    it('keeps the snapshot usable after archiving', async () => {
      const events = await seed(suite.store, 'as', 3);
      await suite.store.writeSnapshot('as', { revision: 4, state: stateOf('as', events) });
      await suite.store.archive('as');
      const loaded = await suite.store.load('as');
      expect(loaded.revision).toBe(4);
      expect(fold(loaded.snapshot?.state ?? null, loaded.events, 'as')).toEqual(stateOf('as', events));
    });
  });
}
