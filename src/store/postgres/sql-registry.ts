/**
 * The registry and claim statements of the PostgreSQL store: the only ones that do not name
 * one session (they read the sessions table across sessions, or a workspace's pointer). On a
 * distributed PostgreSQL they are the multi-shard queries (see docs/scale.md); every other
 * statement (sql.ts) filters by session id. Values are parameters; only the quoted schema
 * name is part of the text.
 */
export function registryStatements(s: string) {
  return {
    /** Every registry row (registry query: no session id to filter by; see docs/scale.md). */
    list: `SELECT id, archived, summary FROM ${s}.sessions ORDER BY id`,
    /** Registry rows of sessions not archived (registry query). */
    listLive: `SELECT id, archived, summary FROM ${s}.sessions WHERE NOT archived ORDER BY id`,
    /** Registry rows of workspace $1, archived ones only when $2 (registry query; index sessions_workspace). */
    listWorkspace: `SELECT id, archived, summary FROM ${s}.sessions WHERE workspace = $1 AND ($2 OR NOT archived) ORDER BY id`,
    /** Registry rows of sessions with status $1, or without a readable row (registry query; index sessions_claim). */
    listStatus: `SELECT id, archived, summary FROM ${s}.sessions WHERE NOT archived AND (status = $1 OR status IS NULL) ORDER BY id`,
    /**
     * Claim query: sessions a claimer may take at $1 (ISO time, the server's clock):
     * interrupted, or active under a lease that ended by then, or without a readable row (the
     * manager derives it and judges). Uses the partial index sessions_claim.
     */
    claimable: `
      SELECT id, archived, summary FROM ${s}.sessions
      WHERE NOT archived AND (status = 'interrupted' OR (status = 'active' AND lease_expires_at <= $1) OR status IS NULL)
      ORDER BY id`,

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
      UPDATE ${s}.sessions x SET summary = t.summary, summary_revision = t.rev, updated_at = now()
      FROM unnest($1::text[], $2::text[], $3::integer[]) AS t(id, summary, rev)
      WHERE x.id = t.id AND (x.summary_revision IS NULL OR t.rev >= x.summary_revision)`,
    /** Tombstones of deleted sessions (registry query). */
    tombstones: `SELECT id, deleted_at, title, status, archived FROM ${s}.tombstones ORDER BY n`,
    /** Sessions with events committed since $1 (less a margin $2), with their revision: a watcher's catch-up (registry query: across sessions). */
    changedSince: `
      SELECT session_id AS id, max(seq) AS revision FROM ${s}.events
      WHERE at >= $1::timestamptz - $2::interval GROUP BY session_id`,
  };
}
