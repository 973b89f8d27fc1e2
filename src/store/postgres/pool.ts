import { createRequire } from 'node:module';
import type { Client, ClientConfig, Pool, PoolClient } from 'pg';
import { BatonError, isBatonError } from '../../domain/errors.js';
import type { PgTarget } from './url.js';

const require = createRequire(import.meta.url);

type PgModule = typeof import('pg');
let pgModule: PgModule | null = null;

/**
 * node:crypto, loaded on first use like the driver: every command's bundle holds this store,
 * and loading node:crypto costs several milliseconds of start-up that a file-store command
 * must not pay (see src/manager/lazy.ts).
 */
export function pgCrypto(): typeof import('node:crypto') {
  return require('node:crypto') as typeof import('node:crypto');
}

/**
 * The `pg` driver, loaded on first use: only a process that opens a postgres:// store pays
 * for it. A plain require, not `import()`: the CLI bundle runs through V8's code cache, where
 * a dynamic import of a package has no loader to resolve it.
 */
export function loadPg(): PgModule {
  if (!pgModule) {
    try {
      pgModule = require('pg') as PgModule;
    } catch (e) {
      throw new BatonError('STORE_UNAVAILABLE', 'The PostgreSQL driver (the `pg` package) is not installed.', {
        hint: 'Install it next to baton (npm install pg), or use the file store.',
        cause: e,
        details: { retryable: false },
      });
    }
  }
  return pgModule;
}

/** Longest a single statement may run before the client gives up on it (a server that stopped answering). */
export const QUERY_TIMEOUT_MS = 60_000;

/**
 * Longest a statement may run on the server (its `statement_timeout`), a little below the
 * client's limit: when the client gives up, the server has already cancelled the statement
 * and released its locks, instead of running on for a caller that is gone.
 */
export const STATEMENT_TIMEOUT_MS = 55_000;

/**
 * Idle time after which TCP keepalive probes start on every connection. The OS default is
 * about two hours: a LISTEN connection whose peer vanished (a dropped NAT entry, a server
 * host that died) would go unnoticed that long. With 10 s, a dead connection is found within
 * seconds (plus the OS's probe interval and count) and `watch` reconnects.
 */
export const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/** Driver settings of one target (shared by the pool and the LISTEN client). */
export function clientConfig(t: PgTarget): ClientConfig {
  return {
    connectionString: t.connectionString,
    connectionTimeoutMillis: t.connectTimeoutMs,
    query_timeout: QUERY_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    application_name: 'baton',
  };
}

/**
 * A bounded pool that never crashes the process: an idle connection the server drops emits
 * an `error` event, which is swallowed here (the next query gets a fresh connection or a
 * `STORE_UNAVAILABLE`).
 */
export function createPool(t: PgTarget): Pool {
  const pg = loadPg();
  const pool = new pg.Pool({ ...clientConfig(t), max: t.poolMax, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
  pool.on('error', () => undefined);
  return pool;
}

/** A dedicated connection (for LISTEN), with the same settings. */
export function createClient(t: PgTarget): Client {
  const pg = loadPg();
  const client = new pg.Client(clientConfig(t));
  return client;
}

/** SQLSTATE classes and codes that mean the server is down, restarting, or unreachable. */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300|53400)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
const NETWORK_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection timeout|Client has encountered a connection error|Connection ended unexpectedly/i;

/** SQLSTATE of a driver error, if any. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Turns a driver error into a `BatonError`: a server that is down, restarting or unreachable,
 * or a connection lost mid-call, is `STORE_UNAVAILABLE` with `details.retryable: true`; a
 * refused login or a missing database is `STORE_UNAVAILABLE` that a retry will not cure.
 * Anything else is returned as it is (a bug, not a condition callers handle).
 */
export function mapPgError(e: unknown, location: string): unknown {
  if (isBatonError(e)) return e;
  const err = e as NodeJS.ErrnoException & { message?: string };
  const state = sqlState(e);
  const netCode = typeof err?.code === 'string' && NETWORK_CODES.has(err.code) ? err.code : undefined;
  const aggregate =
    e instanceof AggregateError
      ? e.errors.find((x: NodeJS.ErrnoException) => NETWORK_CODES.has(x?.code ?? ''))
      : undefined;
  if ((state && UNAVAILABLE_STATES.test(state)) || netCode || aggregate || NETWORK_MESSAGES.test(err?.message ?? '')) {
    return new BatonError(
      'STORE_UNAVAILABLE',
      `The PostgreSQL store at ${location} cannot be reached: ${describe(e)}.`,
      {
        hint: 'Check that the server is running and reachable (host, port, firewall), then retry; the call may be retried as is.',
        details: { retryable: true, ...(state ? { sqlState: state } : {}), ...(netCode ? { errno: netCode } : {}) },
        cause: e,
      },
    );
  }
  if (state === '28P01' || state === '28000' || state === '3D000' || state === '42501') {
    const why =
      state === '3D000'
        ? 'the database does not exist'
        : state === '42501'
          ? 'the user lacks a privilege baton needs'
          : 'the login was refused';
    return new BatonError(
      'STORE_UNAVAILABLE',
      `The PostgreSQL store at ${location} refused baton: ${why} (${describe(e)}).`,
      {
        hint:
          state === '3D000'
            ? 'Create the database (createdb NAME) or fix the database name in the URL.'
            : 'Fix the user, password or grants in the store URL (the user needs CREATE on the database for the first run).',
        details: { retryable: false, sqlState: state },
        cause: e,
      },
    );
  }
  return e;
}

function describe(e: unknown): string {
  const err = e as { message?: string; code?: string };
  if (e instanceof AggregateError && e.errors.length) return describe(e.errors[0]);
  const msg = (err?.message ?? String(e)).replace(/\.$/, '');
  return msg || err?.code || 'unknown error';
}

/** Runs `fn` inside a transaction on one pooled connection; rolls back when it throws. */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken = false;
  // A connection lost while it is checked out and idle (e.g. while `fn` awaits other work)
  // is reported as an `error` event; unheard, that event would crash the process. The next
  // statement on it fails, and that failure is what the caller sees.
  const onError = (): void => {
    broken = true;
  };
  c.on('error', onError);
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    try {
      await c.query('ROLLBACK');
    } catch {
      broken = true; // the connection is gone: do not hand it back to the pool
    }
    throw e;
  } finally {
    c.removeListener('error', onError);
    c.release(broken);
  }
}

/**
 * Runs `fn` on one pooled connection, outside a transaction, then `letGo` (a statement that
 * undoes what `fn` left on the connection: session-level advisory locks) before the connection
 * goes back to the pool. When `fn` resolves, its result is returned at once, without waiting
 * for `letGo`: the connection goes back when that is done, or is discarded when it failed (a
 * connection that may still hold something never goes back). When `fn` throws, `letGo` is
 * waited for first.
 */
export async function onConnection<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>, letGo: string): Promise<T> {
  const c = await pool.connect();
  let broken = false;
  const onError = (): void => {
    broken = true; // as in inTransaction: heard, so it cannot crash the process
  };
  c.on('error', onError);
  const done = (): Promise<void> =>
    c.query(letGo).then(
      () => {
        c.removeListener('error', onError);
        c.release(broken);
      },
      () => {
        c.removeListener('error', onError);
        c.release(true);
      },
    );
  let out: T;
  try {
    out = await fn(c);
  } catch (e) {
    await done();
    throw e;
  }
  void done();
  return out;
}
