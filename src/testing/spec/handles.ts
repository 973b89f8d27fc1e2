import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../domain/errors.js';
import { checkpointOf, expectCode, expectContiguous, noteEvent, seed, sleep } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: several handles on one store (multiProcess stores). */
export function handlesTests(suite: StoreSuite): void {
  describe('several handles on one store (multiProcess stores)', () => {
    it('a second handle sees the first one’s writes and conflicts with it', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      await seed(suite.store, 'shared', 1);
      const other = await suite.second();
      expect((await other.load('shared')).revision).toBe(2);
      await other.append('shared', 2, [noteEvent(2)]);
      expect((await suite.store.load('shared')).revision).toBe(3);
      await expectCode(suite.store.append('shared', 2, [noteEvent(99)]), 'CONFLICT');
      await suite.store.append('shared', 3, [noteEvent(3)]);
      await expectCode(other.append('shared', 3, [noteEvent(99)]), 'CONFLICT');
      const events = await other.readEvents('shared');
      expect(events).toHaveLength(4);
      expectContiguous(events);
      expect((await other.list()).summaries.map((s) => s.id)).toEqual(['shared']);
    });

    it('lets exactly one of two handles win a race for the same revision', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      await seed(suite.store, 'duel');
      const other = await suite.second();
      for (let round = 0; round < 5; round++) {
        const { revision } = await suite.store.load('duel');
        const results = await Promise.allSettled([
          suite.store.append('duel', revision, [noteEvent(10 + round)]),
          other.append('duel', revision, [noteEvent(20 + round)]),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(isBatonError(lost?.reason, 'CONFLICT')).toBe(true);
      }
      const events = await suite.store.readEvents('duel');
      expect(events).toHaveLength(6);
      expectContiguous(events);
    });

    it('serialises the workspace lock across handles', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      const other = await suite.second();
      let inside = 0;
      let overlap = false;
      const section = async (): Promise<void> => {
        inside += 1;
        if (inside > 1) overlap = true;
        await sleep(25);
        inside -= 1;
      };
      await Promise.all([
        suite.store.withWorkspaceLock(section),
        other.withWorkspaceLock(section),
        suite.store.withWorkspaceLock(section),
      ]);
      expect(overlap).toBe(false);
    });

    it('shares checkpoints across handles; of two racing for one id exactly one wins', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      const events = await seed(suite.store, 'cps', 1);
      const other = await suite.second();
      await suite.store.saveCheckpoint('cps', checkpointOf('cps', events, 'cp-1'));
      expect((await other.listCheckpoints('cps')).map((r) => r.id)).toEqual(['cp-1']);
      for (let round = 2; round < 6; round++) {
        const results = await Promise.allSettled([
          suite.store.saveCheckpoint('cps', checkpointOf('cps', events, `cp-${round}`, 'mine')),
          other.saveCheckpoint('cps', checkpointOf('cps', events, `cp-${round}`, 'theirs')),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(isBatonError(lost?.reason, 'EXISTS')).toBe(true);
      }
      const all = await suite.store.listCheckpoints('cps');
      expect(all.map((r) => [r.id, r.valid])).toEqual([1, 2, 3, 4, 5].map((n) => [`cp-${n}`, true]));
    });

    it('shares the active pointer and the archive across handles', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      await seed(suite.store, 'ptr');
      const other = await suite.second();
      await suite.store.setActive('ptr');
      expect(await other.getActive()).toBe('ptr');
      await other.archive('ptr');
      expect(await suite.store.isArchived('ptr')).toBe(true);
      expect((await suite.store.load('ptr')).revision).toBe(1);
      await suite.store.append('ptr', 1, [noteEvent(1)]);
      expect((await other.readEvents('ptr')).map((e) => e.seq)).toEqual([1, 2]);
    });
  });
}
