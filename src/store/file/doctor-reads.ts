import { fold } from '../../domain/apply.js';
import { differingKeys } from '../../domain/compare.js';
import type { StoredEvent } from '../../domain/events.js';
import type { SessionSummary } from '../../domain/summary.js';
import { decodeRecord } from './codec.js';
import { readIfExists } from './fsutil.js';
import type { Scan } from './journal.js';
import type { SnapshotRecord } from './snapshot.js';

/*
 * What `baton doctor` reads the way the store itself would (a snapshot against its journal,
 * the registry log, the tombstones), so that it judges the files as the next open will.
 */

/** Why a snapshot does not match its journal (offset or state), or null when it does. */
export function snapshotMismatch(id: string, r: SnapshotRecord, scan: Scan): string | null {
  const i = scan.events.findIndex((e) => e.seq === r.revision);
  if (i === -1) return `names a revision the journal does not have (the journal ends at ${scan.lastSeq})`;
  if (scan.ends[i] !== r.offset)
    return `points at byte ${r.offset}, but revision ${r.revision} ends at byte ${scan.ends[i]} of the journal`;
  const replay = fold(null, scan.events.slice(0, i + 1) as StoredEvent[], id);
  if (!replay) return 'belongs to a journal without a session.created event';
  const keys = differingKeys({ ...r.state, id }, replay as unknown as Record<string, unknown>);
  return keys.length ? `differs from a full replay of the journal in: ${keys.join(', ')}` : null;
}

/** A registry row that stands for a deleted session on purpose. */
export function isTombstone(row: SessionSummary): boolean {
  const r = row as unknown as Record<string, unknown>;
  return r['deleted'] === true || r['tombstone'] === true || r['status'] === 'deleted';
}

/** Ids of deleted sessions, from the tombstones file (checksummed lines with an `id`). */
export function tombstonedIds(file: string): Set<string> {
  const out = new Set<string>();
  let raw: Buffer | null;
  try {
    raw = readIfExists(file);
  } catch {
    return out;
  }
  for (const line of raw?.toString('utf8').split('\n') ?? []) {
    const d = decodeRecord(line);
    if (d.ok && typeof d.value['id'] === 'string') out.add(d.value['id']);
  }
  return out;
}

/** Folds index.log rows after `offset` (all of it when it is shorter) into `rows`, as `list` does. */
export function foldLog(file: string, offset: number, rows: Map<string, SessionSummary>): void {
  const raw = readIfExists(file);
  if (raw === null) return;
  const start = raw.length < offset ? 0 : offset;
  const text = raw.toString('utf8', start);
  const lines = text.split('\n');
  lines.pop(); // the part after the last newline is incomplete (or empty)
  for (const line of lines) {
    try {
      const row = JSON.parse(line) as SessionSummary;
      if (!row || typeof row.id !== 'string' || !row.id) continue;
      // A deleted id's row is gone (registry-text.ts deletedLine), whatever its revision.
      if ((row as { deleted?: unknown }).deleted === true) {
        rows.delete(row.id);
        continue;
      }
      const prev = rows.get(row.id);
      if (!prev || row.revision >= prev.revision) rows.set(row.id, row);
    } catch {
      // a torn row: list ignores it too
    }
  }
}
