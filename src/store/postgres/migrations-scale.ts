/**
 * Schema steps for many workers on one server (issue 17), kept apart from the base schema so
 * each is additive and reviewable on its own: named workspaces with their own active
 * pointer, registry columns with indexes for `list` and `claim`, and an events table
 * partitioned by session.
 */
import type { Migration } from './migrations-types.js';

/** Number of hash partitions of the events table (see docs/scale.md: vacuum, detach, Citus). */
export const EVENT_PARTITIONS = 16;

/**
 * Workspaces and an indexed registry. `summary_field` reads one field of a registry row and
 * yields null for a row that is not JSON (edited by hand: `list` reports and derives it
 * again), so a bad row can never make a write fail. The columns are generated from the row,
 * so no statement that writes rows changes. The store-wide pointer of version 1 stays where
 * it was and is adopted by the first workspace that asks (see sql.ts `getActive`).
 */
const workspaces: Migration = {
  version: 2,
  name: 'workspaces: active pointer per workspace; registry columns and indexes for list and claim',
  sql: (s) => `
    CREATE FUNCTION ${s}.summary_field(txt text, field text) RETURNS text
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
      BEGIN
        RETURN txt::jsonb ->> field;
      EXCEPTION WHEN others THEN
        RETURN NULL;
      END $f$;
    ALTER TABLE ${s}.sessions
      ADD COLUMN workspace text GENERATED ALWAYS AS (${s}.summary_field(summary, 'workspace')) STORED,
      ADD COLUMN status text GENERATED ALWAYS AS (${s}.summary_field(summary, 'status')) STORED,
      ADD COLUMN lease_expires_at text GENERATED ALWAYS AS (${s}.summary_field(summary, 'leaseExpiresAt')) STORED;
    CREATE INDEX sessions_workspace ON ${s}.sessions (workspace, id);
    CREATE INDEX sessions_claim ON ${s}.sessions (status, lease_expires_at) WHERE NOT archived;
    CREATE INDEX sessions_unsummarised ON ${s}.sessions (id) WHERE summary IS NULL OR status IS NULL;
    CREATE TABLE ${s}.active (
      workspace text PRIMARY KEY,
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      set_at timestamptz NOT NULL DEFAULT now()
    );`,
};

/**
 * The events table, partitioned by a hash of the session id: a session's events live in one
 * of {@link EVENT_PARTITIONS} partitions, so deleting sessions (and the vacuum that follows)
 * touches one partition's pages per session, never a table-wide rewrite; each partition can
 * be vacuumed, reindexed, moved to another tablespace or detached on its own; and the layout
 * is the one a distributed PostgreSQL shards by (see docs/scale.md). Every statement names
 * `events` as before, so none changes. Existing rows are copied in the migration's one
 * transaction under the migration lock: writers wait for it (a large store: run `baton
 * init --store URL` once, at a quiet moment), and a failure leaves the old table as it was.
 */
const partitionedEvents: Migration = {
  version: 3,
  name: 'events partitioned by hash of session id',
  sql: (s) => `
    ALTER TABLE ${s}.events RENAME TO events_unpartitioned;
    ALTER TABLE ${s}.events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey;
    ALTER INDEX ${s}.events_at RENAME TO events_unpartitioned_at;
    CREATE TABLE ${s}.events (
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      seq integer NOT NULL CHECK (seq >= 1),
      type text NOT NULL,
      body text NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (session_id, seq)
    ) PARTITION BY HASH (session_id);
    ${Array.from({ length: EVENT_PARTITIONS }, (_, i) => `CREATE TABLE ${s}.events_p${i} PARTITION OF ${s}.events FOR VALUES WITH (MODULUS ${EVENT_PARTITIONS}, REMAINDER ${i});`).join('\n    ')}
    CREATE INDEX events_at ON ${s}.events USING brin (at);
    INSERT INTO ${s}.events (session_id, seq, type, body, at) SELECT session_id, seq, type, body, at FROM ${s}.events_unpartitioned;
    DROP TABLE ${s}.events_unpartitioned;`,
};

/** The steps of this module, oldest first. */
export const SCALE_MIGRATIONS: readonly Migration[] = [workspaces, partitionedEvents];
