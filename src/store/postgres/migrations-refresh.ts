import type { Migration } from './migrations-types.js';

/**
 * The schema step of the after-acknowledgement refresh (issue 18, see refresh.ts): a column
 * recording the journal revision up to which a session's registry row and notification were
 * last brought, whether or not that append carried a row. A session whose highest event is
 * past it (and past its row's revision) lost a refresh to a crash: `list` hands it back as
 * missing, so its row is derived again from the journal. Additive only: a nullable column,
 * filled for the sessions already stored with their highest seq, which is exact (before this
 * step every append wrote its row in its own statement, so no refresh can be missing) and
 * spares the first `list` after the upgrade from deriving every session whose last appends
 * carried no row. Runs under the migration lock like every step (writers wait for it: one
 * probe of the events' key and one row written per session). Numbered after whatever steps
 * come before it in `MIGRATIONS`.
 */
export function refreshMigration(version: number): Migration {
  return {
    version,
    name: 'sessions.refreshed_revision: registry rows and notifications refreshed after the append',
    sql: (s) => `
      ALTER TABLE ${s}.sessions ADD COLUMN IF NOT EXISTS refreshed_revision integer;
      UPDATE ${s}.sessions x SET refreshed_revision = (SELECT max(seq) FROM ${s}.events e WHERE e.session_id = x.id)
       WHERE x.refreshed_revision IS NULL;`,
  };
}
