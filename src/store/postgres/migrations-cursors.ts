import type { Migration } from './migrations-types.js';

/**
 * The schema step of the readers' cursors (capability `cursors`, see cursors.ts), kept apart
 * from the session tables: additive only, and numbered after whatever steps come before it
 * in `MIGRATIONS` (so steps added to the session tables meanwhile keep their numbers). The
 * table is created only if absent, so the step is safe wherever it lands.
 */
export function cursorsMigration(version: number): Migration {
  return {
    version,
    name: 'cursors',
    sql: (s) => `
      CREATE TABLE IF NOT EXISTS ${s}.cursors (
        name text PRIMARY KEY,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );`,
  };
}
