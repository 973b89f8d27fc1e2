import type { NewEvent } from '../domain/events.js';

/**
 * `JSON.stringify(e)` without the fields a store records apart from the event (seq, v, batch):
 * same bytes as stringifying a copy without them, made without the copy. The manager appends
 * its stored events, numbered, with `seq` last: the whole event is stringified (V8's fastest
 * path) and its last member cut. A JSON text that ends in `,"seq":N}` has `"seq":N` as its
 * top-level last member: any value nested in a member would end in `}`, `]` or `"`, not a digit.
 */
export function eventJson(e: NewEvent): string {
  const r = e as unknown as Record<string, unknown>;
  if (r.v === undefined && r.batch === undefined) {
    const whole = JSON.stringify(e);
    const seq = r.seq;
    if (seq === undefined) return whole;
    if (typeof seq === 'number' && Number.isFinite(seq)) {
      const tail = `,"seq":${JSON.stringify(seq)}}`;
      if (whole.endsWith(tail)) return `${whole.slice(0, whole.length - tail.length)}}`;
    }
  }
  let out = '';
  for (const k of Object.keys(r)) {
    if (k === 'seq' || k === 'v' || k === 'batch') continue;
    const value = JSON.stringify(r[k]);
    // As JSON.stringify leaves out a field whose value it cannot write (undefined, a function).
    if (value === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${value}`;
  }
  return `{${out}}`;
}
