import type { Client } from 'pg';
import { createClient, mapPgError } from './pool.js';
import { channelOf, ident } from './url.js';
import type { PgTarget } from './url.js';

/** A change announced on a schema's channel. */
export interface StoreChange {
  sessionId: string;
  revision: number;
}

/** Longest pause between two attempts to get a lost LISTEN connection back. */
const MAX_BACKOFF_MS = 5_000;

/** How often the LISTEN connection is pinged, and how long a ping may take before it counts as lost. */
export interface WatchTiming {
  pingMs: number;
  pingTimeoutMs: number;
}

/**
 * A LISTEN connection only receives: if its peer vanishes without closing it (a host that
 * died, a NAT entry dropped), nothing is read and nothing fails. A ping every 15 s that must
 * be answered within 10 s finds such a connection, which is then replaced (TCP keepalive,
 * see pool.ts, is the second line).
 */
const DEFAULT_TIMING: WatchTiming = { pingMs: 15_000, pingTimeoutMs: 10_000 };
/**
 * How far before the moment it started listening a watcher looks again after a reconnection:
 * an event is stamped with its statement's start, which may precede its commit by at most the
 * statement time limit.
 */
const CATCH_UP_MARGIN = '70 seconds';

/**
 * LISTENs on the schema's channel over a connection of its own and calls `onChange` for each
 * committed create and append. When the connection is lost it reconnects (backing off up to
 * 5 s) and then reports every session changed since shortly before the loss, with its current
 * revision, so nothing committed meanwhile goes unreported (a change may be reported twice).
 * Resolves once listening; rejects with `STORE_UNAVAILABLE` when the first connection fails.
 * An exception thrown by `onChange` is ignored.
 */
export async function watchChanges(target: PgTarget, changedSince: string, onChange: (c: StoreChange) => void, timing: WatchTiming = DEFAULT_TIMING): Promise<() => Promise<void>> {
  const channel = channelOf(target.schema);
  let client: Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let pinging = false;
  // Never keeps the process alive by itself (the LISTEN connection does, while it lives).
  const pinger = setInterval(() => {
    const c = client;
    if (!c || pinging || stopped) return;
    pinging = true;
    let t: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error('ping unanswered')), timing.pingTimeoutMs);
    });
    Promise.race([c.query('SELECT 1'), late])
      .catch(() => lost(c))
      .finally(() => {
        clearTimeout(t);
        pinging = false;
      });
  }, timing.pingMs);
  pinger.unref();
  /** Server time when the current connection started listening. */
  let listeningSince: Date | null = null;

  // A listener that throws must not break the driver's connection (it runs inside its parser).
  const report = (c: StoreChange): void => {
    try {
      onChange(c);
    } catch {
      // the watcher's own failure; it is not the store's to handle
    }
  };

  const deliver = (payload: string | undefined): void => {
    if (!payload) return;
    try {
      const p = JSON.parse(payload) as { session?: unknown; revision?: unknown };
      if (typeof p.session === 'string' && typeof p.revision === 'number') report({ sessionId: p.session, revision: p.revision });
    } catch {
      // not one of ours
    }
  };

  const open = async (): Promise<void> => {
    const c = createClient(target);
    c.on('notification', (n) => {
      if (n.channel === channel) deliver(n.payload);
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${ident(channel)}`);
      const since = listeningSince;
      const now = (await c.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
      if (since) {
        const missed = await c.query<{ id: string; revision: number }>(changedSince, [since, CATCH_UP_MARGIN]);
        for (const r of missed.rows) report({ sessionId: r.id, revision: r.revision });
      }
      listeningSince = now;
    } catch (e) {
      c.removeAllListeners('end');
      c.on('error', () => undefined);
      await c.end().catch(() => undefined);
      throw mapPgError(e, target.location);
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
  };

  const lost = (c: Client): void => {
    if (client !== c || stopped) return;
    client = null;
    c.removeAllListeners('end');
    c.on('error', () => undefined);
    // A connection that stopped answering may never finish a polite end: drop the socket.
    (c as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
    c.end().catch(() => undefined);
    retry(250);
  };

  const retry = (delay: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      open().catch(() => retry(Math.min(delay * 2, MAX_BACKOFF_MS)));
    }, delay);
  };

  try {
    await open();
  } catch (e) {
    clearInterval(pinger);
    throw e;
  }
  return async () => {
    stopped = true;
    clearInterval(pinger);
    if (timer) clearTimeout(timer);
    const c = client;
    client = null;
    if (c) {
      c.removeAllListeners('end');
      c.on('error', () => undefined);
      await c.end().catch(() => undefined);
    }
  };
}
