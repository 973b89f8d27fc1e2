/**
 * Recording the end of a held run (`manager.runs.hold`, `baton run`) so that it is neither
 * lost to one dropped connection nor written twice: the last write of a run is retried while
 * the store is unreachable, and an attempt reported failed that was stored is found by the
 * run's id before the next try.
 */
import { isBatonError } from '../../domain/errors.js';

/** What {@link endRetrying} may wait for, and whom it tells. */
export interface RunEndRetry {
  /** How long after the first attempt failures are still retried. */
  withinMs: number;
  /** Told of each failure that is retried. */
  onRetry?(message: string): void;
  /** Waits `ms` (injected by tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** How `baton run` and `hold` retry by default: 30 s. */
export const END_RETRY_MS = 30_000;

/**
 * Runs `attempt` (the write of a run's end), trying again while the store is unreachable
 * (`STORE_UNAVAILABLE` not marked `retryable: false`) for up to `withinMs`. Before each retry,
 * `stored()` reads whether an earlier attempt landed although reported failed (after an
 * outage a dead connection fails a statement that the server had already committed): then
 * its answer is returned and nothing is written twice. Other errors (FENCED), and the last
 * failure, are thrown.
 */
export async function endRetrying<T>(
  attempt: () => Promise<T>,
  stored: () => Promise<T | null>,
  o: RunEndRetry,
): Promise<T> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = Date.now() + o.withinMs;
  for (let n = 0; ; n++) {
    try {
      if (n > 0) {
        const found = await stored();
        if (found !== null) return found;
      }
      return await attempt();
    } catch (e) {
      const retryable =
        isBatonError(e, 'STORE_UNAVAILABLE') && (e.details as { retryable?: unknown } | undefined)?.retryable !== false;
      if (!retryable || Date.now() >= until) throw e;
      o.onRetry?.((e as Error).message);
      await sleep(Math.min(4_000, 250 * 2 ** n, Math.max(0, until - Date.now())));
    }
  }
}
