/**
 * The schema step of the after-acknowledgement refresh (issue 18, see refresh.ts): a column
 * recording the journal revision up to which a session's registry row and notification were
 * last brought, whether or not that append carried a row. A session whose highest event is
 * past it (and past its row's revision) lost a refresh to a crash: `list` hands it back as
 * missing, so its row is derived again from the journal. Additive only (a nullable column
 * without a default changes no stored row, so it is instant and safe under the migration
 * lock), and numbered after whatever steps come before it in `MIGRATIONS`.
 */
export function refreshMigration(version: number): { version: number; name: string; sql: (s: string) => string } {
  return {
    version,
    name: 'sessions.refreshed_revision: registry rows and notifications refreshed after the append',
    sql: (s) => `ALTER TABLE ${s}.sessions ADD COLUMN IF NOT EXISTS refreshed_revision integer;`,
  };
}
