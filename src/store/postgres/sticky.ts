import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { sqlState } from './pool.js';

/** How long the kept connection may sit unused before it goes back to the pool. */
export const STICKY_IDLE_MS = 50;

/**
 * One connection of a pool kept checked out for the append path: a statement on it skips the
 * pool's checkout and release, about 50 µs on this machine, a tenth of a one-row commit
 * (issue 18). It is used only while idle: a statement that finds it busy goes through the
 * pool, so that appends to other sessions still run side by side. It goes back to the pool
 * after {@link STICKY_IDLE_MS} unused (a checked-out connection would keep the process alive,
 * and the pool lets an idle process exit), and a connection that failed (no SQLSTATE, or a
 * class 08/57 one: it was lost or the server is going away) is given back as broken, so the
 * next statement takes a fresh one. Errors of the statement itself (a unique violation) leave
 * the connection as it was: every statement sent here is one autocommitted statement.
 */
export class StickyConnection {
  private client: PoolClient | null = null;
  /** The pool `client` came from: a new pool (the store reconnected) gets a new connection. */
  private from: Pool | null = null;
  private busy = false;
  /** giveBack() came while a statement ran: the connection goes back when it ends. */
  private giveBackAfter = false;
  private idle: NodeJS.Timeout | null = null;

  /** Runs `config` on the kept connection when it is free, else on `pool`. */
  async query<R extends QueryResultRow>(pool: Pool, config: QueryConfig): Promise<QueryResult<R>> {
    if (this.busy) return pool.query<R>(config);
    this.busy = true;
    try {
      if (this.client && this.from !== pool) this.releaseNow();
      const client = this.client ?? (await this.take(pool));
      try {
        return await client.query<R>(config);
      } catch (e) {
        if (broken(e)) this.drop(client, e);
        throw e;
      }
    } finally {
      this.busy = false;
      if (this.giveBackAfter) this.giveBack();
      else this.armIdle();
    }
  }

  /**
   * Gives the connection back to its pool (before the pool is ended): now, or once the
   * statement running on it ends. Never under a running statement: the pool would close the
   * connection with it, and an append that committed would be reported failed.
   */
  giveBack(): void {
    if (this.busy) this.giveBackAfter = true;
    else this.releaseNow();
  }

  private releaseNow(): void {
    this.giveBackAfter = false;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const c = this.client;
    this.client = null;
    this.from = null;
    if (!c) return;
    c.off('error', this.onError);
    c.release();
  }

  private async take(pool: Pool): Promise<PoolClient> {
    const client = await pool.connect();
    // The pool listens for errors of its idle connections only: one this keeps (the server
    // ended it between two appends) would otherwise be an unhandled 'error' event.
    client.on('error', this.onError);
    this.client = client;
    this.from = pool;
    return client;
  }

  private readonly onError = (e: Error): void => {
    if (this.client) this.drop(this.client, e);
  };

  /** Gives `client` back as broken (the pool closes it) if it is the one kept. */
  private drop(client: PoolClient, e: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.from = null;
    client.off('error', this.onError);
    client.release(e instanceof Error ? e : new Error(String(e)));
  }

  private armIdle(): void {
    if (!this.client) return;
    if (this.idle) {
      this.idle.refresh();
      return;
    }
    this.idle = setTimeout(() => {
      this.idle = null;
      if (!this.busy) this.giveBack();
      else this.armIdle();
    }, STICKY_IDLE_MS);
    this.idle.unref();
  }
}

/** True for an error after which the connection cannot be trusted: not one the server reported for a statement. */
function broken(e: unknown): boolean {
  const state = sqlState(e);
  return state === undefined || /^(08|57)/.test(state);
}
