/**
 * The claim queue's statements (claim-queue.ts): registry statements (docs/scale.md lists
 * them with the others), apart so each file keeps one purpose. Values are parameters; only
 * the quoted schema name is part of the text.
 */
export function claimStatements(s: string) {
  return {
    /**
     * The claim queue's pick (claim-queue.ts), with the picked session's load in the same
     * statement (one round trip, not two): the oldest session a claimer may take at $1 (as
     * `claimable` (sql-registry.ts); a lapsed lease counts from its end, an interrupted session
     * from its last change) that is not in $2 and that no other claimer holds: each candidate
     * is held by a session-level advisory lock on $3 || id, tried in order, skipped (never
     * waited for) when another connection holds it. The lock lasts while the claimer decides,
     * until `claimRelease` on the same connection; `OFFSET 0` keeps the lock attempts out of
     * the inner query, so they are made on the sorted candidates, in order, and stop at the
     * first one taken (any other a plan might take is let go by `claimRelease` too); the
     * `MATERIALIZED` CTE takes them once. An advisory lock, not a row lock: the claim's own
     * append and the registry refresh touch the row meanwhile and must not wait for it
     * (registry query; index sessions_claim). Then the rows of `load` (sql.ts) for the picked
     * session, each with its id in `picked`: the head row (seq null), the events after the
     * snapshot (a lateral read: by the index of the one session's partition). No row: nothing to pick.
     */
    claimNext: `
      WITH c AS MATERIALIZED (
        SELECT c.id FROM (
          SELECT id, CASE WHEN status = 'active' THEN lease_expires_at ELSE ${s}.summary_field(summary, 'updatedAt') END AS since
            FROM ${s}.sessions x
           WHERE NOT archived AND (status = 'interrupted' OR (status = 'active' AND lease_expires_at <= $1) OR status IS NULL)
             AND NOT (id = ANY($2::text[]))
           ORDER BY since NULLS FIRST, id OFFSET 0
        ) c
        WHERE pg_try_advisory_lock(hashtextextended($3 || c.id, 0))
        LIMIT 1
      )
      SELECT c.id AS picked, NULL::integer AS seq, sn.revision AS snap_rev, sn.state AS body, x.summary_revision AS row_rev,
             (SELECT max(seq) FROM ${s}.events WHERE session_id = c.id) AS max_seq
        FROM c JOIN ${s}.sessions x ON x.id = c.id LEFT JOIN ${s}.snapshots sn ON sn.session_id = x.id
      UNION ALL
      SELECT c.id, e.seq, NULL, e.body, NULL, NULL FROM c, LATERAL (
        SELECT seq, body FROM ${s}.events
         WHERE session_id = c.id AND seq > COALESCE((SELECT revision FROM ${s}.snapshots WHERE session_id = c.id), 0)
      ) e
      ORDER BY seq NULLS FIRST`,
    /**
     * Ends the holds of a claimer's connection (claim-queue.ts): every session-level advisory
     * lock it took (`claimNext` takes one). Run before the connection goes back to the pool;
     * no table.
     */
    claimRelease: 'SELECT pg_advisory_unlock_all()',
    /**
     * Who holds the leases of sessions $1 (claim-queue.ts `leaseHolders`): for each, the body
     * of its latest `lease.acquired` event, read backwards from its end by the primary key and
     * stopped at the first (registry query: many sessions at once; each a lateral read of one
     * session). What a claimer with nothing to claim needs to tell a lease of this machine's
     * from one held elsewhere or by a detached claim, without loading every session.
     */
    claimHolders: `
      SELECT t.id, l.body FROM unnest($1::text[]) AS t(id), LATERAL (
        SELECT body FROM ${s}.events WHERE session_id = t.id AND type = 'lease.acquired' ORDER BY seq DESC LIMIT 1
      ) l`,
    /** Wakes the claimers waiting on channel $1: sessions $2 need a worker (no table; claim-queue.ts). */
    claimAnnounce: `
      SELECT count(pg_notify($1, json_build_object('session', t.id, 'revision', 0)::text))::int AS notified
        FROM unnest($2::text[]) AS t(id)`,
  };
}
