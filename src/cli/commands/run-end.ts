import { isBatonError } from '../../manager/index.js';
import type { RunEnd, SessionManager, SessionState } from '../../manager/index.js';

/** What {@link recordRunEndRetrying} may wait for, and whom it tells. */
export interface RunEndRetry {
  /** How long after the first attempt failures are still retried. */
  withinMs: number;
  /** Told of each failure that is retried. */
  onRetry(message: string): void;
  /** Waits `ms` (injected by tests). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Records the end of a run holding lease `token` (Leases.recordRunEnd), trying again while
 * the store is unreachable (`STORE_UNAVAILABLE` that is not marked `retryable: false`), for
 * up to `withinMs`: the last write of a run must not be lost to one dropped connection (after
 * an outage, a connection left dead fails a statement well after the server is back). An
 * attempt reported failed may still have been stored: before each retry the session's log is
 * read, and a `run.ended` event of this process means it was, so nothing is written twice.
 * Other errors (FENCED), and the last failure, are thrown.
 */
export async function recordRunEndRetrying(m: SessionManager, id: string, token: number, end: RunEnd, agent: string | null, o: RunEndRetry): Promise<{ result: string; state: SessionState }> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = Date.now() + o.withinMs;
  for (let attempt = 0; ; attempt++) {
    try {
      if (attempt > 0) {
        const stored = await endOfThisProcess(m, id);
        if (stored !== null) return { result: stored, state: await m.get(id) };
      }
      const r = await m.leases.recordRunEnd(id, token, end, agent);
      return { result: r.result, state: r.state };
    } catch (e) {
      const retryable = isBatonError(e, 'STORE_UNAVAILABLE') && (e.details as { retryable?: unknown } | undefined)?.retryable !== false;
      if (!retryable || Date.now() >= until) throw e;
      o.onRetry((e as Error).message);
      await sleep(Math.min(4_000, 250 * 2 ** attempt, Math.max(0, until - Date.now())));
    }
  }
}

/** The cause of a `run.ended` event this process stored in session `id`, or null. */
async function endOfThisProcess(m: SessionManager, id: string): Promise<string | null> {
  const { pid, host } = m.origin;
  const events = await m.log(id);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'run.ended' && e.actor.pid === pid && e.actor.host === host) return String((e.data as { cause?: unknown }).cause);
  }
  return null;
}
