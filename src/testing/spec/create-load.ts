import { describe, expect, it } from 'vitest';
import {
  BAD_IDS,
  createdEvent,
  expectCode,
  expectContiguous,
  noteEvent,
  seed,
  stateOf,
  stored,
  summaryOf,
  tokensEvent,
} from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: create and load. */
export function createAndLoadTests(suite: StoreSuite): void {
  describe('create and load', () => {
    it('declares its capabilities', () => {
      expect(typeof suite.store.kind).toBe('string');
      expect(typeof suite.store.location).toBe('string');
      expect(suite.store.capabilities).toEqual({
        multiProcess: expect.any(Boolean),
        multiMachine: expect.any(Boolean),
        durable: expect.any(Boolean),
      });
      if (suite.store.capabilities.multiMachine) expect(suite.store.capabilities.multiProcess).toBe(true);
    });

    it('create then load returns every event with seq 1..n', async () => {
      const events = [createdEvent(), noteEvent(1), tokensEvent(2, 5), noteEvent(3)];
      const r = await suite.store.create('s-1', events, summaryOf('s-1', stored(events)));
      expect(r).toEqual({ revision: 4 });
      const loaded = await suite.store.load('s-1');
      expect(loaded.snapshot).toBeNull();
      expect(loaded.revision).toBe(4);
      expect(loaded.repairs).toEqual([]);
      expectContiguous(loaded.events);
      loaded.events.forEach((e, i) => expect(e).toMatchObject({ ...events[i], seq: i + 1 }));
      expect(stateOf('s-1', loaded.events).tokens.input).toBe(5);
      expect(await suite.store.exists('s-1')).toBe(true);
      expect(await suite.store.exists('s-2')).toBe(false);
    });

    it('keeps sessions apart', async () => {
      await seed(suite.store, 'a', 2);
      await seed(suite.store, 'b', 5);
      expect((await suite.store.load('a')).revision).toBe(3);
      expect((await suite.store.load('b')).revision).toBe(6);
      await suite.store.append('a', 3, [noteEvent(9)]);
      expect((await suite.store.load('b')).revision).toBe(6);
      expect((await suite.store.readEvents('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });

    it('refuses to create an existing id with EXISTS and changes nothing', async () => {
      const before = await seed(suite.store, 'dup', 2);
      await expectCode(
        suite.store.create('dup', [createdEvent('other')], summaryOf('dup', stored([createdEvent('other')]))),
        'EXISTS',
      );
      const after = await suite.store.readEvents('dup');
      expect(after).toHaveLength(before.length);
      expect(after[0]).toMatchObject({ type: 'session.created', data: { title: 'Session dup' } });
    });

    it('answers NOT_FOUND for an unknown id', async () => {
      await seed(suite.store, 'known');
      expect(await suite.store.exists('unknown')).toBe(false);
      await expectCode(suite.store.load('unknown'), 'NOT_FOUND');
      await expectCode(suite.store.readEvents('unknown'), 'NOT_FOUND');
      await expectCode(suite.store.append('unknown', 0, [noteEvent(1)]), 'NOT_FOUND');
      await expectCode(suite.store.append('unknown', 1, [noteEvent(1)]), 'NOT_FOUND');
      await expectCode(
        suite.store.writeSnapshot('unknown', { revision: 1, state: stateOf('unknown', stored([createdEvent()])) }),
        'NOT_FOUND',
      );
      await expectCode(suite.store.archive('unknown'), 'NOT_FOUND');
      await expectCode(suite.store.isArchived('unknown'), 'NOT_FOUND');
      if (suite.store.repair) await expectCode(suite.store.repair('unknown'), 'NOT_FOUND');
      await expectCode(suite.store.setActive('unknown'), 'NOT_FOUND');
      expect(await suite.store.exists('unknown')).toBe(false);
      expect((await suite.store.list()).summaries.map((s) => s.id)).toEqual(['known']);
    });

    for (const [what, bad] of BAD_IDS) {
      it(`refuses an invalid id (${what}) with BAD_INPUT everywhere`, async () => {
        await seed(suite.store, 'x', 1);
        const ev = [createdEvent()];
        const state = stateOf('x', stored(ev));
        await expectCode(suite.store.create(bad, ev, { ...summaryOf('x', stored(ev)), id: bad }), 'BAD_INPUT');
        await expectCode(suite.store.exists(bad), 'BAD_INPUT');
        await expectCode(suite.store.load(bad), 'BAD_INPUT');
        await expectCode(suite.store.readEvents(bad), 'BAD_INPUT');
        await expectCode(suite.store.append(bad, 1, [noteEvent(1)]), 'BAD_INPUT');
        await expectCode(suite.store.writeSnapshot(bad, { revision: 1, state }), 'BAD_INPUT');
        await expectCode(suite.store.archive(bad), 'BAD_INPUT');
        await expectCode(suite.store.isArchived(bad), 'BAD_INPUT');
        if (suite.store.repair) await expectCode(suite.store.repair(bad), 'BAD_INPUT');
        await expectCode(suite.store.setActive(bad), 'BAD_INPUT');
        // Nothing was created by any of these, and the real session is untouched.
        expect((await suite.store.list()).summaries.map((s) => s.id)).toEqual(['x']);
        expect((await suite.store.list()).missing).toEqual([]);
        expect((await suite.store.load('x')).revision).toBe(2);
        expect(await suite.store.getActive()).toBeNull();
      });
    }
  });
}
