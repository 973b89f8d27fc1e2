import { checkCursorName, checkCursorValue, cursorMoved } from '../cursors.js';
import type { CursorTable } from '../types.js';

/** Runs one statement (the store's prepared-statement path, with its error mapping). */
type Query = <R extends Record<string, unknown>>(
  text: string,
  values?: unknown[],
) => Promise<{ rows: R[]; rowCount: number }>;

/**
 * The PostgreSQL store's cursors: rows of `<schema>.cursors` (migrations-cursors.ts). A write is one
 * guarded statement (insert if absent, or update where the value is still the expected one),
 * so the database decides which of two readers moving the same cursor wins.
 */
export class PgCursorTable implements CursorTable {
  constructor(
    private readonly q: Query,
    /** The quoted schema name (read when a statement runs: the store sets it after this table is made). */
    private readonly schema: () => string,
  ) {}

  async get(name: string): Promise<string | null> {
    const r = await this.q<{ value: string }>(`SELECT value FROM ${this.schema()}.cursors WHERE name = $1`, [
      checkCursorName(name),
    ]);
    return r.rows[0]?.value ?? null;
  }

  async put(name: string, value: string, expected: string | null): Promise<void> {
    checkCursorName(name);
    checkCursorValue(value);
    const s = this.schema();
    const r =
      expected === null
        ? await this.q(`INSERT INTO ${s}.cursors (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
            name,
            value,
          ])
        : await this.q(`UPDATE ${s}.cursors SET value = $2, updated_at = now() WHERE name = $1 AND value = $3`, [
            name,
            value,
            expected,
          ]);
    if (r.rowCount === 0) throw cursorMoved(name, expected, await this.get(name));
  }

  async list(prefix: string): Promise<Array<{ name: string; value: string }>> {
    // starts_with, not LIKE: '_' in a prefix is a plain character.
    const r = await this.q<{ name: string; value: string }>(
      `SELECT name, value FROM ${this.schema()}.cursors WHERE starts_with(name, $1) ORDER BY name COLLATE "C"`,
      [prefix],
    );
    return r.rows.map((x) => ({ name: x.name, value: x.value }));
  }
}
