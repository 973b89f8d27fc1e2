/**
 * vitest globalSetup: which PostgreSQL the PostgreSQL tests run against, decided once per
 * test run. With BATON_TEST_PG_URL set (CI), that real server. Without it, an embedded
 * PostgreSQL: PGlite (PostgreSQL compiled to WebAssembly) behind its wire-protocol socket
 * server on a free 127.0.0.1 port, so every machine runs the SQL. The choice is printed, and
 * handed to the test workers (and the CLI processes they spawn) through the environment:
 * BATON_TEST_PG_URL, and BATON_TEST_PG_EMBEDDED=1 for the embedded server.
 *
 * The embedded server is one PostgreSQL session shared by every connection: the socket
 * server runs one message at a time and keeps a connection's open transaction to itself,
 * so transactions and transaction-level advisory locks still exclude each other; what it
 * cannot do is listed in ./pglite-server.ts (EMBEDDED_LIMITS), and the tests that need it
 * say so in the output.
 */
import net from 'node:net';
import { EMBEDDED_LIMITS, startEmbedded } from './pglite-server.js';

/** A port nobody listens on right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export default async function setup(): Promise<() => Promise<void>> {
  const real = process.env['BATON_TEST_PG_URL'];
  if (real) {
    delete process.env['BATON_TEST_PG_EMBEDDED'];
    console.log(`PostgreSQL tests: real server from BATON_TEST_PG_URL (${redact(real)})`);
    return async () => undefined;
  }
  const port = await freePort();
  const { db, server } = await startEmbedded(port);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  process.env['BATON_TEST_PG_URL'] = url;
  process.env['BATON_TEST_PG_EMBEDDED'] = '1';
  const version = (await db.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? '?';
  console.log(
    `PostgreSQL tests: embedded PGlite at ${url} (${version.split(',')[0]}); set BATON_TEST_PG_URL to use a real server`,
  );
  for (const limit of EMBEDDED_LIMITS) console.log(`  embedded limit: ${limit}`);
  return async () => {
    await server.stop();
    await db.close();
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
