/**
 * Every statement of the PostgreSQL store, for one (quoted) schema. Values are always
 * parameters ($1…); only the validated, quoted schema name is part of the text. A change is
 * one statement (an implicit transaction, one round trip) wherever it can be, so the rows
 * that depend on each other commit or fail together.
 *
 * A session's revision is the highest seq of its events: the primary key (session_id, seq)
 * is what makes an append conditional, and there is no counter row that every writer of a
 * session would have to update.
 */
export function statements(s: string) {
  /** The revision of session $1 (null when it has no events). */
  const revisionOf = (id: string) => `(SELECT max(seq) FROM ${s}.events WHERE session_id = ${id})`;
  return {
    /**
     * Creates a session with its first events and registry row, and announces it. No row
     * back: the id is taken. $1 id, $2 revision, $3 row, $4 types[], $5 bodies[], $6 channel, $7 payload.
     */
    create: `
      WITH x AS (
        INSERT INTO ${s}.sessions (id, summary, summary_revision) VALUES ($1, $3, $2)
        ON CONFLICT (id) DO NOTHING RETURNING id
      ), ins AS (
        INSERT INTO ${s}.events (session_id, seq, type, body)
        SELECT x.id, t.o, t.ty, t.b FROM x, unnest($4::text[], $5::text[]) WITH ORDINALITY AS t(ty, b, o)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM ins)::int AS n, pg_notify($6, $7) FROM x`,

    /**
     * The conditional append. The events go in at seqs $2+1 … only if the event at $2 exists:
     * a writer that read an older revision collides with the primary key at $2+1 (a unique
     * violation: CONFLICT), one that names a revision not reached yet inserts nothing. Of two
     * writers racing for the same seq the second waits for the first and then collides. With
     * a registry row ($5, at revision $6) the session's row changes in the same statement;
     * the commit is announced on the channel.
     * $1 id, $2 expected revision, $3 types[], $4 bodies[], $5 row or null, $6 new revision, $7 channel, $8 payload.
     */
    append: `
      WITH ins AS (
        INSERT INTO ${s}.events (session_id, seq, type, body)
        SELECT $1, $2 + t.o, t.ty, t.b FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(ty, b, o)
        WHERE EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = $1 AND seq = $2)
        RETURNING seq
      ), reg AS (
        UPDATE ${s}.sessions SET summary = $5, summary_revision = $6, updated_at = now()
        WHERE id = $1 AND $5::text IS NOT NULL AND EXISTS (SELECT 1 FROM ins)
      )
      SELECT c.n, pg_notify($7, $8) FROM (SELECT count(*)::int AS n FROM ins) c WHERE c.n > 0`,

    /** The session's revision; no row when there is no such session. */
    revision: `SELECT ${revisionOf('x.id')} AS revision FROM ${s}.sessions x WHERE x.id = $1`,
    exists: `SELECT 1 FROM ${s}.sessions WHERE id = $1`,
    archived: `SELECT archived FROM ${s}.sessions WHERE id = $1`,

    /**
     * A session as one consistent read: a head row (seq null: the snapshot, the registry row's
     * revision, the highest seq), then the events after the snapshot. No head row: no such session.
     */
    load: `
      SELECT NULL::integer AS seq, sn.revision AS snap_rev, sn.state AS body, x.summary_revision AS row_rev,
             (SELECT max(seq) FROM ${s}.events WHERE session_id = $1) AS max_seq
        FROM ${s}.sessions x LEFT JOIN ${s}.snapshots sn ON sn.session_id = x.id WHERE x.id = $1
      UNION ALL
      SELECT e.seq, NULL, e.body, NULL, NULL FROM ${s}.events e
        WHERE e.session_id = $1 AND e.seq > COALESCE((SELECT revision FROM ${s}.snapshots WHERE session_id = $1), 0)
      ORDER BY seq NULLS FIRST`,

    /** A head row (seq null; revisions of registry row and snapshot, highest seq), then events after $2. */
    readEvents: `
      SELECT NULL::integer AS seq, NULL AS body, x.summary_revision AS row_rev, sn.revision AS snap_rev,
             (SELECT max(seq) FROM ${s}.events WHERE session_id = $1) AS max_seq
        FROM ${s}.sessions x LEFT JOIN ${s}.snapshots sn ON sn.session_id = x.id WHERE x.id = $1
      UNION ALL
      SELECT seq, body, NULL, NULL, NULL FROM ${s}.events WHERE session_id = $1 AND seq > $2
      ORDER BY seq NULLS FIRST`,

    /** Replaces the session's snapshot, unless its revision is past the journal end (no row then). */
    writeSnapshot: `
      INSERT INTO ${s}.snapshots (session_id, revision, state)
      SELECT x.id, $2, $3 FROM ${s}.sessions x WHERE x.id = $1 AND ${revisionOf('x.id')} >= $2
      ON CONFLICT (session_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state, written_at = now()`,

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

    /** Registry rows derived by the manager; never replaces a row of a later revision. */
    putSummaries: `
      UPDATE ${s}.sessions x SET summary = t.summary, summary_revision = t.rev, updated_at = now()
      FROM unnest($1::text[], $2::text[], $3::integer[]) AS t(id, summary, rev)
      WHERE x.id = t.id AND (x.summary_revision IS NULL OR t.rev >= x.summary_revision)`,

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

    archive: `UPDATE ${s}.sessions SET archived = true, updated_at = now() WHERE id = $1`,

    /**
     * First step of a deletion (in a transaction): locks the session's row, which holds off
     * every append until the deletion commits (an append's foreign key check locks that row
     * too, so an append in flight is waited for). No row: no such session. The revision is read
     * by the next statement: this one's snapshot predates an append it waited for.
     */
    lockForDelete: `SELECT archived FROM ${s}.sessions WHERE id = $1 FOR UPDATE`,
    /** Deletes the session (events, snapshot, checkpoints go with it) and records its tombstone. */
    delete: `
      WITH d AS (DELETE FROM ${s}.sessions WHERE id = $1 RETURNING id, archived)
      INSERT INTO ${s}.tombstones (id, deleted_at, title, status, archived)
      SELECT id, $2, $3, $4, archived FROM d RETURNING archived`,
    tombstones: `SELECT id, deleted_at, title, status, archived FROM ${s}.tombstones ORDER BY n`,

    saveCheckpoint: `INSERT INTO ${s}.checkpoints (session_id, id, body, sha256) VALUES ($1, $2, $3, $4)`,
    /** A head row (id null) when the session exists, then its checkpoints ($2 null: all). */
    checkpoints: `
      SELECT NULL AS id, NULL AS body, NULL AS sha256, NULL::timestamptz AS created_at FROM ${s}.sessions WHERE id = $1
      UNION ALL
      SELECT id, body, sha256, created_at FROM ${s}.checkpoints WHERE session_id = $1 AND ($2::text IS NULL OR id = $2)
      ORDER BY id NULLS FIRST`,

    /** Sessions with events committed since $1 (less a margin $2), with their revision: a watcher's catch-up. */
    changedSince: `
      SELECT session_id AS id, max(seq) AS revision FROM ${s}.events
      WHERE at >= $1::timestamptz - $2::interval GROUP BY session_id`,
  };
}

/** The statements of one schema. */
export type Statements = ReturnType<typeof statements>;
