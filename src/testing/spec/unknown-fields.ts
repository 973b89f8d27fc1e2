import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../domain/events.js';
import { ACTOR, at, createdEvent, noteEvent, seed, stateOf, stored, summaryOf } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: unknown fields. */
export function unknownFieldsTests(suite: StoreSuite): void {
  describe('unknown fields', () => {
    it('preserves unknown fields and event types through load and readEvents', async () => {
      const created = { ...createdEvent(), futureTop: { nested: [1, 'two', null] } } as unknown as NewEvent;
      await suite.store.create('u', [created], summaryOf('u', stored([createdEvent()])));
      const withExtras = {
        ...noteEvent(1),
        data: { ...(noteEvent(1).data as object), futureData: 'kept', deep: { a: 1 } },
        futureTop: 42,
        trace: { span: 'abc' },
      } as unknown as NewEvent;
      const unknownType = {
        type: 'future.event',
        time: at(2),
        actor: ACTOR,
        data: { anything: true },
        ext: 'x',
      } as unknown as NewEvent;
      await suite.store.append('u', 1, [withExtras, unknownType]);
      const loaded = await suite.store.load('u');
      const read = await suite.store.readEvents('u');
      for (const events of [loaded.events, read]) {
        expect(events[0]).toMatchObject({ futureTop: { nested: [1, 'two', null] } });
        expect(events[1]).toMatchObject({
          futureTop: 42,
          trace: { span: 'abc' },
          data: { futureData: 'kept', deep: { a: 1 }, text: 'note 1' },
        });
        expect(events[2]).toMatchObject({ type: 'future.event', seq: 3, data: { anything: true }, ext: 'x' });
      }
      // The fold ignores what it does not know.
      expect(stateOf('u', read).notes).toHaveLength(1);
    });

    it('keeps any text exactly: accents, emoji, quotes, newlines, control characters', async () => {
      const text = 'héllo ✓ 😀 "quoted" \\ back\nslash\r\n\t\u0000\u2028 end';
      await seed(suite.store, 'text');
      await suite.store.append('text', 1, [noteEvent(2, text)]);
      for (const events of [(await suite.store.load('text')).events, await suite.store.readEvents('text')]) {
        expect((events[1]!.data as { text: string }).text).toBe(text);
      }
    });

    it('returns copies: changing a loaded event does not change the store', async () => {
      await seed(suite.store, 'c', 1);
      const first = await suite.store.load('c');
      (first.events[1]!.data as { text: string }).text = 'mutated';
      first.events.pop();
      const again = await suite.store.load('c');
      expect(again.events).toHaveLength(2);
      expect((again.events[1]!.data as { text: string }).text).toBe('note 1');
    });
  });
}
