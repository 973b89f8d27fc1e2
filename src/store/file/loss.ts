import fs from 'node:fs';
import path from 'node:path';
import { isBatonError } from '../../domain/errors.js';
import type { SessionState } from '../../domain/state.js';
import { decodeRecord } from './codec.js';
import { readIfExists, sleepSync } from './fsutil.js';
import { dataEnd, dataEndOf } from './journal.js';
import type { Layout } from './paths.js';
import type { Proof } from '../errors.js';

/*
 * Acknowledged events lost from a journal. A snapshot, a checkpoint and a registry row are
 * each written only after the events they describe were acknowledged, so one that names a
 * revision past the journal's end proves that the journal lost acknowledged events (it was
 * cut in the middle, or put back from an older copy). Such a journal is never "repaired" as
 * a torn tail: numbering would restart below seqs that were already handed out.
 */

/** A snapshot file of the session, checksum and owner checked (its offset is not). */
export interface SnapshotFound {
  file: string;
  revision: number;
  state: SessionState;
}

/** Every readable snapshot file of session `id` in `sessionDir`, newest revision first. */
export function readableSnapshots(id: string, snapshotFile: string): SnapshotFound[] {
  const out: SnapshotFound[] = [];
  for (const file of [snapshotFile, `${snapshotFile}.bak`]) {
    const raw = readIfExists(file);
    if (raw === null) continue;
    const d = decodeRecord(raw.toString('utf8').trimEnd());
    if (!d.ok) continue;
    const v = d.value;
    if (
      v['format'] !== 'baton.snapshot' ||
      v['sessionId'] !== id ||
      typeof v['revision'] !== 'number' ||
      typeof v['state'] !== 'object' ||
      v['state'] === null
    )
      continue;
    out.push({ file, revision: v['revision'], state: v['state'] as SessionState });
  }
  return out.sort((a, b) => b.revision - a.revision);
}

/** What to look at besides the snapshots. */
export interface ProofSources {
  layout: Layout;
  dir: string;
  snapshotFile: string;
  /** Checkpoint ids the journal knows (their revisions are within it): not read again. */
  knownCheckpoints?: ReadonlySet<string>;
  /** The registry's revision of the session, read only when asked for. */
  registryRevision?: () => number | null;
}

/** The highest revision that the snapshots, checkpoints and registry row of `id` prove. */
export function provenRevision(id: string, src: ProofSources): Proof | null {
  let best: Proof | null = null;
  const consider = (revision: number, by: string): void => {
    if (best === null || revision > best.revision) best = { revision, by };
  };
  for (const s of readableSnapshots(id, src.snapshotFile)) consider(s.revision, path.basename(s.file));
  const cpDir = src.layout.checkpointsDir(src.dir);
  let names: string[] = [];
  try {
    names = fs.readdirSync(cpDir);
  } catch {
    // no checkpoints folder: nothing to prove
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const cpId = name.slice(0, -'.json'.length);
    if (src.knownCheckpoints?.has(cpId)) continue;
    const raw = readIfExists(path.join(cpDir, name));
    if (raw === null) continue;
    const d = decodeRecord(raw.toString('utf8').trimEnd());
    if (d.ok && d.value['sessionId'] === id && typeof d.value['revision'] === 'number')
      consider(d.value['revision'], `checkpoint ${cpId}`);
  }
  const reg = src.registryRevision?.() ?? null;
  if (reg !== null) consider(reg, 'the registry (index.json)');
  return best;
}

/**
 * Reads the journal at `journal` without a lock and hands the bytes to `read`, which throws
 * `CORRUPT` with `provenRevision` in its details when something proves a revision past them.
 * A writer may append and then write that proof (registry row, snapshot, checkpoint) between
 * the read and the look at the proof; that is loss only if the journal has not grown since,
 * so a grown journal is read again.
 */
export function readRacingWriters<T>(journal: string, read: (buf: Buffer) => T): T {
  for (let attempt = 0; ; attempt++) {
    const buf = fs.readFileSync(journal);
    try {
      return read(buf);
    } catch (e) {
      if (!isBatonError(e, 'CORRUPT') || attempt >= READ_AGAIN) throw e;
      // Lines caught while being written (journal.ts caughtInFlight): read again.
      if (e.details.inFlight === true) {
        pauseBeforeReadAgain(attempt + 1);
        continue;
      }
      if (e.details.provenRevision === undefined || !grewPast(journal, dataEndOf(buf))) throw e;
    }
  }
}

/** Reads made again, at most, by a reader that caught a writer at work before it reports what it read. */
export const READ_AGAIN = 20;

/** Before read again number `n` (from 1): at once for the first few, then 1 ms apart (a write takes microseconds). */
export function pauseBeforeReadAgain(n: number): void {
  if (n > 3) sleepSync(1);
}

/** The journal holds bytes past `end` (lines written over the room set aside, or appended). */
function grewPast(file: string, end: number): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    return dataEnd(fd, fs.fstatSync(fd).size) > end;
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}
