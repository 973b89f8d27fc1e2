import { registryStatements } from './sql-registry.js';

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
    ...registryStatements(s),
    ...heldAppendStatements(s),
    /**
     * Creates a session with its first events and registry row, and announces it. No row
     * back: the id is taken. $1 id, $2 revision, $3 row, $4 types[], $5 bodies[], $6 channel, $7 payload.
     */
    create: `
      WITH x AS (
        INSERT INTO ${s}.sessions (id, summary, summary_revision, refreshed_revision) VALUES ($1, $3, $2, $2)
        ON CONFLICT (id) DO NOTHING RETURNING id
      ), ins AS (
        INSERT INTO ${s}.events (session_id, seq, type, body)
        SELECT x.id, t.o, t.ty, t.b FROM x, unnest($4::text[], $5::text[]) WITH ORDINALITY AS t(ty, b, o)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM ins)::int AS n, pg_notify($6, $7) FROM x`,

    /**
     * The conditional append of one event, the whole acknowledgement path (issue 18): the
     * event goes in at seq $2+1 only if the event at $2 exists. A writer that read an older
     * revision collides with the primary key at $2+1 (a unique violation: CONFLICT), one that
     * names a revision not reached yet inserts nothing (no row: the caller reads why). Of two
     * writers racing for the same seq the second waits for the first and then collides. The
     * foreign key holds off a deletion in flight (see lockForDelete). The registry row and the
     * notification follow after the commit (refresh.ts). An append that changes the
     * session's registry row marks its event ($5 true; null otherwise, see migrations-marks.ts):
     * until the row is refreshed past it, the row is stale.
     * $1 id, $2 expected revision, $3 type, $4 body, $5 true or null.
     */
    append: `
      INSERT INTO ${s}.events (session_id, seq, type, body, row_changed)
      SELECT $1, $2 + 1, $3, $4, $5::boolean
      WHERE EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = $1 AND seq = $2)`,

    /** {@link append} of several events, at seqs $2+1 …, in one statement. $1 id, $2 expected revision, $3 types[], $4 bodies[], $5 true or null (marks them all). */
    appendMany: `
      INSERT INTO ${s}.events (session_id, seq, type, body, row_changed)
      SELECT $1, $2 + t.o, t.ty, t.b, $5::boolean FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(ty, b, o)
      WHERE EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = $1 AND seq = $2)`,

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

    /**
     * A head row (seq null; revisions of registry row and snapshot, highest seq), then events
     * after $2, up to $3 rows in all (null: every event; a page of n events asks n + 1).
     */
    readEvents: `
      SELECT NULL::integer AS seq, NULL AS body, x.summary_revision AS row_rev, sn.revision AS snap_rev,
             (SELECT max(seq) FROM ${s}.events WHERE session_id = $1) AS max_seq
        FROM ${s}.sessions x LEFT JOIN ${s}.snapshots sn ON sn.session_id = x.id WHERE x.id = $1
      UNION ALL
      SELECT seq, body, NULL, NULL, NULL FROM ${s}.events WHERE session_id = $1 AND seq > $2
      ORDER BY seq NULLS FIRST LIMIT $3`,

    /**
     * Replaces the session's snapshot, unless its revision is past the journal end or below the
     * stored one's (no row then either way). A snapshot is written after its changes were
     * answered, so an older one can arrive after a newer one; and a snapshot past the events
     * proves acknowledged events that were lost (repair.ts), so it must not be written over.
     */
    writeSnapshot: `
      INSERT INTO ${s}.snapshots (session_id, revision, state)
      SELECT x.id, $2, $3 FROM ${s}.sessions x WHERE x.id = $1 AND ${revisionOf('x.id')} >= $2
      ON CONFLICT (session_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state, written_at = now()
        WHERE ${s}.snapshots.revision <= EXCLUDED.revision`,

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

    saveCheckpoint: `INSERT INTO ${s}.checkpoints (session_id, id, body, sha256) VALUES ($1, $2, $3, $4)`,
    /** A head row (id null) when the session exists, then its checkpoints ($2 null: all). */
    checkpoints: `
      SELECT NULL AS id, NULL AS body, NULL AS sha256, NULL::timestamptz AS created_at FROM ${s}.sessions WHERE id = $1
      UNION ALL
      SELECT id, body, sha256, created_at FROM ${s}.checkpoints WHERE session_id = $1 AND ($2::text IS NULL OR id = $2)
      ORDER BY id NULLS FIRST`,
  };
}

/** The append of a session a claimer holds (one statement per session, like `append`; apart so each function stays short). */
function heldAppendStatements(s: string) {
  return {
    /**
     * `appendMany` with the session's registry row in the same statement (one commit, not
     * two): the append of a session a claimer holds (claim-queue.ts), whose row must be
     * written before the hold ends, so the refresh after the acknowledgement would only be a
     * second statement on the claim's path. The row is $5 (of revision $6, the append's),
     * unless the row is already as new. The notification to watchers is not in it: a commit
     * that notifies holds the database's notification lock through its WAL flush, which
     * made concurrent claims commit one at a time; it follows in the handle's refresh, which
     * commits without waiting for the flush. No row back when nothing was inserted (the
     * caller reads why). $1 id, $2 expected revision, $3 types[], $4 bodies[], $5 row, $6 revision.
     */
    appendWithRow: `
      WITH ins AS (
        INSERT INTO ${s}.events (session_id, seq, type, body, row_changed)
        SELECT $1, $2 + t.o, t.ty, t.b, true FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(ty, b, o)
        WHERE EXISTS (SELECT 1 FROM ${s}.events WHERE session_id = $1 AND seq = $2)
        RETURNING 1
      ), upd AS (
        UPDATE ${s}.sessions x SET summary = $5, summary_revision = $6,
               refreshed_revision = GREATEST(x.refreshed_revision, $6), updated_at = now()
         WHERE x.id = $1 AND EXISTS (SELECT 1 FROM ins) AND (x.summary_revision IS NULL OR x.summary_revision < $6)
        RETURNING 1
      )
      SELECT i.n, (SELECT count(*) FROM upd)::int AS updated
        FROM (SELECT count(*)::int AS n FROM ins) i WHERE i.n > 0`,
  };
}

/** The statements of one schema. */
export type Statements = ReturnType<typeof statements>;
