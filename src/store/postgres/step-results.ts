import { notFound } from '../errors.js';
import type { StoreStepResults } from '../types.js';

/** Runs one statement (the store's prepared-statement path, with its error mapping). */
type Query = <R extends Record<string, unknown>>(
  text: string,
  values?: unknown[],
) => Promise<{ rows: R[]; rowCount: number }>;
type Table = StoreStepResults['stepResults'];

/**
 * The PostgreSQL store's large step results: rows of `<schema>.step_results`
 * (migrations-steps.ts), committed (durable) before the `step.completed` event naming them
 * is appended. The same hash stored twice (two runners, one result) is one row.
 */
export class PgStepResults implements Table {
  constructor(
    private readonly q: Query,
    /** The quoted schema name (read when a statement runs: the store sets it after this table is made). */
    private readonly schema: () => string,
  ) {}

  async put(id: string, sha256: string, text: string): Promise<void> {
    const s = this.schema();
    const r = await this.q(
      `INSERT INTO ${s}.step_results (session_id, sha256, body) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM ${s}.sessions WHERE id = $1) ON CONFLICT (session_id, sha256) DO NOTHING`,
      [id, sha256, text],
    );
    if (r.rowCount === 0 && (await this.q(`SELECT 1 AS x FROM ${s}.sessions WHERE id = $1`, [id])).rowCount === 0)
      throw notFound(id);
  }

  async get(id: string, sha256: string): Promise<string | null> {
    const r = await this.q<{ body: string }>(
      `SELECT body FROM ${this.schema()}.step_results WHERE session_id = $1 AND sha256 = $2`,
      [id, sha256],
    );
    return r.rows[0]?.body ?? null;
  }
}
