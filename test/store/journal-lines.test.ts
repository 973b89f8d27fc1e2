import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events.js';
import { journalLines } from '../../src/store/file/append.js';
import { decodeRecord, encodeRecord } from '../../src/store/file/codec.js';

// journalLines builds each line's JSON text without building the object it stands for (it is
// on every append's path); the bytes must be those of encoding that object.
describe('journal lines', () => {
  it('are byte for byte the encoding of { v, seq, batch?, ...event }', () => {
    const event = fc.record(
      {
        type: fc.constantFrom('tokens.recorded', 'note.added', 'x.y'),
        time: fc.constant('2026-01-01T00:00:00.000Z'),
        actor: fc.record({ agent: fc.option(fc.string()), pid: fc.nat(), host: fc.string() }),
        data: fc.dictionary(fc.string(), fc.jsonValue()),
      },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 1e6 }),
        fc.boolean(),
        fc.boolean(),
        (events, first, batch, numbered) => {
          // The manager appends its stored events, which carry their seq last.
          const given = numbered ? events.map((e, i) => ({ ...e, seq: first + i })) : events;
          const got = journalLines(given as unknown as NewEvent[], first, batch)
            .split('\n')
            .slice(0, -1);
          const tag = batch && events.length > 1 ? { batch: [first, first + events.length - 1] } : {};
          expect(got).toEqual(events.map((e, i) => encodeRecord({ v: 1, seq: first + i, ...tag, ...e })));
          for (const line of got) expect(decodeRecord(line).ok).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never carry an event’s own seq, v or batch: the journal numbers lines', () => {
    const e = {
      seq: 99,
      v: 7,
      batch: [1, 2],
      type: 'note.added',
      time: 't',
      actor: { agent: null, pid: 1, host: 'h' },
      data: {},
    } as unknown as NewEvent;
    expect(journalLines([e], 5, false)).toBe(
      `${encodeRecord({ v: 1, seq: 5, type: 'note.added', time: 't', actor: { agent: null, pid: 1, host: 'h' }, data: {} })}\n`,
    );
  });
});
