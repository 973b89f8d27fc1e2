import type { Migration } from './migrations-types.js';

/**
 * The schema step that keeps appends which leave the registry row alone off the sessions
 * table altogether (issue 18): an append that changes its session's row marks its events
 * (`events.row_changed`, true; every other event leaves it null), and only such an append
 * refreshes the row after its acknowledgement (refresh.ts). A row is stale when a marked
 * event is past its revision (sql-registry.ts), found through the partial index, which holds
 * only the marked events, so a list costs one index probe per row however many token records
 * a session has.
 *
 * Additive only: a nullable column (no rewrite of the events table) and an index, both `IF
 * NOT EXISTS`, under the migration lock like every step (building the index reads the events
 * table once; writers wait for it). Sessions stored before it kept `refreshed_revision`
 * (migrations-refresh.ts); the one whose last refresh was lost to a crash (journal past both
 * revisions) gets its highest event marked, so the first list after the upgrade derives that
 * row and no other.
 */
export function marksMigration(version: number): Migration {
  return {
    version,
    name: 'events.row_changed: only appends that change the registry row refresh it',
    sql: (s) => `
      ALTER TABLE ${s}.events ADD COLUMN IF NOT EXISTS row_changed boolean;
      CREATE INDEX IF NOT EXISTS events_row_changed ON ${s}.events (session_id, seq) WHERE row_changed;
      UPDATE ${s}.events e SET row_changed = true
        FROM (SELECT x.id, (SELECT max(seq) FROM ${s}.events m WHERE m.session_id = x.id) AS head,
                     GREATEST(x.refreshed_revision, x.summary_revision, 0) AS covered
                FROM ${s}.sessions x) l
       WHERE e.session_id = l.id AND e.seq = l.head AND l.head > l.covered;`,
  };
}
