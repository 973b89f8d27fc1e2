import fs from 'node:fs';
import type { StoredEvent } from '../../domain/events.js';
import { decodeRecord } from './codec.js';
import { lossStart } from '../loss-event.js';

/** A journal line that could not be read. */
export interface BadLine {
  /** 1-based line number counted from the scan start. */
  line: number;
  offset: number;
  raw: string;
  reason: string;
}

/** Result of reading a journal forward from some byte offset. */
export interface Scan {
  events: StoredEvent[];
  /** Seq of the last good event, or `firstSeq - 1` when none. */
  lastSeq: number;
  /** Byte offset just after the last good line. */
  goodEnd: number;
  /** Offset where an incomplete or damaged last line starts, or null. */
  tornAt: number | null;
  /** Damaged lines that are followed by good ones (not a torn tail). */
  bad: BadLine[];
  /** Byte offset where each returned event's line ends, parallel to `events`. */
  ends: number[];
  /**
   * Highest seq on any complete, readable line, in order or not (at least `lastSeq`): how far
   * the journal got, which a damaged inner line does not change.
   */
  maxSeq: number;
}

/**
 * Parses journal bytes starting at `startOffset`, expecting the first event to have seq
 * `firstSeq`. Only a last line without its newline is a torn tail (an append that was never
 * acknowledged); a damaged complete line, last or not, or a seq out of order, is reported in
 * `bad`.
 */
export function scanJournal(buf: Buffer, startOffset: number, firstSeq: number): Scan {
  const events: StoredEvent[] = [];
  const ends: number[] = [];
  const starts: number[] = [];
  const bad: BadLine[] = [];
  let expected = firstSeq;
  let offset = startOffset;
  let goodEnd = startOffset;
  let tornAt: number | null = null;
  let lineNo = 0;
  let maxSeq = 0;
  const size = buf.length;
  while (offset < size) {
    let nl = buf.indexOf(10, offset);
    const complete = nl !== -1;
    if (!complete) nl = size;
    lineNo += 1;
    const raw = buf.toString('utf8', offset, nl);
    const next = complete ? nl + 1 : size;
    if (!complete) {
      tornAt = offset;
      break;
    }
    if (raw.trim() === '') {
      offset = next;
      goodEnd = next;
      continue;
    }
    const d = decodeRecord(raw);
    const seq = d.ok ? d.value['seq'] : undefined;
    if (typeof seq === 'number' && seq > maxSeq) maxSeq = seq;
    if (!d.ok || typeof seq !== 'number' || typeof d.value['type'] !== 'string') {
      // Even as the last line: a line that got its newline was written whole, so damage to it
      // is not a torn append. It is kept and reported, never cut.
      bad.push({ line: lineNo, offset, raw, reason: d.ok ? 'missing seq or type' : d.reason });
      expected += 1;
      offset = next;
      continue;
    }
    if (seq !== expected && !bridgesLoss(d.value, expected)) {
      bad.push({ line: lineNo, offset, raw, reason: `seq ${seq} where ${expected} was expected` });
      offset = next;
      continue;
    }
    events.push(d.value as StoredEvent);
    starts.push(offset);
    ends.push(next);
    expected = seq + 1;
    goodEnd = next;
    offset = next;
  }
  // A batch whose last event never made it to disk was not acknowledged: all of it is torn.
  const open = incompleteBatch(events[events.length - 1]);
  if (open !== null) {
    const i = events.findIndex((e) => e.seq === open);
    if (i !== -1) {
      if (maxSeq >= open) maxSeq = open - 1;
      tornAt = starts[i]!;
      goodEnd = tornAt;
      events.length = i;
      ends.length = i;
      expected = open;
    }
  }
  return { events, lastSeq: expected - 1, goodEnd, tornAt, bad, ends, maxSeq: Math.max(maxSeq, expected - 1) };
}

/** See loss-event.ts (shared with the other stores). */
export { lossStart };

/** True when `e` is the `repair.events_lost` event that bridges the seqs from `expected`. */
export function bridgesLoss(e: Record<string, unknown>, expected: number): boolean {
  return lossStart(e) === expected;
}

/**
 * The first seq of the batch `e` belongs to when that batch is incomplete (its last event is
 * missing), else null. Lines of a multi-event append carry `batch: [first, last]`.
 */
export function incompleteBatch(e: Record<string, unknown> | undefined): number | null {
  const b = e?.['batch'];
  if (!Array.isArray(b) || b.length !== 2 || typeof b[0] !== 'number' || typeof b[1] !== 'number') return null;
  return b[1] > (e!['seq'] as number) ? b[0] : null;
}

/** The end of a journal: last good seq, where it ends, and what follows it. */
export interface Tail {
  lastSeq: number;
  goodEnd: number;
  size: number;
  /** The final line has no newline: an unacknowledged append, safe to cut. */
  torn: boolean;
  /** The last complete line is damaged: not a torn tail, needs `repair`. */
  corrupt: boolean;
}

/**
 * Reads a journal backwards from its end to find the last good line, without reading the
 * whole file. Used on every append, so its cost does not grow with history. Only the final
 * line may be taken as torn; anything worse is reported as `corrupt` and left alone.
 */
export function readTail(fd: number): Tail {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return { lastSeq: 0, goodEnd: 0, size, torn: false, corrupt: false };
  for (let chunk = 64 * 1024; ; chunk *= 4) {
    const start = Math.max(0, size - chunk);
    const buf = Buffer.allocUnsafe(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const lines = linesFromEnd(buf, start === 0);
    // No newline at all in this window: a torn last line longer than the window. The last
    // good line lies further back; read more rather than take the whole file as torn.
    if (lines.length === 0 && start > 0) continue;
    const torn = buf[buf.length - 1] !== 10;
    if (!torn) {
      const last = lines[0];
      if (last === 'partial') continue;
      // A complete last line that fails its checksum is damage, not a torn append.
      if (last && seqOf(buf, last) === null) return { lastSeq: 0, goodEnd: 0, size, torn: false, corrupt: true };
    }
    const good = lines[0];
    if (good === 'partial') continue;
    if (!good) return { lastSeq: 0, goodEnd: 0, size, torn, corrupt: false };
    const d = decodeRecord(buf.toString('utf8', good.from, good.to));
    const seq = d.ok && typeof d.value['seq'] === 'number' ? (d.value['seq'] as number) : null;
    if (seq === null) return { lastSeq: 0, goodEnd: 0, size, torn, corrupt: true };
    const open = incompleteBatch(d.ok ? d.value : undefined);
    if (open !== null) {
      const at = lineStartOf(fd, start + good.to + 1, open);
      if (at !== null) return { lastSeq: open - 1, goodEnd: at, size, torn: true, corrupt: false };
    }
    return { lastSeq: seq, goodEnd: start + good.to + 1, size, torn, corrupt: false };
  }
}

/** Offset of the line holding `seq`, searching backwards from `before` (just after a newline). */
function lineStartOf(fd: number, before: number, seq: number): number | null {
  for (let chunk = 64 * 1024; ; chunk *= 4) {
    const start = Math.max(0, before - chunk);
    const buf = Buffer.allocUnsafe(before - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    let end = buf.length;
    while (end > 0) {
      const nl = end - 2 >= 0 ? buf.lastIndexOf(10, end - 2) : -1;
      if (nl === -1 && start > 0) break; // line start not in this window
      const d = decodeRecord(buf.toString('utf8', nl + 1, end - 1));
      if (d.ok && d.value['seq'] === seq) return start + nl + 1;
      end = nl + 1;
    }
    if (start === 0) return null;
  }
}

interface LineSpan {
  from: number;
  /** Index of the terminating newline. */
  to: number;
}

/**
 * The last two newline-terminated lines of `buf`, newest first; 'partial' where a line's
 * start lies before the buffer (read more).
 */
function linesFromEnd(buf: Buffer, atFileStart: boolean): Array<LineSpan | 'partial'> {
  const out: Array<LineSpan | 'partial'> = [];
  let nl = buf.lastIndexOf(10);
  while (nl !== -1 && out.length < 2) {
    const prev = nl === 0 ? -1 : buf.lastIndexOf(10, nl - 1);
    if (prev === -1 && !atFileStart) {
      out.push('partial');
      break;
    }
    out.push({ from: prev + 1, to: nl });
    nl = prev;
  }
  return out;
}

function seqOf(buf: Buffer, span: LineSpan): number | null {
  const d = decodeRecord(buf.toString('utf8', span.from, span.to));
  return d.ok && typeof d.value['seq'] === 'number' ? (d.value['seq'] as number) : null;
}
