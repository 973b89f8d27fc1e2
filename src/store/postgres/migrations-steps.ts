import type { Migration } from './migrations-types.js';

/**
 * The schema step of large durable-step results (capability `step results`, see
 * step-results.ts): one row per session and sha256, gone with its session. Additive only
 * and created only if absent, so the step is safe wherever it lands in `MIGRATIONS`.
 */
export function stepResultsMigration(version: number): Migration {
  return {
    version,
    name: 'step results',
    sql: (s) => `
      CREATE TABLE IF NOT EXISTS ${s}.step_results (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        sha256 text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, sha256)
      );`,
  };
}
