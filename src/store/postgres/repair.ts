import os from 'node:os';
import type { PoolClient } from 'pg';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { journalEmpty, notFound } from '../errors.js';
import type { Proof } from '../errors.js';
import type { RepairReport } from '../types.js';
import { lossStart } from '../loss-event.js';

/*
 * `repair` of a PostgreSQL session that lost acknowledged events: a registry row, snapshot
 * or checkpoint names a revision past the highest event (events deleted by hand, the events
 * table put back from an older backup). Rows are never torn, so this is the only repair a
 * PostgreSQL session needs. Kept apart from store.ts so that the store's statements stay as
 * they are; these run only under `baton doctor --fix` / `baton repair`.
 */

/** The statements of the recovery, for one (quoted) schema. */
function statements(s: string) {
  return {
    /** Locks the session's row (appends wait) and reads what proves a revision. */
    head: `
      SELECT x.summary_revision AS row_rev,
             (SELECT max(seq) FROM ${s}.events WHERE session_id = x.id) AS max_seq,
             sn.revision AS snap_rev, sn.state AS snap_state
        FROM ${s}.sessions x LEFT JOIN ${s}.snapshots sn ON sn.session_id = x.id
       WHERE x.id = $1 FOR UPDATE OF x`,
    checkpoints: `SELECT id, body FROM ${s}.checkpoints WHERE session_id = $1`,
    // A repair changes what the session's row says: its events are marked (migrations-marks.ts),
    // so the row is stale and derived again until it is stored past them.
    insert: `INSERT INTO ${s}.events (session_id, seq, type, body, row_changed) VALUES ($1, $2, $3, $4, true)`,
    rows: `SELECT seq, body FROM ${s}.events WHERE session_id = $1 ORDER BY seq`,
    replace: `UPDATE ${s}.events SET type = $3, body = $4, row_changed = true WHERE session_id = $1 AND seq = $2`,
    dropSnapshot: `DELETE FROM ${s}.snapshots WHERE session_id = $1`,
    notify: `SELECT pg_notify($1, $2)`,
  };
}

interface Head {
  row_rev: number | null;
  max_seq: number | null;
  snap_rev: number | null;
  snap_state: string | null;
}

/**
 * Recovers session `id` inside the caller's transaction `c` when acknowledged events are
 * lost: one `repair.events_lost` event goes in at seq `proof + 1` (naming the lost seqs and
 * carrying the state of the snapshot past the events, when there is one), the snapshot that
 * no longer matches the events is dropped, and numbering goes on above every seq ever
 * acknowledged. Returns no report when nothing is lost; `CORRUPT` when the session has no
 * event left to recover from.
 */
export async function recoverLostRows(
  c: PoolClient,
  schema: string,
  channel: string,
  id: string,
): Promise<RepairReport[]> {
  const sql = statements(schema);
  const head = (await c.query<Head>(sql.head, [id])).rows[0];
  if (!head) throw notFound(id);
  const last = head.max_seq === null ? 0 : Number(head.max_seq);
  const proof = await provenRevision(c, sql.checkpoints, id, head);
  if (!proof || proof.revision <= last) {
    if (last === 0) throw journalEmpty(id, 'the events table');
    return rebuildRows(c, sql, channel, id);
  }
  if (last === 0) {
    throw new BatonError(
      'CORRUPT',
      `Session ${id} has no event left (${proof.by} proves revision ${proof.revision}); there is nothing to recover from.`,
      {
        hint: hint('journal.restore-backup', { session: id }),
        details: { sessionId: id, provenRevision: proof.revision },
      },
    );
  }
  const snapRev = head.snap_rev === null ? null : Number(head.snap_rev);
  const state =
    snapRev !== null && snapRev > last && snapRev <= proof.revision ? parseState(head.snap_state, snapRev) : null;
  const seq = proof.revision + 1;
  const body = {
    type: 'repair.events_lost',
    time: new Date().toISOString(),
    actor: ACTOR(),
    data: {
      from: last + 1,
      to: proof.revision,
      recoveredFrom: state ? { kind: 'snapshot', revision: snapRev } : null,
      state,
      savedTo: null,
    },
  };
  await c.query(sql.insert, [id, seq, body.type, JSON.stringify(body)]);
  // A snapshot past the events describes seqs the table no longer holds: the new event
  // carries its state instead, and the next load folds from the events.
  if (snapRev !== null && snapRev > last) await c.query(sql.dropSnapshot, [id]);
  await c.query(sql.notify, [channel, JSON.stringify({ session: id, revision: seq })]);
  const lost = last + 1 === proof.revision ? `seq ${proof.revision}` : `seqs ${last + 1}–${proof.revision}`;
  return [
    {
      sessionId: id,
      kind: 'events_lost',
      message: `Session ${id}: acknowledged ${lost} were lost (${proof.by} proves revision ${proof.revision}); ${state ? `the state was recovered from the snapshot at revision ${snapRev}` : "no snapshot past the events was left, the state is the events'"}, recorded as a repair.events_lost event at seq ${seq}.`,
      savedTo: null,
    },
  ];
}

/** The highest revision the registry row, the snapshot and the checkpoints prove. */
async function provenRevision(c: PoolClient, checkpoints: string, id: string, head: Head): Promise<Proof | null> {
  let best: Proof | null = null;
  const consider = (revision: number | null, by: string): void => {
    if (revision !== null && Number.isInteger(revision) && (best === null || revision > best.revision))
      best = { revision, by };
  };
  consider(head.snap_rev === null ? null : Number(head.snap_rev), 'its snapshot');
  consider(head.row_rev === null ? null : Number(head.row_rev), 'its registry row');
  for (const row of (await c.query<{ id: string; body: string }>(checkpoints, [id])).rows) {
    try {
      const r = (JSON.parse(row.body) as { revision?: unknown }).revision;
      consider(typeof r === 'number' ? r : null, `checkpoint ${row.id}`);
    } catch {
      // an unreadable checkpoint proves nothing (doctor reports it)
    }
  }
  return best;
}

function parseState(text: string | null, revision: number): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const state = JSON.parse(text) as Record<string, unknown> | null;
    return state && typeof state === 'object' && state['revision'] === revision ? state : null;
  } catch {
    return null;
  }
}

const ACTOR = (): Record<string, unknown> => ({ agent: 'baton', pid: process.pid, host: os.hostname() });

/**
 * The rebuild of a session whose rows are damaged, as the file store rebuilds a journal:
 * every readable event keeps its seq, a row whose body is not an event becomes a
 * `repair.unreadable_line` event carrying its raw text, a missing seq gets an empty one (a
 * `repair.events_lost` event bridges the seqs it names), and a `repair.journal` event at the
 * end lists them. The snapshot is dropped (it may hold what the damaged rows did). No report
 * when every row is sound.
 */
async function rebuildRows(
  c: PoolClient,
  sql: ReturnType<typeof statements>,
  channel: string,
  id: string,
): Promise<RepairReport[]> {
  const rows = (await c.query<{ seq: number; body: string }>(sql.rows, [id])).rows;
  const time = new Date().toISOString();
  const unreadable: number[] = [];
  const event = (raw: string, seq: number) =>
    JSON.stringify({
      type: 'repair.unreadable_line',
      time,
      actor: ACTOR(),
      data: { raw: raw.slice(0, 1_000_000), line: seq },
    });
  let expected = 1;
  for (const row of rows) {
    const seq = Number(row.seq);
    const parsed = parseEvent(row.body);
    // A gap a repair.events_lost event stands for is a loss already recorded, not damage.
    if (!(parsed && lossStart({ ...parsed, seq }) === expected)) {
      for (; expected < seq; expected++) {
        await c.query(sql.insert, [id, expected, 'repair.unreadable_line', event('', expected)]);
        unreadable.push(expected);
      }
    }
    if (!parsed) {
      await c.query(sql.replace, [id, seq, 'repair.unreadable_line', event(row.body, seq)]);
      unreadable.push(seq);
    }
    expected = seq + 1;
  }
  if (!unreadable.length) return [];
  const body = { type: 'repair.journal', time, actor: ACTOR(), data: { savedTo: null, unreadableLines: unreadable } };
  await c.query(sql.insert, [id, expected, body.type, JSON.stringify(body)]);
  await c.query(sql.dropSnapshot, [id]);
  await c.query(sql.notify, [channel, JSON.stringify({ session: id, revision: expected })]);
  return [
    {
      sessionId: id,
      kind: 'journal_rewritten',
      message: `Session ${id}: ${unreadable.length} damaged or missing event row(s) (seq ${unreadable.join(', ')}) kept as repair events; recorded as a repair.journal event at seq ${expected}.`,
      savedTo: null,
    },
  ];
}

/** A row body that is an event (an object with a type), or null. */
function parseEvent(body: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string'
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
