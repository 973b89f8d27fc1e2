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

/** The steps of this module, oldest first. */
export const SCALE_MIGRATIONS: readonly Migration[] = [workspaces];
