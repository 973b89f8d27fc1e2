import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../store/types.js';
import { BAD_IDS, createdEvent, expectCode, expectContiguous, noteEvent, seed, stateOf, stored, summaryOf, tokensEvent } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: create and load. */
export function createAndLoadTests(suite: StoreSuite): void {
  describe('create and load', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('declares its capabilities', () => {
      expect(typeof store.kind).toBe('string');
      expect(typeof store.location).toBe('string');
      expect(store.capabilities).toEqual({
        multiProcess: expect.any(Boolean),
        multiMachine: expect.any(Boolean),
        durable: expect.any(Boolean),
      });
      if (store.capabilities.multiMachine) expect(store.capabilities.multiProcess).toBe(true);
    });

    it('create then load returns every event with seq 1..n', async () => {
      const events = [createdEvent(), noteEvent(1), tokensEvent(2, 5), noteEvent(3)];
      const r = await store.create('s-1', events, summaryOf('s-1', stored(events)));
      expect(r).toEqual({ revision: 4 });
      const loaded = await store.load('s-1');
      expect(loaded.snapshot).toBeNull();
      expect(loaded.revision).toBe(4);
      expect(loaded.repairs).toEqual([]);
      expectContiguous(loaded.events);
      loaded.events.forEach((e, i) => expect(e).toMatchObject({ ...events[i], seq: i + 1 }));
      expect(stateOf('s-1', loaded.events).tokens.input).toBe(5);
      expect(await store.exists('s-1')).toBe(true);
      expect(await store.exists('s-2')).toBe(false);
    });

    it('keeps sessions apart', async () => {
      await seed(store, 'a', 2);
      await seed(store, 'b', 5);
      expect((await store.load('a')).revision).toBe(3);
      expect((await store.load('b')).revision).toBe(6);
      await store.append('a', 3, [noteEvent(9)]);
      expect((await store.load('b')).revision).toBe(6);
      expect((await store.readEvents('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });

    it('refuses to create an existing id with EXISTS and changes nothing', async () => {
      const before = await seed(store, 'dup', 2);
      await expectCode(store.create('dup', [createdEvent('other')], summaryOf('dup', stored([createdEvent('other')]))), 'EXISTS');
      const after = await store.readEvents('dup');
      expect(after).toHaveLength(before.length);
      expect(after[0]).toMatchObject({ type: 'session.created', data: { title: 'Session dup' } });
    });

    it('answers NOT_FOUND for an unknown id', async () => {
      await seed(store, 'known');
      expect(await store.exists('unknown')).toBe(false);
      await expectCode(store.load('unknown'), 'NOT_FOUND');
      await expectCode(store.readEvents('unknown'), 'NOT_FOUND');
      await expectCode(store.append('unknown', 0, [noteEvent(1)]), 'NOT_FOUND');
      await expectCode(store.append('unknown', 1, [noteEvent(1)]), 'NOT_FOUND');
      await expectCode(store.writeSnapshot('unknown', { revision: 1, state: stateOf('unknown', stored([createdEvent()])) }), 'NOT_FOUND');
      await expectCode(store.archive('unknown'), 'NOT_FOUND');
      await expectCode(store.isArchived('unknown'), 'NOT_FOUND');
      if (store.repair) await expectCode(store.repair('unknown'), 'NOT_FOUND');
      await expectCode(store.setActive('unknown'), 'NOT_FOUND');
      expect(await store.exists('unknown')).toBe(false);
      expect((await store.list()).summaries.map((s) => s.id)).toEqual(['known']);
    });

    for (const [what, bad] of BAD_IDS) {
      it(`refuses an invalid id (${what}) with BAD_INPUT everywhere`, async () => {
        await seed(store, 'x', 1);
        const ev = [createdEvent()];
        const state = stateOf('x', stored(ev));
        await expectCode(store.create(bad, ev, { ...summaryOf('x', stored(ev)), id: bad }), 'BAD_INPUT');
        await expectCode(store.exists(bad), 'BAD_INPUT');
        await expectCode(store.load(bad), 'BAD_INPUT');
        await expectCode(store.readEvents(bad), 'BAD_INPUT');
        await expectCode(store.append(bad, 1, [noteEvent(1)]), 'BAD_INPUT');
        await expectCode(store.writeSnapshot(bad, { revision: 1, state }), 'BAD_INPUT');
        await expectCode(store.archive(bad), 'BAD_INPUT');
        await expectCode(store.isArchived(bad), 'BAD_INPUT');
        if (store.repair) await expectCode(store.repair(bad), 'BAD_INPUT');
        await expectCode(store.setActive(bad), 'BAD_INPUT');
        // Nothing was created by any of these, and the real session is untouched.
        expect((await store.list()).summaries.map((s) => s.id)).toEqual(['x']);
        expect((await store.list()).missing).toEqual([]);
        expect((await store.load('x')).revision).toBe(2);
        expect(await store.getActive()).toBeNull();
      });
    }
  });
}
