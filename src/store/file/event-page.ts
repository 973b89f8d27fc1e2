import fs from 'node:fs';
import { BatonError } from '../../domain/errors.js';
import type { StoredEvent } from '../../domain/events.js';
import { hint } from '../../domain/hints.js';
import { decodeRecord } from './codec.js';
import type { Handle } from './handle.js';
import { caughtInFlight, scanJournal } from './journal.js';
import { READ_AGAIN, pauseBeforeReadAgain } from './loss.js';

/** Bytes a probe of the search reads first, and a step of the scan (each grown for longer lines). */
const PROBE = 2 * 1024;
const CHUNK = 32 * 1024;

/** A line of the journal: where it starts and its seq (Infinity: past the data, or not a whole line). */
interface Probe {
  start: number;
  seq: number;
}

function readAt(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  return buf.subarray(0, fs.readSync(fd, buf, 0, length, at));
}

/** The first whole line that starts at or after `pos`, with its seq; damaged lines are stepped over. */
function probe(fd: number, size: number, pos: number): Probe {
  // A line starts at 0 or after a newline: read from `pos - 1` to see the newline before a line at `pos`.
  let from = pos === 0 ? 0 : pos - 1;
  let inLine = pos !== 0;
  let len = PROBE;
  for (;;) {
    if (from >= size) return { start: size, seq: Infinity };
    const buf = readAt(fd, from, Math.min(len, size - from));
    const last = from + buf.length >= size;
    let start = 0;
    if (inLine) {
      const nl = buf.indexOf(10);
      if (nl === -1) {
        if (last) return { start: size, seq: Infinity };
        from += buf.length;
        continue;
      }
      start = nl + 1;
      inLine = false;
    }
    for (;;) {
      if (start >= buf.length) break;
      if (buf[start] === 0) return { start: from + start, seq: Infinity };
      const nl = buf.indexOf(10, start);
      if (nl === -1) {
        // A torn or unfinished last line; or a line longer than the window: read a larger one.
        if (last) return { start: from + start, seq: Infinity };
        if (start === 0) len *= 2;
        break;
      }
      const d = decodeRecord(buf.toString('utf8', start, nl));
      const seq = d.ok ? d.value['seq'] : undefined;
      if (typeof seq === 'number') return { start: from + start, seq };
      start = nl + 1;
    }
    if (last && start >= buf.length) return { start: size, seq: Infinity };
    from += start;
  }
}

/** The start and seq of the last line whose seq is at most `want` (seqs grow along the journal). */
function seek(fd: number, size: number, want: number): Probe {
  let lo = probe(fd, size, 0);
  let hi = size;
  while (hi - lo.start > CHUNK) {
    const mid = lo.start + Math.floor((hi - lo.start) / 2);
    const p = probe(fd, size, mid);
    if (p.seq > want) hi = mid;
    else lo = p;
  }
  return lo;
}

/**
 * Up to `limit` events with seq > `afterSeq` of the journal `h` holds open, read around them
 * alone: a binary search over the file's bytes finds the line before them, then lines are read
 * forward from there until the page is full. What the whole read (`eventsOfJournal`) does with
 * damage it does here for the lines read: a line caught half written is read again, other
 * damage is `CORRUPT`; an unacknowledged tail is not an event.
 */
export function eventPage(id: string, h: Handle, afterSeq: number, limit: number): StoredEvent[] {
  for (let again = 0; ; again++) {
    try {
      return pageOnce(h.fd, afterSeq, Math.max(1, Math.floor(limit)));
    } catch (e) {
      if (!(e instanceof BatonError) || e.details.inFlight !== true || again >= READ_AGAIN) throw corrupt(id, e);
      pauseBeforeReadAgain(again + 1);
    }
  }
}

function corrupt(id: string, e: unknown): unknown {
  if (!(e instanceof BatonError) || e.code !== 'CORRUPT') return e;
  return new BatonError('CORRUPT', `Session ${id}'s journal has damaged line(s).`, {
    hint: hint('repair.run', { session: id }),
    details: { sessionId: id, inFlight: e.details.inFlight === true },
  });
}

function pageOnce(fd: number, afterSeq: number, limit: number): StoredEvent[] {
  const size = fs.fstatSync(fd).size;
  const from = seek(fd, size, afterSeq + 1);
  const out: StoredEvent[] = [];
  let at = from.start;
  let expected = Math.max(1, from.seq);
  let len = CHUNK;
  while (out.length < limit && at < size) {
    const buf = readAt(fd, at, Math.min(len, size - at));
    const last = at + buf.length >= size;
    const scan = scanJournal(buf, 0, expected);
    if (scan.bad.length)
      throw new BatonError('CORRUPT', 'damaged line', { details: { inFlight: caughtInFlight(scan.bad) } });
    for (const e of scan.events) if (e.seq > afterSeq && out.length < limit) out.push(e);
    // The end of the data (room set aside after it is zeros), or a torn tail: nothing past it was acknowledged.
    if (last || (scan.events.length === 0 && buf[scan.goodEnd] === 0)) break;
    if (scan.goodEnd === 0) len *= 2; // a line (or a batch) longer than the window
    at += scan.goodEnd;
    expected = scan.lastSeq + 1;
  }
  return out;
}
