import type { Pool, PoolClient } from 'pg';
import { BatonError, isBatonError } from '../../domain/errors.js';
import { inTransaction, mapPgError, sqlState } from './pool.js';

/** What {@link underAdvisoryLock} needs of its store handle. */
export interface AdvisoryLockTarget {
  /** The pool, connected and migrated. */
  connect: () => Promise<Pool>;
  location: string;
  schema: string;
  workspace: string;
  lockTimeoutMs: number;
  /** The error of a closed store, or null while it is open. */
  closed: () => BatonError | null;
}

/**
 * Runs `fn` while holding the transaction-level advisory lock keyed by the schema and the
 * workspace, on a connection of its own (a worker that dies releases it with its session).
 * Waits at most `lockTimeoutMs`, then `LOCKED`; other driver errors are mapped as the store's.
 */
export async function underAdvisoryLock<T>(t: AdvisoryLockTarget, fn: () => Promise<T>): Promise<T> {
  let pool: Pool;
  try {
    pool = await t.connect();
  } catch (e) {
    throw mapPgError(e, t.location);
  }
  let inFn = false;
  try {
    return await inTransaction(pool, async (c: PoolClient) => {
      await c.query("SELECT set_config('lock_timeout', $1, true)", [`${Math.max(1, Math.floor(t.lockTimeoutMs))}ms`]);
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `baton.workspace.${t.schema}.${t.workspace}`,
      ]);
      inFn = true;
      return fn();
    });
  } catch (e) {
    if (!inFn && sqlState(e) === '55P03') {
      throw new BatonError(
        'LOCKED',
        `The lock of workspace ${JSON.stringify(t.workspace)} in schema ${t.schema} is held by another worker (waited ${t.lockTimeoutMs} ms).`,
        {
          hint: 'Another baton is starting or switching a session in this workspace; retry in a moment.',
          details: { schema: t.schema, workspace: t.workspace },
          cause: e,
        },
      );
    }
    const closed = inFn ? null : t.closed();
    if (closed && !isBatonError(e)) throw closed;
    throw mapPgError(e, t.location);
  }
}
