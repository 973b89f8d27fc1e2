import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../domain/errors.js';
import { at, checkpointOf, expectCode, noteEvent, seed } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: delete and tombstones. */
export function deleteTests(suite: StoreSuite): void {
  describe('delete and tombstones', () => {
    const info = (title: string, status = 'completed') => ({ deletedAt: at(100), title, status });

    it('deletes a live session: unknown afterwards, no row, a tombstone instead', async () => {
      await seed(suite.store, 'gone', 2);
      await seed(suite.store, 'stays');
      expect(await suite.store.listTombstones()).toEqual([]);
      const t = await suite.store.delete('gone', 3, info('Gone for good'));
      expect(t).toEqual({
        id: 'gone',
        deletedAt: at(100),
        title: 'Gone for good',
        status: 'completed',
        archived: false,
      });
      expect(await suite.store.exists('gone')).toBe(false);
      await expectCode(suite.store.load('gone'), 'NOT_FOUND');
      await expectCode(suite.store.readEvents('gone'), 'NOT_FOUND');
      await expectCode(suite.store.append('gone', 3, [noteEvent(4)]), 'NOT_FOUND');
      const r = await suite.store.list();
      expect(r.summaries.map((x) => x.id)).toEqual(['stays']);
      expect(r.missing).toEqual([]);
      const rebuilt = await suite.store.list({ rebuild: true });
      expect([...rebuilt.summaries.map((x) => x.id), ...rebuilt.missing]).toEqual(['stays']);
      expect(await suite.store.listTombstones()).toEqual([t]);
      expect((await suite.store.load('stays')).revision).toBe(1);
    });

    it('deletes an archived session, and says it was archived', async () => {
      await seed(suite.store, 'old', 1);
      await suite.store.archive('old');
      const t = await suite.store.delete('old', 2, info('Old', 'abandoned'));
      expect(t.archived).toBe(true);
      expect(await suite.store.exists('old')).toBe(false);
      expect((await suite.store.list()).summaries).toEqual([]);
      expect(await suite.store.listTombstones()).toEqual([
        { id: 'old', deletedAt: at(100), title: 'Old', status: 'abandoned', archived: true },
      ]);
    });

    it('deletes only at the expected revision: CONFLICT otherwise, and nothing is removed', async () => {
      await seed(suite.store, 'busy', 2);
      await expectCode(suite.store.delete('busy', 2, info('Busy')), 'CONFLICT');
      await expectCode(suite.store.delete('busy', 4, info('Busy')), 'CONFLICT');
      expect((await suite.store.load('busy')).revision).toBe(3);
      expect(await suite.store.listTombstones()).toEqual([]);
      expect((await suite.store.list()).summaries.map((x) => x.id)).toEqual(['busy']);
    });

    it('answers NOT_FOUND for an unknown session and BAD_INPUT for an invalid id', async () => {
      await expectCode(suite.store.delete('nobody', 1, info('x')), 'NOT_FOUND');
      await expectCode(suite.store.delete('../x', 1, info('x')), 'BAD_INPUT');
      expect(await suite.store.listTombstones()).toEqual([]);
    });

    it('frees the id: a new session may take it, the tombstones stay, oldest first', async () => {
      await seed(suite.store, 'again');
      await suite.store.delete('again', 1, { deletedAt: at(10), title: 'first', status: 'completed' });
      await seed(suite.store, 'again', 1);
      expect((await suite.store.load('again')).revision).toBe(2);
      await suite.store.delete('again', 2, { deletedAt: at(20), title: 'second', status: 'failed' });
      expect((await suite.store.listTombstones()).map((t) => [t.id, t.title, t.deletedAt])).toEqual([
        ['again', 'first', at(10)],
        ['again', 'second', at(20)],
      ]);
      expect(await suite.store.exists('again')).toBe(false);
    });

    it('a re-created id starts clean, even below the deleted revision; other sessions keep theirs', async () => {
      await seed(suite.store, 'reused', 4);
      await seed(suite.store, 'neighbour', 2);
      await suite.store.delete('reused', 5, info('Long one'));
      await seed(suite.store, 'reused');
      expect((await suite.store.load('reused')).revision).toBe(1);
      expect(await suite.store.readEvents('reused')).toHaveLength(1);
      await suite.store.append('reused', 1, [noteEvent(2)]);
      expect((await suite.store.load('reused')).revision).toBe(2);
      const listed = await suite.store.list();
      expect(listed.summaries.map((x) => [x.id, x.revision]).sort()).toEqual([
        ['neighbour', 3],
        ['reused', 1],
      ]);
      if (!suite.store.capabilities.multiProcess) return;
      const second = await suite.second();
      expect((await second.load('reused')).revision).toBe(2);
      expect((await second.load('neighbour')).revision).toBe(3);
    });

    it('keeps checkpoints of other sessions, and returns copies', async () => {
      const events = await seed(suite.store, 'keep', 1);
      await suite.store.saveCheckpoint('keep', checkpointOf('keep', events, 'cp-1'));
      await seed(suite.store, 'drop', 1);
      await suite.store.saveCheckpoint('drop', checkpointOf('drop', await suite.store.readEvents('drop'), 'cp-1'));
      await suite.store.delete('drop', 2, info('Drop'));
      await expectCode(suite.store.listCheckpoints('drop'), 'NOT_FOUND');
      expect((await suite.store.listCheckpoints('keep')).map((c) => c.id)).toEqual(['cp-1']);
      const [t] = await suite.store.listTombstones();
      t!.title = 'changed';
      expect((await suite.store.listTombstones())[0]!.title).toBe('Drop');
    });
  });
  acrossHandles(suite);
}

/** Deletion seen from a second handle and a reopened store. */
function acrossHandles(suite: StoreSuite): void {
  describe('delete and tombstones, across handles', () => {
    const info = (title: string, status = 'completed') => ({ deletedAt: at(100), title, status });

    it('a second handle sees the deletion and its tombstone (multiProcess stores)', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      await seed(suite.store, 'shared', 1);
      const other = await suite.second();
      expect((await other.load('shared')).revision).toBe(2);
      await suite.store.delete('shared', 2, info('Shared'));
      await expectCode(other.load('shared'), 'NOT_FOUND');
      await expectCode(other.append('shared', 2, [noteEvent(3)]), 'NOT_FOUND');
      expect((await other.listTombstones()).map((t) => t.id)).toEqual(['shared']);
      expect((await other.list()).summaries).toEqual([]);
    });

    it('of two handles deleting one session, exactly one succeeds (multiProcess stores)', async (ctx) => {
      if (!suite.store.capabilities.multiProcess) ctx.skip();
      await seed(suite.store, 'race', 1);
      const other = await suite.second();
      const results = await Promise.allSettled([
        suite.store.delete('race', 2, info('Race')),
        other.delete('race', 2, info('Race')),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(isBatonError(lost.reason, 'NOT_FOUND')).toBe(true);
      expect(await suite.store.listTombstones()).toHaveLength(1);
    });

    it('a reopened store keeps the tombstones (durable stores)', async (ctx) => {
      if (!suite.store.capabilities.durable || !suite.reopen) ctx.skip();
      await seed(suite.store, 'd1');
      await suite.store.delete('d1', 1, info('Durable'));
      await suite.store.close();
      const again = await suite.second();
      expect(await again.listTombstones()).toEqual([
        { id: 'd1', deletedAt: at(100), title: 'Durable', status: 'completed', archived: false },
      ]);
      expect(await again.exists('d1')).toBe(false);
    });
  });
}
