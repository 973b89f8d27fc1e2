import { describe, expect, it } from 'vitest';
import { BAD_IDS, checkpointOf, expectCode, noteEvent, seed, stateOf, stored } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: checkpoints. */
export function checkpointTests(suite: StoreSuite): void {
  describe('checkpoints', () => {
    it('saves a checkpoint and reads it back whole, valid, from list and read', async () => {
      const events = await seed(suite.store, 'c', 2);
      const cp = checkpointOf('c', events, 'cp-1-first', 'First: «ünïcode» ✓');
      await suite.store.saveCheckpoint('c', cp);
      expect(await suite.store.readCheckpoint('c', 'cp-1-first')).toEqual({
        id: 'cp-1-first',
        valid: true,
        checkpoint: cp,
      });
      expect(await suite.store.listCheckpoints('c')).toEqual([{ id: 'cp-1-first', valid: true, checkpoint: cp }]);
      // The state inside folds from the same journal.
      const r = await suite.store.readCheckpoint('c', 'cp-1-first');
      expect(r.valid && r.checkpoint.state).toEqual(stateOf('c', events));
    });

    it('lists nothing for a session without checkpoints, and keeps sessions apart', async () => {
      const a = await seed(suite.store, 'a', 1);
      await seed(suite.store, 'b', 1);
      expect(await suite.store.listCheckpoints('a')).toEqual([]);
      await suite.store.saveCheckpoint('a', checkpointOf('a', a, 'cp-1'));
      expect(await suite.store.listCheckpoints('b')).toEqual([]);
      await expectCode(suite.store.readCheckpoint('b', 'cp-1'), 'NOT_FOUND');
    });

    it('lists checkpoints in creation order (numbers compared as numbers)', async () => {
      const events = await seed(suite.store, 'o', 1);
      for (const n of [10, 2, 1, 11]) await suite.store.saveCheckpoint('o', checkpointOf('o', events, `cp-${n}-x`));
      expect((await suite.store.listCheckpoints('o')).map((r) => r.id)).toEqual([
        'cp-1-x',
        'cp-2-x',
        'cp-10-x',
        'cp-11-x',
      ]);
    });

    it('never overwrites a checkpoint: EXISTS, and the first one stays', async () => {
      const events = await seed(suite.store, 'e', 1);
      await suite.store.saveCheckpoint('e', checkpointOf('e', events.slice(0, 1), 'cp-1', 'one'));
      await expectCode(suite.store.saveCheckpoint('e', checkpointOf('e', events, 'cp-1', 'two')), 'EXISTS');
      const r = await suite.store.readCheckpoint('e', 'cp-1');
      expect(r.valid && r.checkpoint.name).toBe('one');
      expect(await suite.store.listCheckpoints('e')).toHaveLength(1);
    });

    it('answers NOT_FOUND for an unknown session or checkpoint', async () => {
      const events = await seed(suite.store, 'k', 1);
      await expectCode(suite.store.saveCheckpoint('nope', checkpointOf('nope', events, 'cp-1')), 'NOT_FOUND');
      await expectCode(suite.store.listCheckpoints('nope'), 'NOT_FOUND');
      await expectCode(suite.store.readCheckpoint('nope', 'cp-1'), 'NOT_FOUND');
      await expectCode(suite.store.readCheckpoint('k', 'cp-9'), 'NOT_FOUND');
    });

    for (const [what, bad] of BAD_IDS) {
      it(`refuses an invalid checkpoint id (${what}) with BAD_INPUT and writes nothing`, async () => {
        const events = await seed(suite.store, 'v', 1);
        const before = await suite.store.readEvents('v');
        await expectCode(suite.store.saveCheckpoint('v', checkpointOf('v', events, bad)), 'BAD_INPUT');
        await expectCode(suite.store.readCheckpoint('v', bad), 'BAD_INPUT');
        await expectCode(suite.store.listCheckpoints(bad), 'BAD_INPUT');
        expect(await suite.store.listCheckpoints('v')).toEqual([]);
        expect(await suite.store.readEvents('v')).toEqual(before);
      });
    }

    it('refuses a checkpoint of another session or of a revision the journal does not have', async () => {
      const events = await seed(suite.store, 'r', 1);
      await seed(suite.store, 'other', 1);
      await expectCode(suite.store.saveCheckpoint('r', checkpointOf('other', events, 'cp-1')), 'BAD_INPUT');
      const ahead = checkpointOf('r', [...events, ...stored([noteEvent(9)], events.length)], 'cp-2');
      await expectCode(suite.store.saveCheckpoint('r', ahead), 'BAD_INPUT');
      expect(await suite.store.listCheckpoints('r')).toEqual([]);
    });

    it('never changes the journal, and stays with the session when it is archived', async () => {
      const events = await seed(suite.store, 'j', 2);
      const before = await suite.store.readEvents('j');
      await suite.store.saveCheckpoint('j', checkpointOf('j', events, 'cp-1'));
      expect(await suite.store.readEvents('j')).toEqual(before);
      expect((await suite.store.load('j')).revision).toBe(3);
      await suite.store.archive('j');
      expect((await suite.store.listCheckpoints('j')).map((r) => [r.id, r.valid])).toEqual([['cp-1', true]]);
      expect((await suite.store.readCheckpoint('j', 'cp-1')).valid).toBe(true);
    });

    it('returns copies: changing a read checkpoint does not change the store', async () => {
      const events = await seed(suite.store, 'cp', 1);
      await suite.store.saveCheckpoint('cp', checkpointOf('cp', events, 'cp-1'));
      const r = await suite.store.readCheckpoint('cp', 'cp-1');
      if (!r.valid) throw new Error('expected a valid checkpoint');
      r.checkpoint.state.title = 'changed';
      r.checkpoint.files.length = 0;
      const again = await suite.store.readCheckpoint('cp', 'cp-1');
      expect(again.valid && again.checkpoint.state.title).toBe('Session cp');
      expect(again.valid && again.checkpoint.files).toHaveLength(2);
    });
  });
}
