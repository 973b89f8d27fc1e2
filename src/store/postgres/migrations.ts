import type { Pool } from 'pg';
import { BatonError } from '../../domain/errors.js';
import { inTransaction, sqlState } from './pool.js';
import { cursorsMigration } from './migrations-cursors.js';
import { marksMigration } from './migrations-marks.js';
import { refreshMigration } from './migrations-refresh.js';
import { stepResultsMigration } from './migrations-steps.js';
import { ident } from './url.js';

import type { Migration } from './migrations-types.js';
import { SCALE_MIGRATIONS } from './migrations-scale.js';

export type { Migration };

/** The base schema (version 1). */
const BASE: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events, snapshots, checkpoints, tombstones, settings',
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        archived boolean NOT NULL DEFAULT false,
        summary text,
        summary_revision integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.events (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 1),
        type text NOT NULL,
        body text NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, seq)
      );
      CREATE INDEX events_at ON ${s}.events USING brin (at);
      CREATE TABLE ${s}.snapshots (
        session_id text PRIMARY KEY REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        revision integer NOT NULL,
        state text NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.checkpoints (
        session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
        id text NOT NULL,
        body text NOT NULL,
        sha256 text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, id)
      );
      CREATE TABLE ${s}.tombstones (
        n bigserial PRIMARY KEY,
        id text NOT NULL,
        deleted_at text NOT NULL,
        title text NOT NULL,
        status text NOT NULL,
        archived boolean NOT NULL
      );
      CREATE TABLE ${s}.settings (
        key text PRIMARY KEY,
        value text NOT NULL
      );`,
  },
];

/** The schema's history, oldest first; versions are 1, 2, 3 … (the readers' cursors, then the after-append refresh and the marks of appends that change the row: migrations-cursors.ts, migrations-refresh.ts, migrations-marks.ts). */
export const MIGRATIONS: readonly Migration[] = [
  ...BASE,
  ...SCALE_MIGRATIONS,
  cursorsMigration(BASE.length + SCALE_MIGRATIONS.length + 1),
  refreshMigration(BASE.length + SCALE_MIGRATIONS.length + 2),
  marksMigration(BASE.length + SCALE_MIGRATIONS.length + 3),
  stepResultsMigration(BASE.length + SCALE_MIGRATIONS.length + 4),
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Version of the schema as recorded in its migrations table; 0 when there is none yet. */
async function recordedVersion(q: { query: Pool['query'] }, s: string): Promise<number | null> {
  try {
    const r = await q.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.migrations`);
    return r.rows[0]?.v ?? 0;
  } catch (e) {
    // No schema or no migrations table yet: the slow path creates them under the lock.
    if (sqlState(e) === '42P01' || sqlState(e) === '3F000') return null;
    throw e;
  }
}

function newer(schema: string, found: number): BatonError {
  return new BatonError(
    'UNSUPPORTED_VERSION',
    `The PostgreSQL schema ${JSON.stringify(schema)} is at version ${found}; this baton knows versions up to ${SCHEMA_VERSION}.`,
    {
      hint: 'A newer baton migrated it: upgrade baton here (npm install -g baton-sessions@latest) so every worker runs a version that knows the schema, or use another ?schema=.',
      details: { schema, schemaVersion: found, supported: SCHEMA_VERSION },
    },
  );
}

/**
 * Brings `schema` up to {@link SCHEMA_VERSION}. A schema already current costs one query;
 * otherwise the steps run in one transaction under an advisory lock keyed by the schema, so
 * of several processes starting at once exactly one applies each step and the others find
 * the work done. A schema at a newer version than this code knows is refused
 * (`UNSUPPORTED_VERSION`) and left untouched. Returns the versions applied here.
 */
export async function migrate(pool: Pool, schema: string): Promise<number[]> {
  const s = ident(schema);
  const seen = await recordedVersion(pool, s);
  if (seen !== null && seen > SCHEMA_VERSION) throw newer(schema, seen);
  if (seen === SCHEMA_VERSION) return [];
  return inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`baton.migrate.${schema}`]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await c.query(
      `CREATE TABLE IF NOT EXISTS ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const current = (await recordedVersion(c, s)) ?? 0;
    if (current > SCHEMA_VERSION) throw newer(schema, current);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await c.query(m.sql(s));
      await c.query(`INSERT INTO ${s}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
