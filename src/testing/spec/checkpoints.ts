import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../store/types.js';
import { BAD_IDS, checkpointOf, expectCode, noteEvent, seed, stateOf, stored } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: checkpoints. */
export function checkpointTests(suite: StoreSuite): void {
  describe('checkpoints', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('saves a checkpoint and reads it back whole, valid, from list and read', async () => {
      const events = await seed(store, 'c', 2);
      const cp = checkpointOf('c', events, 'cp-1-first', 'First: «ünïcode» ✓');
      await store.saveCheckpoint('c', cp);
      expect(await store.readCheckpoint('c', 'cp-1-first')).toEqual({ id: 'cp-1-first', valid: true, checkpoint: cp });
      expect(await store.listCheckpoints('c')).toEqual([{ id: 'cp-1-first', valid: true, checkpoint: cp }]);
      // The state inside folds from the same journal.
      const r = await store.readCheckpoint('c', 'cp-1-first');
      expect(r.valid && r.checkpoint.state).toEqual(stateOf('c', events));
    });

    it('lists nothing for a session without checkpoints, and keeps sessions apart', async () => {
      const a = await seed(store, 'a', 1);
      await seed(store, 'b', 1);
      expect(await store.listCheckpoints('a')).toEqual([]);
      await store.saveCheckpoint('a', checkpointOf('a', a, 'cp-1'));
      expect(await store.listCheckpoints('b')).toEqual([]);
      await expectCode(store.readCheckpoint('b', 'cp-1'), 'NOT_FOUND');
    });

    it('lists checkpoints in creation order (numbers compared as numbers)', async () => {
      const events = await seed(store, 'o', 1);
      for (const n of [10, 2, 1, 11]) await store.saveCheckpoint('o', checkpointOf('o', events, `cp-${n}-x`));
      expect((await store.listCheckpoints('o')).map((r) => r.id)).toEqual(['cp-1-x', 'cp-2-x', 'cp-10-x', 'cp-11-x']);
    });

    it('never overwrites a checkpoint: EXISTS, and the first one stays', async () => {
      const events = await seed(store, 'e', 1);
      await store.saveCheckpoint('e', checkpointOf('e', events.slice(0, 1), 'cp-1', 'one'));
      await expectCode(store.saveCheckpoint('e', checkpointOf('e', events, 'cp-1', 'two')), 'EXISTS');
      const r = await store.readCheckpoint('e', 'cp-1');
      expect(r.valid && r.checkpoint.name).toBe('one');
      expect(await store.listCheckpoints('e')).toHaveLength(1);
    });

    it('answers NOT_FOUND for an unknown session or checkpoint', async () => {
      const events = await seed(store, 'k', 1);
      await expectCode(store.saveCheckpoint('nope', checkpointOf('nope', events, 'cp-1')), 'NOT_FOUND');
      await expectCode(store.listCheckpoints('nope'), 'NOT_FOUND');
      await expectCode(store.readCheckpoint('nope', 'cp-1'), 'NOT_FOUND');
      await expectCode(store.readCheckpoint('k', 'cp-9'), 'NOT_FOUND');
    });

    for (const [what, bad] of BAD_IDS) {
      it(`refuses an invalid checkpoint id (${what}) with BAD_INPUT and writes nothing`, async () => {
        const events = await seed(store, 'v', 1);
        const before = await store.readEvents('v');
        await expectCode(store.saveCheckpoint('v', checkpointOf('v', events, bad)), 'BAD_INPUT');
        await expectCode(store.readCheckpoint('v', bad), 'BAD_INPUT');
        await expectCode(store.listCheckpoints(bad), 'BAD_INPUT');
        expect(await store.listCheckpoints('v')).toEqual([]);
        expect(await store.readEvents('v')).toEqual(before);
      });
    }

    it('refuses a checkpoint of another session or of a revision the journal does not have', async () => {
      const events = await seed(store, 'r', 1);
      await seed(store, 'other', 1);
      await expectCode(store.saveCheckpoint('r', checkpointOf('other', events, 'cp-1')), 'BAD_INPUT');
      const ahead = checkpointOf('r', [...events, ...stored([noteEvent(9)], events.length)], 'cp-2');
      await expectCode(store.saveCheckpoint('r', ahead), 'BAD_INPUT');
      expect(await store.listCheckpoints('r')).toEqual([]);
    });

    it('never changes the journal, and stays with the session when it is archived', async () => {
      const events = await seed(store, 'j', 2);
      const before = await store.readEvents('j');
      await store.saveCheckpoint('j', checkpointOf('j', events, 'cp-1'));
      expect(await store.readEvents('j')).toEqual(before);
      expect((await store.load('j')).revision).toBe(3);
      await store.archive('j');
      expect((await store.listCheckpoints('j')).map((r) => [r.id, r.valid])).toEqual([['cp-1', true]]);
      expect((await store.readCheckpoint('j', 'cp-1')).valid).toBe(true);
    });

    it('returns copies: changing a read checkpoint does not change the store', async () => {
      const events = await seed(store, 'cp', 1);
      await store.saveCheckpoint('cp', checkpointOf('cp', events, 'cp-1'));
      const r = await store.readCheckpoint('cp', 'cp-1');
      if (!r.valid) throw new Error('expected a valid checkpoint');
      r.checkpoint.state.title = 'changed';
      r.checkpoint.files.length = 0;
      const again = await store.readCheckpoint('cp', 'cp-1');
      expect(again.valid && again.checkpoint.state.title).toBe('Session cp');
      expect(again.valid && again.checkpoint.files).toHaveLength(2);
    });
  });
}
