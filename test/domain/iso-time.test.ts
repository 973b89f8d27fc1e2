import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/domain/iso-time.js';

describe('isoTime', () => {
  it('is toISOString for every date, years 0 to 9999 and beyond', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }), (d) => {
        expect(isoTime(d)).toBe(d.toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const t of [
      0,
      -1,
      1,
      Date.parse('0000-01-01T00:00:00.000Z'),
      Date.parse('9999-12-31T23:59:59.999Z'),
      Date.parse('2026-11-24T09:05:03.007Z'),
    ]) {
      expect(isoTime(new Date(t))).toBe(new Date(t).toISOString());
    }
  });

  it('is toISOString for runs of dates close together (the second it formatted last is kept)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 253402300799000 }),
        fc.array(fc.integer({ min: -1500, max: 1500 }), { minLength: 1, maxLength: 20 }),
        (start, steps) => {
          let t = start;
          for (const step of steps) {
            t += step;
            expect(isoTime(new Date(t))).toBe(new Date(t).toISOString());
          }
        },
      ),
      { numRuns: 1000 },
    );
    for (const t of [-1001, -1000, -999, -1, 0, 999, 1000, 1001])
      expect(isoTime(new Date(t))).toBe(new Date(t).toISOString());
  });

  it('throws as toISOString does for an invalid date', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
