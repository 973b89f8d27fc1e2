import { claimStatements } from './sql-claims.js';

/**
 * The registry and claim statements of the PostgreSQL store: the only ones that do not name
 * one session (they read the sessions table across sessions, or a workspace's pointer). On a
 * distributed PostgreSQL they are the multi-shard queries (see docs/scale.md); every other
 * statement (sql.ts) filters by session id. Values are parameters; only the quoted schema
 * name is part of the text.
 */
export function registryStatements(s: string) {
  /**
   * Whether row x lags its journal: an append that changed the row (a marked event, see
   * migrations-marks.ts) is past the row's revision, its refresh lost to a crash or still in
   * flight in another worker (refresh.ts). Appends that leave the row alone (token records)
   * never make it stale. One probe of the partial index events_row_changed per row returned,
   * so a query still costs what it returns.
   */
  const stale = `COALESCE((SELECT max(seq) FROM ${s}.events e WHERE e.session_id = x.id AND e.row_changed), 0) > COALESCE(x.summary_revision, 0) AS stale`;
  return {
    /** Every registry row (registry query: no session id to filter by; see docs/scale.md). */
    list: `SELECT id, archived, summary, ${stale} FROM ${s}.sessions x ORDER BY id`,
    /** Registry rows of sessions not archived (registry query). */
    listLive: `SELECT id, archived, summary, ${stale} FROM ${s}.sessions x WHERE NOT archived ORDER BY id`,
    /** Registry rows of workspace $1, archived ones only when $2 (registry query; index sessions_workspace). */
    listWorkspace: `SELECT id, archived, summary, ${stale} FROM ${s}.sessions x WHERE workspace = $1 AND ($2 OR NOT archived) ORDER BY id`,
    /** Registry rows of sessions with status $1, or without a readable row (registry query; index sessions_claim). */
    listStatus: `SELECT id, archived, summary, ${stale} FROM ${s}.sessions x WHERE NOT archived AND (status = $1 OR status IS NULL) ORDER BY id`,
    /**
     * Claim query: sessions a claimer may take at $1 (ISO time, the server's clock):
     * interrupted, or active under a lease that ended by then, or without a readable row (the
     * manager derives it and judges). Uses the partial index sessions_claim.
     */
    claimable: `
      SELECT id, archived, summary, ${stale} FROM ${s}.sessions x
      WHERE NOT archived AND (status = 'interrupted' OR (status = 'active' AND lease_expires_at <= $1) OR status IS NULL)
      ORDER BY id`,

    ...claimStatements(s),

    /**
     * The active session of workspace $1. The one store-wide pointer a version-1 schema kept
     * (settings key 'active') is adopted by the first workspace that asks, unless it has a
     * pointer of its own (registry query: keyed by workspace).
     */
    getActive: `
      WITH legacy AS (DELETE FROM ${s}.settings WHERE key = 'active' RETURNING value),
      adopted AS (
        INSERT INTO ${s}.active (workspace, session_id)
        SELECT $1, l.value FROM legacy l JOIN ${s}.sessions x ON x.id = l.value
        ON CONFLICT (workspace) DO NOTHING RETURNING session_id
      )
      SELECT session_id AS value FROM adopted
      UNION ALL
      SELECT session_id FROM ${s}.active WHERE workspace = $1
      LIMIT 1`,
    /** Points workspace $2 at session $1, only if that session exists (no row otherwise). */
    setActive: `
      INSERT INTO ${s}.active (workspace, session_id) SELECT $2, id FROM ${s}.sessions WHERE id = $1
      ON CONFLICT (workspace) DO UPDATE SET session_id = EXCLUDED.session_id, set_at = now()`,
    /** Clears workspace $1's pointer (registry query: keyed by workspace). */
    clearActive: `DELETE FROM ${s}.active WHERE workspace = $1`,

    /** Registry rows derived by the manager, by a list of ids (registry write: many sessions at once); never replaces a row of a later revision. */
    putSummaries: `
      UPDATE ${s}.sessions x SET summary = t.summary, summary_revision = t.rev,
             refreshed_revision = GREATEST(x.refreshed_revision, t.rev), updated_at = now()
      FROM unnest($1::text[], $2::text[], $3::integer[]) AS t(id, summary, rev)
      WHERE x.id = t.id AND (x.summary_revision IS NULL OR t.rev >= x.summary_revision)`,
    /**
     * The refresh after appends were acknowledged (refresh.ts; registry write: many sessions
     * at once): session $1[i] reached revision $2[i]; its row becomes $3[i] (of revision
     * $4[i]) unless that is null or the row is already as new; every session is announced on
     * channel $5. Only the sessions that come with a row are updated: an append that leaves
     * the row alone costs the sessions table nothing. Committed without waiting for the WAL
     * flush (synchronous_commit off for this transaction only): it repeats what the journal
     * already holds durably, and a row a server crash loses is found stale (its marked event
     * is past it) and derived again, like one a client crash loses.
     */
    refresh: `
      WITH t AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::integer[]) AS t(id, rev, summary, summary_rev)),
      upd AS (
        UPDATE ${s}.sessions x
           SET summary = t.summary, summary_revision = t.summary_rev,
               refreshed_revision = GREATEST(x.refreshed_revision, t.rev), updated_at = now()
          FROM t
         WHERE x.id = t.id AND t.summary IS NOT NULL AND (x.summary_revision IS NULL OR x.summary_revision < t.summary_rev)
        RETURNING 1
      )
      SELECT set_config('synchronous_commit', 'off', true) AS sync, (SELECT count(*) FROM upd)::int AS updated,
             (SELECT count(pg_notify($5, json_build_object('session', t.id, 'revision', t.rev)::text)) FROM t)::int AS notified`,
    /**
     * {@link refresh} of a batch without a row: only the announcements, session $1[i] at
     * revision $2[i] on channel $3 (a notification is sent at commit, so this too commits
     * without waiting for the WAL flush; a lost one is found by the watchers' poll, watch.ts).
     * It names many sessions and no table (docs/scale.md).
     */
    notify: `
      SELECT set_config('synchronous_commit', 'off', true) AS sync,
             (SELECT count(pg_notify($3, json_build_object('session', t.id, 'revision', t.rev)::text))
                FROM unnest($1::text[], $2::integer[]) AS t(id, rev))::int AS notified`,
    /** Tombstones of deleted sessions (registry query). */
    tombstones: `SELECT id, deleted_at, title, status, archived FROM ${s}.tombstones ORDER BY n`,
    /** Sessions with events committed since $1 (less a margin $2), with their revision: a watcher's catch-up (registry query: across sessions). */
    changedSince: `
      SELECT session_id AS id, max(seq) AS revision FROM ${s}.events
      WHERE at >= $1::timestamptz - $2::interval GROUP BY session_id`,
  };
}
