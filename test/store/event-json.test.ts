import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events.js';
import { eventJson } from '../../src/store/event-json.js';

// Both stores write an event's JSON without the fields they record apart (seq, v, batch); the
// manager hands them numbered events, so this runs on every append.
describe('eventJson', () => {
  it('is JSON.stringify of the event without seq, v and batch, wherever they sit', () => {
    const field = fc.constantFrom('seq', 'v', 'batch');
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.tuple(field, fc.oneof(fc.integer(), fc.constant(undefined), fc.jsonValue())), { maxLength: 3 }),
        fc.boolean(),
        (body, extra, first) => {
          const rest = Object.fromEntries(
            Object.entries(body).filter(([k]) => k !== 'seq' && k !== 'v' && k !== 'batch'),
          );
          const e = first ? { ...Object.fromEntries(extra), ...rest } : { ...rest, ...Object.fromEntries(extra) };
          expect(eventJson(e as unknown as NewEvent)).toBe(JSON.stringify(rest));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves out fields JSON.stringify leaves out', () => {
    const e = {
      type: 't',
      seq: 3,
      gone: undefined,
      fn: () => 1,
      data: { a: undefined, b: [undefined] },
    } as unknown as NewEvent;
    expect(eventJson(e)).toBe('{"type":"t","data":{"b":[null]}}');
  });
});
