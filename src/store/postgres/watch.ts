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

/** How often the LISTEN connection is pinged (and the events polled), and how long a ping may take before it counts as lost. */
export interface WatchTiming {
  pingMs: number;
  pingTimeoutMs: number;
}

/**
 * A LISTEN connection only receives: if its peer vanishes without closing it (a host that
 * died, a NAT entry dropped), nothing is read and nothing fails. A ping every 15 s that must
 * be answered within 10 s finds such a connection, which is then replaced (TCP keepalive,
 * see pool.ts, is the second line). The ping is a poll of the events committed since the
 * previous one: a notification is sent after its append is acknowledged (refresh.ts), so a
 * writer killed in between never sends it, and the poll reports that change instead.
 */
const DEFAULT_TIMING: WatchTiming = { pingMs: 15_000, pingTimeoutMs: 10_000 };
/**
 * How far before the moment it started listening a watcher looks again after a reconnection:
 * an event is stamped with its statement's start, which may precede its commit by at most the
 * statement time limit.
 */
const CATCH_UP_MARGIN = '70 seconds';

/** The server's time now (`now()`: the start of this statement's transaction). */
async function serverNow(c: Client): Promise<Date> {
  return (await c.query<{ t: Date }>('SELECT now() AS t')).rows[0]!.t;
}

/**
 * What a watcher has reported, per session the highest revision, so a poll passes on only
 * news. Entries no poll has seen for two rounds are forgotten: their events are outside every
 * later poll's window by then, so they cannot come back as old news.
 */
function reportedRevisions(): { isNews: (c: StoreChange) => boolean; endRound: () => void } {
  const told = new Map<string, { revision: number; round: number }>();
  let round = 0;
  return {
    isNews: (c) => {
      const was = told.get(c.sessionId);
      if (was && was.revision >= c.revision) {
        was.round = round;
        return false;
      }
      told.set(c.sessionId, { revision: c.revision, round });
      return true;
    },
    endRound: () => {
      round++;
      for (const [id, x] of told) if (x.round < round - 2) told.delete(id);
    },
  };
}

/** The change a notification payload announces; null when the payload is not one of ours. */
function parsePayload(payload: string | undefined): StoreChange | null {
  if (!payload) return null;
  try {
    const p = JSON.parse(payload) as { session?: unknown; revision?: unknown };
    if (typeof p.session === 'string' && typeof p.revision === 'number')
      return { sessionId: p.session, revision: p.revision };
  } catch {
    // not one of ours
  }
  return null;
}

/** Detaches the watcher from a connection it gives up, so its 'end' or a late error is not taken for a loss. */
function silence(c: Client): void {
  c.removeAllListeners('end');
  c.on('error', () => undefined);
}

/** Ends a connection the watcher gave up; never rejects. */
async function endSilently(c: Client): Promise<void> {
  silence(c);
  await c.end().catch(() => undefined);
}

/**
 * Runs `check` on the current connection every `pingMs`, one at a time; a check that fails or
 * takes longer than `pingTimeoutMs` reports the connection lost. Never keeps the process
 * alive by itself (the LISTEN connection does, while it lives).
 */
function every(
  timing: WatchTiming,
  current: () => Client | null,
  check: (c: Client) => Promise<void>,
  lost: (c: Client) => void,
): NodeJS.Timeout {
  let pinging = false;
  const pinger = setInterval(() => {
    const c = current();
    if (!c || pinging) return;
    pinging = true;
    let t: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error('ping unanswered')), timing.pingTimeoutMs);
    });
    Promise.race([check(c), late])
      .catch(() => lost(c))
      .finally(() => {
        clearTimeout(t);
        pinging = false;
      });
  }, timing.pingMs);
  pinger.unref();
  return pinger;
}

/**
 * LISTENs on the schema's channel (or `channel`: the claim queue's) over a connection of its own and calls `onChange` for each
 * committed create and append. When the connection is lost it reconnects (backing off up to
 * 5 s) and then reports every session changed since shortly before the loss, with its current
 * revision, so nothing committed meanwhile goes unreported (a change may be reported twice).
 * Resolves once listening; rejects with `STORE_UNAVAILABLE` when the first connection fails.
 * An exception thrown by `onChange` is ignored.
 */
export async function watchChanges(
  target: PgTarget,
  changedSince: string,
  onChange: (c: StoreChange) => void,
  timing: WatchTiming = DEFAULT_TIMING,
  channel: string = channelOf(target.schema),
): Promise<() => Promise<void>> {
  let client: Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const pinger = every(
    timing,
    () => (stopped ? null : client),
    (c) => poll(c),
    (c) => lost(c),
  );
  /** Server time when the current connection started listening (then: when the last poll started). */
  let listeningSince: Date | null = null;
  const news = reportedRevisions();

  /** Reports the sessions changed since the last poll (less the margin) at a revision not reported yet. */
  const poll = async (c: Client): Promise<void> => {
    const since = listeningSince;
    const now = await serverNow(c);
    if (!since || client !== c) return;
    const changed = await c.query<{ id: string; revision: number }>(changedSince, [since, CATCH_UP_MARGIN]);
    if (client !== c || stopped) return;
    listeningSince = now;
    for (const r of changed.rows) {
      const change = { sessionId: r.id, revision: r.revision };
      if (news.isNews(change)) report(change);
    }
    news.endRound();
  };

  // A listener that throws must not break the driver's connection (it runs inside its parser).
  const report = (c: StoreChange): void => {
    news.isNews(c);
    try {
      onChange(c);
    } catch {
      // the watcher's own failure; it is not the store's to handle
    }
  };

  const open = async (): Promise<void> => {
    const c = createClient(target);
    c.on('notification', (n) => {
      const change = n.channel === channel ? parsePayload(n.payload) : null;
      if (change) report(change);
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${ident(channel)}`);
      const since = listeningSince;
      const now = await serverNow(c);
      if (since) {
        const missed = await c.query<{ id: string; revision: number }>(changedSince, [since, CATCH_UP_MARGIN]);
        for (const r of missed.rows) report({ sessionId: r.id, revision: r.revision });
      }
      listeningSince = now;
    } catch (e) {
      await endSilently(c);
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
    silence(c);
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
    if (c) await endSilently(c);
  };
}
