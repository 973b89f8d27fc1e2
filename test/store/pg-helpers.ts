/**
 * Helpers of the PostgreSQL tests: the server comes from BATON_TEST_PG_URL, which the vitest
 * globalSetup (test/setup/postgres.ts) points at an embedded PGlite when it is not set; every
 * test works in a fresh schema of its own (other people and tests share the database) and
 * drops it.
 */
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { Client } from 'pg';
import { beforeEach } from 'vitest';

const require = createRequire(import.meta.url);

/** The test server, or undefined (the tests are then skipped, with a message). */
export const PG_URL = process.env['BATON_TEST_PG_URL'] || undefined;

if (!PG_URL)
  console.warn(
    'PostgreSQL store tests skipped: BATON_TEST_PG_URL is not set and the globalSetup of vitest.config.ts did not start the embedded server.',
  );

/** Whether the server is the embedded PGlite (one session shared by all connections). */
export const EMBEDDED = process.env['BATON_TEST_PG_EMBEDDED'] === '1';

/**
 * Skips, on the embedded server only and saying so in the output, the tests of the enclosing
 * describe named in `reasons` (test name -> why it needs a real server). Call inside a describe.
 */
export function needsRealServer(reasons: Record<string, string>): void {
  beforeEach((ctx) => {
    const why = reasons[ctx.task.name];
    if (!EMBEDDED || why === undefined) return;
    console.warn(
      `SKIPPED on embedded PostgreSQL (needs a real server; set BATON_TEST_PG_URL): "${ctx.task.name}": ${why}`,
    );
    ctx.skip();
  });
}

/** A random schema name for one test. */
export function freshSchema(prefix = 't'): string {
  return `baton_${prefix}_${crypto.randomBytes(6).toString('hex')}`;
}

/** The test server's URL with `?schema=` (and any other parameters) set. */
export function urlWith(params: Record<string, string>): string {
  const u = new URL(PG_URL!);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** A plain client on the test server, for checks and cleanup behind the store's back. */
export async function admin(): Promise<Client> {
  const pg = require('pg') as typeof import('pg');
  const c = new pg.Client({ connectionString: PG_URL });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/**
 * Waits until the server backends `pids` have exited. pg_terminate_backend only signals them:
 * a client may still send a statement to one that is on its way out.
 */
export async function backendsGone(c: Client, pids: number[], timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
    if (r.rows[0]!.n === '0') return;
    if (Date.now() > end)
      throw new Error(`backends ${pids.join(', ')} still ran ${timeoutMs} ms after pg_terminate_backend`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const c = await admin();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}
