import type { StoredEvent } from '../../domain/events.js';
import { validateId } from '../../domain/ids.js';
import { checkNothingLost, notFound } from '../errors.js';
import type { LoadResult, RepairReport, Snapshot } from '../types.js';
import type { Query } from './query.js';
import { checkSeqs, decodeEvent, readSnapshot } from './rows.js';
import type { Statements } from './sql.js';

/** One row of the `load` statement (and of the claim queue's pick, which loads the session it picked). */
export type LoadRow = {
  seq: number | null;
  snap_rev: number | null;
  body: string | null;
  row_rev: number | null;
  max_seq: number | null;
};

/**
 * A session's latest usable snapshot and the events after it, read in one statement (the head
 * row and the events agree with each other), or from `preloaded`, the rows of that statement
 * read already (by the claim queue's pick, `claimNext`). An unusable snapshot is reported in
 * `repairs` and the whole journal is read instead. `NOT_FOUND` without the session, `CORRUPT`
 * when a row proves acknowledged events the table no longer holds.
 */
export async function loadSession(
  q: Query,
  sql: Statements,
  id: string,
  preloaded: LoadRow[] | null = null,
): Promise<LoadResult> {
  validateId(id);
  const r = { rows: preloaded ?? (await q<LoadRow>(sql.load, [id])).rows };
  const head = r.rows[0];
  if (!head || head.seq !== null) throw notFound(id);
  checkNothingLost(id, head, 'the events table');
  const repairs: RepairReport[] = [];
  let snapshot: Snapshot | null = null;
  if (head.snap_rev !== null && head.body !== null) {
    snapshot = readSnapshot(id, head.snap_rev, head.body, repairs);
    if (!snapshot) {
      // The stored snapshot is unusable: rebuild from the whole journal instead.
      const events = await readSessionEvents(q, sql, id);
      return { snapshot: null, events, revision: events.at(-1)?.seq ?? 0, repairs };
    }
  }
  const events = r.rows.slice(1).map((row) => decodeEvent(id, row.seq!, row.body!));
  checkSeqs(id, events, (snapshot?.revision ?? 0) + 1);
  return { snapshot, events, revision: events.at(-1)?.seq ?? snapshot?.revision ?? 0, repairs };
}

/**
 * The session's events after `afterSeq`, in order, at most `limit` of them (absent: all), with
 * the same checks as {@link loadSession} (the highest seq proves no acknowledged event lost).
 */
export async function readSessionEvents(
  q: Query,
  sql: Statements,
  id: string,
  afterSeq = 0,
  limit?: number,
): Promise<StoredEvent[]> {
  validateId(id);
  const r = await q<{
    seq: number | null;
    body: string | null;
    row_rev: number | null;
    snap_rev: number | null;
    max_seq: number | null;
  }>(sql.readEvents, [id, Math.max(0, Math.floor(afterSeq)), limit === undefined ? null : pageLimit(limit) + 1]);
  if (!r.rows[0] || r.rows[0].seq !== null) throw notFound(id);
  checkNothingLost(id, r.rows[0], 'the events table');
  const events = r.rows.slice(1).map((row) => decodeEvent(id, row.seq!, row.body!));
  checkSeqs(id, events, Math.max(0, Math.floor(afterSeq)) + 1);
  return events;
}

/** A page's size as a whole number ≥ 1 (a read of no events would read the head row alone). */
function pageLimit(limit: number): number {
  return Math.max(1, Math.floor(limit));
}
