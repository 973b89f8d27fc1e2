/**
 * The claim queue of the PostgreSQL store (capability `claim queue`, see store/types.ts):
 * claimers on many machines are handed different sessions by one statement each, and a
 * waiting claimer LISTENs for the sessions that need a worker instead of polling.
 */
import type { PoolClient } from 'pg';
import type { LeaseHolder } from '../types.js';
import type { LoadRow } from './event-reads.js';
import { statementName } from './statement-name.js';
import { claimChannelOf } from './url.js';
import type { StoreChange, WatchTiming } from './watch.js';

/** What the queue needs of its store. */
export interface ClaimQueueDeps {
  /**
   * Runs `fn` on one connection of the pool, then lets go of what it holds there (`claimRelease`,
   * pool.ts onConnection: not waited for once `fn` resolved); errors mapped as the store's.
   */
  hold<T>(fn: (c: PoolClient) => Promise<T>): Promise<T>;
  /** Runs one statement on the pool (errors mapped as the store's). */
  q(text: string, values: unknown[]): Promise<unknown>;
  /** Resolves once this handle's registry rows of acknowledged appends are written. */
  settle(): Promise<void>;
  /** LISTENs on `channel` (watch.ts, reconnecting); `onChange` per notification or change found by its poll. */
  listen(channel: string, onChange: (c: StoreChange) => void, timing?: WatchTiming): Promise<() => Promise<void>>;
  sql(): { claimNext: string; claimHolders: string; claimAnnounce: string; claimRelease: string };
  /** The store's schema: its claimers hold keys and LISTEN on a channel of their own. */
  schema(): string;
}

/** See StoreClaimQueue in store/types.ts. */
export class PgClaimQueue {
  /**
   * Sessions this handle holds while a claimer decides, each with the rows of its load read
   * by the pick (until the first load takes them): the store answers that load from them and
   * writes the registry row with each append of a held session (store.ts), so a claim costs
   * the pick, the append and the end of the hold.
   */
  private readonly held = new Map<string, { rows: LoadRow[] | null }>();

  constructor(private readonly d: ClaimQueueDeps) {}

  /**
   * Each candidate is picked, loaded and held (a session-level advisory lock) on a connection
   * of its own, while `take` decides (the claim's conditional append, on other connections of
   * the pool); then the hold is let go (`claimRelease`), without waiting for it once the
   * claimed session's row is written: no transaction, so no `BEGIN` and no `COMMIT` on the
   * claim's path. A claimer holds at most one session at a time, and a claimer that dies
   * lets go with its connection. One tried in vain is left out of the next pick.
   */
  async next<T>(at: string, skip: readonly string[], take: (id: string) => Promise<T | null>): Promise<T | null> {
    const tried = [...skip];
    // The pick reads registry rows: those of this handle's own acknowledged appends first (a
    // session this claimer just found interrupted, e.g. its lease holder gone, is then seen).
    await this.d.settle();
    for (;;) {
      const r = await this.d.hold(async (c) => {
        const text = this.d.sql().claimNext;
        const picked = await c.query<LoadRow & { picked: string }>({
          name: statementName(text),
          text,
          values: [at, tried, `baton-claim:${this.d.schema()}:`],
        });
        const id = picked.rows[0]?.picked;
        if (id === undefined) return { done: true as const, value: null };
        this.held.set(id, { rows: picked.rows });
        let value: T | null;
        try {
          value = await take(id);
          if (value === null) tried.push(id);
          // The claimed session's registry row is written before the hold ends (with its
          // append, see store.ts; anything else this handle left pending now), so the next
          // pick of any claimer no longer finds it claimable.
          else await this.d.settle();
        } finally {
          this.held.delete(id);
        }
        return { done: value !== null, value };
      });
      if (r.done) return r.value;
    }
  }

  /** The rows of held session `id`'s load, read by its pick, once (null: not held, or taken already). */
  takeLoad(id: string): LoadRow[] | null {
    const h = this.held.get(id);
    const rows = h?.rows ?? null;
    if (h) h.rows = null;
    return rows;
  }

  /** Whether a claimer of this handle holds session `id` (its appends then carry the registry row). */
  holds(id: string): boolean {
    return this.held.has(id);
  }

  async leaseHolders(ids: readonly string[]): Promise<Map<string, LeaseHolder>> {
    const out = new Map<string, LeaseHolder>();
    if (!ids.length) return out;
    const r = (await this.d.q(this.d.sql().claimHolders, [ids])) as { rows: Array<{ id: string; body: string }> };
    for (const row of r.rows) {
      // A body that cannot be read is left out: the caller loads that session instead.
      let d: Partial<LeaseHolder> | undefined;
      try {
        d = (JSON.parse(row.body) as { data?: Partial<LeaseHolder> }).data;
      } catch {
        continue;
      }
      if (d && typeof d.token === 'number' && typeof d.host === 'string' && typeof d.pid === 'number')
        out.set(row.id, {
          owner: String(d.owner ?? ''),
          token: d.token,
          host: d.host,
          pid: d.pid,
          ...(d.boot ? { boot: d.boot } : {}),
          ...(d.detached ? { detached: true } : {}),
        });
    }
    return out;
  }

  async announce(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    // After this handle's registry rows: a woken claimer's pick must find the session claimable.
    await this.d.settle();
    await this.d.q(this.d.sql().claimAnnounce, [claimChannelOf(this.d.schema()), ids]);
  }

  listen(onWake: () => void): Promise<() => Promise<void>> {
    return this.d.listen(claimChannelOf(this.d.schema()), () => onWake());
  }
}
