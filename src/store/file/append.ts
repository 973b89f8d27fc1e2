import { hint } from '../../domain/hints.js';
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { Actor, NewEvent } from '../../domain/events.js';
import type { RepairReport } from '../types.js';
import { FILE_MODE } from '../atomic-write.js';
import { withChecksum } from './codec.js';
import { eventJson } from '../event-json.js';
import { dataEndOf, readTail } from './journal.js';
import { journalEmpty } from '../errors.js';
import type { Handle } from './handle.js';
import type { StoreFs } from './io.js';
import { followJournal } from './journal-follow.js';

/*
 * The append path of the file store: find the journal's durable end (cutting a torn last
 * line), then write a batch of events in one write and fdatasync it. Both run under the
 * session lock (session-lock.ts).
 */

/** Version of each journal line (`v`). */
export const EVENT_FORMAT_VERSION = 1;

/** Who the store's own events (repairs) are by, and its clock. */
export interface Writer {
  now: () => Date;
  actor: Actor;
}

/** Journal lines for `events` numbered from `first`; lines of one append name their batch. */
export function journalLines(events: NewEvent[], first: number, batch: boolean): string {
  const tag = batch && events.length > 1 ? `,"batch":[${first},${first + events.length - 1}]` : '';
  let seq = first - 1;
  let out = '';
  for (const e of events) {
    seq += 1;
    // The bytes of JSON.stringify({ v, seq, batch?, ...event }), without building that object
    // (the line is on every append's path): the event's own fields follow in their order.
    const rest = eventJson(e);
    out += `${withChecksum(`{"v":${EVENT_FORMAT_VERSION},"seq":${seq}${tag}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`)}\n`;
  }
  return out;
}

/**
 * Brings `h.lastSeq`/`h.end` up to date and cuts a torn tail, after `guard` (given the
 * journal's durable end) has had the chance to refuse: a cut that would lose acknowledged
 * events is not a torn tail. Caller holds the lock.
 */
export function syncTail(
  w: Writer,
  id: string,
  h: Handle,
  repairs: RepairReport[],
  guard?: (lastSeq: number) => void,
): void {
  // lockSession forgets lastSeq when the lock is retaken and the journal moved: a known value is current.
  if (h.lastSeq >= 0) return;
  const tail = readTail(h.fd);
  const size = tail.size;
  if (tail.corrupt) {
    throw new BatonError('CORRUPT', `The end of session ${id}'s journal is damaged (more than a torn last line).`, {
      hint: hint('repair.keeps-lines', { session: id }),
      details: { sessionId: id, journal: h.journal },
    });
  }
  if (tail.lastSeq === 0) throw journalEmpty(id, h.journal);
  if (tail.torn) guard?.(tail.lastSeq);
  h.lastSeq = tail.lastSeq;
  h.end = tail.goodEnd;
  // Room a writer set aside and did not give back (it was killed): written over from h.end.
  h.room = size;
  if (tail.torn) {
    const read = Buffer.alloc(size - tail.goodEnd);
    fs.readSync(h.fd, read, 0, read.length, tail.goodEnd);
    const cut = read.subarray(0, dataEndOf(read));
    const savedTo = `${h.journal}.torn-${w.now().toISOString().replace(/[:.]/g, '-')}`;
    fs.writeFileSync(savedTo, cut, { mode: FILE_MODE });
    fs.ftruncateSync(h.fd, tail.goodEnd);
    fs.fsyncSync(h.fd);
    h.room = tail.goodEnd;
    writeEvents(h, [
      {
        type: 'repair.torn_tail',
        time: w.now().toISOString(),
        actor: w.actor,
        data: { truncatedBytes: cut.length, savedTo: path.basename(savedTo) },
      },
    ]);
    repairs.push({
      sessionId: id,
      kind: 'torn_tail',
      message: `Session ${id}: cut a torn last journal line (${cut.length} bytes, an append that was never acknowledged); kept in ${path.basename(savedTo)}.`,
      savedTo,
    });
  }
}

/** Room set aside at the end of a journal written in a burst: at least, and at most. */
const ROOM_MIN = 64 * 1024;
/** Appends in one lock hold after which it is a burst: a few appends in a row are not. */
const BURST = 8;
const ROOM_MAX = 512 * 1024;

/**
 * Writes events after `h.lastSeq` at the journal's end (`h.end`) and fdatasyncs, then checks
 * that the file written is still the one at the journal's path (journal-follow.ts: a journal
 * replaced by a copy of itself gets the lines too, or the append is refused). Caller holds
 * the lock and has synced the tail. A write or fsync that fails is rolled back to the
 * journal's known end, so an append that was reported as failed is never read back later
 * (see rollBack). `io` is Node's `fs` unless a test injects failures (io.ts).
 *
 * Room ahead: once one lock hold has made BURST appends, the next write also lays down
 * zero bytes after the lines, and the appends that follow overwrite them. An fdatasync of an
 * append that grows the file must commit the new size to the file system's journal as well as
 * the data; one that overwrites bytes already on disk flushes only the data, a third less
 * time on this kind of disk. The room is given back when the lock is released (giveBackRoom);
 * a writer killed before that leaves it, and readers and the next writer take zero bytes at
 * the end as room (journal.ts dataEnd), never as lines: JSON escapes a zero byte.
 */
export function writeEvents(h: Handle, events: NewEvent[], io: StoreFs = fs): number {
  // Lines of a multi-event append name their batch, so that a crash that leaves only part of
  // it on disk is cut as a whole: an append is all or nothing.
  const out = journalLines(events, h.lastSeq + 1, true);
  const length = Buffer.byteLength(out);
  const at = h.end;
  try {
    let written: number;
    if (at + length <= h.room || h.holdAppends < BURST) {
      written = io.writeSync(h.fd, out, at);
    } else {
      // A burst outgrew its room: lines and new room in one write (room for a few hundred more).
      const room = Math.min(ROOM_MAX, Math.max(ROOM_MIN, 2 ** Math.ceil(Math.log2(length * 64))));
      const buf = Buffer.alloc(length + room);
      buf.write(out);
      written = io.writeSync(h.fd, buf, 0, buf.length, at) - room;
      h.room = at + buf.length;
    }
    // One write per batch: a crash can tear only its end, which the next open cuts.
    if (written !== length)
      throw Object.assign(new Error('short write to the journal (is the disk full?)'), { code: 'ENOSPC' });
    io.fdatasyncSync(h.fd);
  } catch (e) {
    rollBack(h);
    throw e;
  }
  h.holdAppends += 1;
  h.lastSeq += events.length;
  h.end += length;
  if (h.room < h.end) h.room = h.end;
  const revision = h.lastSeq;
  // Acknowledged only if the file written is still the journal: a copy moved over it meanwhile
  // gets these lines too, or the append is refused (journal-follow.ts).
  followJournal(h, path.basename(h.dir), 'write');
  return revision;
}

/**
 * Gives back the room a burst set aside (cuts the zero bytes after the last line), so that a
 * journal at rest is exactly its lines. Not fsynced: room left by a crash is harmless. Caller
 * holds the lock, and is about to release it.
 */
export function giveBackRoom(h: Handle): void {
  h.holdAppends = 0;
  if (h.end < 0 || h.room <= h.end) return;
  try {
    fs.ftruncateSync(h.fd, h.end);
    h.room = h.end;
  } catch {
    // left for the next writer, which writes over it (see writeEvents)
    h.room = -1;
  }
}

/**
 * After a failed write or fsync, part or all of the batch may be in the file (or in the page
 * cache only). The caller is told the append failed, so it must never be read back: cut the
 * file to the end of the last acknowledged append. If even that fails, the tail is read again
 * (and checked) on the next append.
 */
function rollBack(h: Handle): void {
  try {
    if (h.end >= 0) {
      fs.ftruncateSync(h.fd, h.end);
      fs.fsyncSync(h.fd);
      h.room = h.end;
    }
  } catch {
    // the disk refuses even this: the next open finds the torn or extra bytes and checks them
  }
  h.lastSeq = -1;
}
