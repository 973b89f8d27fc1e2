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

/**
 * True when every damaged line holds a zero byte: what a reader without the session lock sees
 * when it reads lines being written over the room at the journal's end (it copied a page
 * before the writer's bytes reached it and the next page after: zeros, then the rest of a
 * line). A line never holds a zero byte (JSON escapes it), so this is a read to make again;
 * damage that is still there when read again is reported.
 */
export function caughtInFlight(bad: readonly BadLine[]): boolean {
  return bad.length > 0 && bad.every((b) => b.raw.includes('\u0000'));
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
  // Room set aside at the end (zero bytes) is not part of the journal.
  const size = buf.length > 0 && buf[buf.length - 1] === 0 ? dataEndOf(buf) : buf.length;
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
  /** The file's size, with any room set aside at its end (zero bytes, see {@link dataEnd}). */
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
  const physical = fs.fstatSync(fd).size;
  // Zero bytes at the end are room a writer set aside (append.ts), not part of the journal.
  const end = dataEnd(fd, physical);
  // Blank lines at the end (scanJournal skips them) are no damaged last line: look at the
  // lines before them, and let the journal go on after them.
  const size = end - blankTail(fd, end);
  if (size === 0) return { lastSeq: 0, goodEnd: end, size: physical, torn: false, corrupt: false };
  const t = tailOf(fd, size, physical);
  return !t.torn && !t.corrupt && t.goodEnd === size ? { ...t, goodEnd: end } : t;
}

/** Length of the whitespace-only lines (each ended by a newline) that end the first `end` bytes. */
function blankTail(fd: number, end: number): number {
  const n = Math.min(end, 4096);
  const buf = Buffer.allocUnsafe(n);
  fs.readSync(fd, buf, 0, n, end - n);
  if (buf[n - 1] !== 10) return 0;
  let i = n - 1;
  while (i > 0 && (buf[i - 1] === 10 || buf[i - 1] === 32 || buf[i - 1] === 13 || buf[i - 1] === 9)) i -= 1;
  // `i` is just after the last byte that is not whitespace: the line it ends (through its
  // newline) is the last line; what follows that newline is blank.
  const nl = buf.indexOf(10, i);
  return nl === -1 || (i === 0 && end > n) ? 0 : n - (nl + 1);
}

function tailOf(fd: number, size: number, physical: number): Tail {
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
      if (last && seqOf(buf, last) === null)
        return { lastSeq: 0, goodEnd: 0, size: physical, torn: false, corrupt: true };
    }
    const good = lines[0];
    if (good === 'partial') continue;
    if (!good) return { lastSeq: 0, goodEnd: 0, size: physical, torn, corrupt: false };
    const d = decodeRecord(buf.toString('utf8', good.from, good.to));
    const seq = d.ok && typeof d.value['seq'] === 'number' ? (d.value['seq'] as number) : null;
    if (seq === null) return { lastSeq: 0, goodEnd: 0, size: physical, torn, corrupt: true };
    const open = incompleteBatch(d.ok ? d.value : undefined);
    if (open !== null) {
      const at = lineStartOf(fd, start + good.to + 1, open);
      if (at !== null) return { lastSeq: open - 1, goodEnd: at, size: physical, torn: true, corrupt: false };
    }
    return { lastSeq: seq, goodEnd: start + good.to + 1, size: physical, torn, corrupt: false };
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

/** How much of a journal's end {@link dataEnd} looks at for set-aside room, at most. */
const ROOM_SCAN = 1 << 20;

/**
 * Where the bytes of a journal of `size` bytes end: before the run of zero bytes a writer set
 * aside at its end (append.ts grows a journal in bursts ahead of its lines, so that an fsync
 * does not have to commit a new file size each time). A zero byte is never part of a line:
 * JSON escapes it.
 */
export function dataEnd(fd: number, size: number): number {
  if (size === 0) return 0;
  const last = Buffer.allocUnsafe(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] !== 0) return size;
  const start = Math.max(0, size - ROOM_SCAN);
  const buf = Buffer.allocUnsafe(size - start);
  fs.readSync(fd, buf, 0, buf.length, start);
  return start + dataEndOf(buf);
}

/** {@link dataEnd} of bytes already read: the length without the zero bytes at their end. */
export function dataEndOf(buf: Buffer): number {
  let end = buf.length;
  // Word at a time would be faster; the room is at most a megabyte and read only when a
  // journal is opened after a writer stopped without giving its room back.
  while (end > 0 && buf[end - 1] === 0) end -= 1;
  return end;
}
