import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import type { RepairReport, Snapshot } from '../types.js';
import { writeTemp } from '../atomic-write.js';
import { decodeRecord, encodeRecord } from './codec.js';
import { moveAside, readIfExists, removeStaleTemps } from './fsutil.js';
import type { Handle } from './handle.js';
import type { StoreFs } from './io.js';
import { scanJournal } from './journal.js';
import type { Scan } from './journal.js';

/** Version of the on-disk layout this code writes. */
export const FILE_FORMAT_VERSION = 1;

/** snapshot.json as stored: the state at `revision` and the journal offset of the next line. */
export interface SnapshotRecord {
  format: 'baton.snapshot';
  v: number;
  sessionId: string;
  revision: number;
  offset: number;
  state: Snapshot['state'];
}

/** The newest valid snapshot (snapshot.json, else .bak) that agrees with the journal. */
export function readSnapshot(now: () => Date, id: string, h: Handle, repairs: RepairReport[]): SnapshotRecord | null {
  for (const file of [h.snapshotFile, `${h.snapshotFile}.bak`]) {
    const raw = readIfExists(file);
    if (raw === null) continue;
    const d = decodeRecord(raw.toString('utf8').trimEnd());
    const rec = d.ok ? (d.value as unknown as SnapshotRecord) : null;
    if (rec?.format !== 'baton.snapshot' || rec.sessionId !== id || typeof rec.offset !== 'number') {
      let savedTo: string | null = null;
      // A read-only store keeps the file where it is: the state is read from the journal all the same.
      if (h.readOnly === null) {
        try {
          savedTo = moveAside(file, now());
        } catch {
          // another process moved it first
        }
      }
      const what = `Session ${id}: ${path.basename(file)} is unreadable (${d.ok ? 'not a snapshot of this session' : d.reason})`;
      repairs.push({
        sessionId: id,
        kind: 'snapshot_corrupt',
        message:
          h.readOnly === null
            ? `${what}; moved aside, state rebuilt from the journal.`
            : `${what}; state read from the journal, the file left as it is (the store cannot be written: ${h.readOnly}).`,
        savedTo,
        ...(h.readOnly === null ? {} : { repaired: false }),
      });
      continue;
    }
    if (rec.v > FILE_FORMAT_VERSION) {
      throw new BatonError(
        'UNSUPPORTED_VERSION',
        `Session ${id}'s snapshot has format ${rec.v}; this baton reads up to ${FILE_FORMAT_VERSION}.`,
        {
          hint: 'Upgrade baton.',
        },
      );
    }
    if (snapshotFits(h, rec)) return rec;
    repairs.push({
      sessionId: id,
      kind: 'snapshot_stale',
      message: `Session ${id}: ${path.basename(file)} does not match the journal; ignored.`,
      savedTo: null,
    });
  }
  return null;
}

/**
 * The revision snapshot.json says it holds, read from the head of the file without checking
 * its checksum; null when there is no file or its head does not read as a snapshot. Reads a
 * few hundred bytes however large the state is (writeSnapshot asks before every snapshot).
 */
export function storedRevision(file: string): number | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(512);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const m = /^\{"format":"baton\.snapshot","v":\d+,"sessionId":"[^"]*","revision":(\d+),/.exec(
      head.toString('utf8', 0, n),
    );
    return m ? Number(m[1]) : null;
  } finally {
    fs.closeSync(fd);
  }
}

/** A snapshot fits when the journal line at its offset is the event right after it. */
function snapshotFits(h: Handle, rec: SnapshotRecord): boolean {
  const size = fs.fstatSync(h.fd).size;
  if (rec.offset > size || rec.offset < 0) return false;
  if (rec.offset === 0) return rec.revision === 0;
  const prev = Buffer.alloc(1);
  fs.readSync(h.fd, prev, 0, 1, rec.offset - 1);
  if (prev[0] !== 10) return false;
  if (rec.offset === size) return true;
  const head = Buffer.alloc(Math.min(64, size - rec.offset));
  fs.readSync(h.fd, head, 0, head.length, rec.offset);
  const m = /^\{"v":\d+,"seq":(\d+),/.exec(head.toString('utf8'));
  if (m !== null) return Number(m[1]) === rec.revision + 1;
  // A write torn before its seq was complete, right after the snapshot: the tail repair
  // cuts it away, so the snapshot still describes everything that was durable.
  return isUnterminatedTail(h, rec.offset, size);
}

/** True when the bytes from `offset` to the end hold no newline: one incomplete line. */
function isUnterminatedTail(h: Handle, offset: number, size: number): boolean {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let at = offset; at < size; at += chunk.length) {
    const n = fs.readSync(h.fd, chunk, 0, Math.min(chunk.length, size - at), at);
    if (chunk.subarray(0, n).includes(10)) return false;
  }
  return true;
}

/**
 * Puts a new snapshot in place, keeping the previous one as `.bak`: the old `.bak` is removed,
 * the current snapshot renamed to `.bak`, the new one (a temp file already written) renamed to
 * the snapshot's name. Never a rename over an existing file: ext4 writes the data of a file
 * renamed over another out at once (its auto_da_alloc safeguard), which made every snapshot
 * allocate blocks and every later removal free them, a millisecond each on a disk with online
 * discard; a snapshot replaced before it was written back now costs no block at all. While the
 * snapshot's name is missing a reader takes the `.bak` (readSnapshot); a crash in between
 * leaves `.bak`, which the next snapshot replaces. Nothing here is fsynced: a snapshot only
 * speeds up loading (see FileStore.writeSnapshot).
 */
export function rotateSnapshot(file: string, temp: string, io: Pick<typeof fs, 'renameSync'> = fs): void {
  fs.rmSync(`${file}.bak`, { force: true });
  try {
    io.renameSync(file, `${file}.bak`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      fs.rmSync(temp, { force: true });
      throw e;
    }
  }
  try {
    io.renameSync(temp, file);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw e;
  }
}

/**
 * Writes `snapshot` of session `id` as its snapshot.json (the previous one kept as `.bak`),
 * the caller holding the session lock with the journal's end known (`h.lastSeq`, `h.end`).
 */
export function storeSnapshot(id: string, h: Handle, snapshot: Snapshot, io: StoreFs): void {
  // A snapshot arriving after a newer one (they are written after their changes were
  // answered) is dropped: the newer one loads faster, and one past the journal proves lost
  // events (journal-repair.ts), so it must not be written over.
  const stored = storedRevision(h.snapshotFile);
  if (stored !== null && stored > snapshot.revision) return;
  const offset = snapshot.revision === h.lastSeq ? h.end : offsetAfter(h, snapshot.revision);
  const rec: SnapshotRecord = {
    format: 'baton.snapshot',
    v: FILE_FORMAT_VERSION,
    sessionId: id,
    revision: snapshot.revision,
    offset,
    state: snapshot.state,
  };
  removeStaleTemps(h.dir, path.basename(h.snapshotFile));
  // Not fsynced: a snapshot only speeds up loading and covers events already durable in the
  // journal; one a machine crash damaged fails its checksum and the journal is read instead.
  try {
    rotateSnapshot(h.snapshotFile, writeTemp(h.snapshotFile, `${encodeRecord(rec)}\n`, { sync: false, io }), io);
  } catch (e) {
    throw new BatonError(
      'STORE_UNAVAILABLE',
      `The snapshot of session ${id} could not be written: ${(e as Error).message}.`,
      {
        hint: 'Check free disk space; the session is intact (a snapshot only speeds up loading).',
        details: { sessionId: id, retryable: true, errno: (e as NodeJS.ErrnoException).code ?? null },
        cause: e,
      },
    );
  }
}

function offsetAfter(h: Handle, revision: number): number {
  const scan = scanJournal(fs.readFileSync(h.journal), 0, 1);
  const i = scan.events.findIndex((e) => e.seq === revision);
  if (i === -1) throw new BatonError('BAD_INPUT', `Revision ${revision} is not in the journal.`);
  return scan.ends[i]!;
}

/** The journal of `h` read from where snapshot `snap` ends (from the start without one); offsets are the file's. */
export function scanFromSnapshot(h: Handle, snap: SnapshotRecord | null): Scan {
  const size = fs.fstatSync(h.fd).size;
  const from = snap ? snap.offset : 0;
  const buf = Buffer.allocUnsafe(size - from);
  fs.readSync(h.fd, buf, 0, buf.length, from);
  const scan = scanJournal(buf, 0, snap ? snap.revision + 1 : 1);
  // Offsets in `scan` are relative to `from`.
  scan.goodEnd += from;
  if (scan.tornAt !== null) scan.tornAt += from;
  for (const b of scan.bad) b.offset += from;
  return scan;
}
