/**
 * `baton otel follow`: sends each span as soon as the journal closes it, for every session of
 * the store (or one), and remembers in the store how far it got: per session and destination,
 * a cursor `otel.<destination>.<session>` holding the seq up to which every closed span was
 * delivered. A restart (or another machine sharing the store) re-plans a session from its
 * journal and sends only the spans closed after the cursor, so nothing is dropped and nothing
 * sent twice; the cursor moves only after the collector took the spans. A collector that is
 * down is retried with back-off, the place kept, and the backlog sent when it is back.
 */
import { BatonError, isBatonError } from '../manager/index.js';
import type { SessionManager } from '../manager/index.js';
import { MAX_BACKOFF_MS } from './config.js';
import { planSession } from './export.js';
import type { Sender, Sleep } from './sender.js';
import { resourceOf, toReadableSpan } from './spans.js';

/** What one delivery of a session's new spans did. */
export interface FollowSent {
  sessionId: string;
  spans: number;
  /** The session's journal is sent up to this seq. */
  through: number;
}

/** Options of {@link Follower}. */
export interface FollowOptions {
  manager: SessionManager;
  sender: Sender;
  /** Names the destination in the cursors (default: derived from the endpoint). */
  destination: string;
  /** Only this session; null: every session of the store. */
  sessionId: string | null;
  /** At start, sessions never sent to this destination and unchanged since then are left out. */
  since?: Date | null;
  onSent: (s: FollowSent) => void;
  onWarning: (message: string) => void;
  sleep?: Sleep;
}

/** The cursor of one session for one destination. */
export function cursorName(destination: string, sessionId: string): string {
  return `otel.${destination}.${sessionId}`;
}

function seqOf(raw: string | null): number {
  if (raw === null) return 0;
  try {
    const v = (JSON.parse(raw) as { seq?: unknown }).seq;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  } catch {
    // reported below
  }
  throw new BatonError('CORRUPT', `An otel cursor holds ${JSON.stringify(raw.slice(0, 100))}, not a position.`, {
    hint: 'Delete the cursor (its file under .baton/cursors/, or its row) to send that session again from the start.',
  });
}

function seqOfOrZero(raw: string): number {
  try {
    return seqOf(raw);
  } catch {
    return 0; // reported when the session is delivered
  }
}

/** Follows a store: {@link start}, then {@link stop}. */
export class Follower {
  private readonly pending = new Set<string>();
  private draining: Promise<void> | null = null;
  private stopped = false;
  private stopWatch: (() => Promise<void>) | null = null;
  private wake: (() => void) | null = null;
  private down = false;
  /** Next back-off of each session that failed on its own, and the timers that will queue it again. */
  private readonly retries = new Map<string, number>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private fail!: (e: unknown) => void;
  /** Rejects when following cannot go on (a bug, not a collector or store that is away). */
  readonly failure = new Promise<never>((_, reject) => (this.fail = reject));

  constructor(private readonly o: FollowOptions) {
    this.failure.catch(() => undefined);
  }

  /** Starts watching, then queues every session (those already sent up to their revision are skipped). */
  async start(): Promise<void> {
    const m = this.o.manager;
    // Read first (STORE_UNAVAILABLE on a store without cursors, STORE_READ_ONLY on one that
    // cannot keep them, before anything starts).
    m.cursors.checkWritable();
    const prefix = `otel.${this.o.destination}.`;
    const done = new Map((await m.cursors.list(prefix)).map((c) => [c.name.slice(prefix.length), c.value]));
    // Watching starts before the sessions are listed: whatever is appended from here on is
    // announced, and what was there before is caught up below.
    this.stopWatch = await m.watch({
      sessionId: this.o.sessionId,
      onChange: (c) => this.enqueue(c.sessionId),
      onWarning: this.o.onWarning,
    });
    const rows = this.o.sessionId
      ? [{ id: this.o.sessionId, revision: Number.POSITIVE_INFINITY }]
      : await m.list({ all: true });
    const since = this.o.since ? this.o.since.getTime() : null;
    for (const r of rows) {
      const raw = done.get(r.id) ?? null;
      if (raw === null && since !== null && 'updatedAt' in r && Date.parse(r.updatedAt) < since) continue;
      if (raw === null || seqOfOrZero(raw) < r.revision) this.enqueue(r.id);
    }
  }

  private enqueue(id: string): void {
    if (this.stopped) return;
    this.pending.add(id);
    this.kick();
  }

  /** Starts draining unless it runs; a session queued while a drain was ending starts the next one. */
  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain()
      .catch((e: unknown) => this.fail(e))
      .finally(() => {
        this.draining = null;
        if (!this.stopped && this.pending.size) this.kick();
      });
  }

  /**
   * Works through the queue. The collector away (`EXPORT_FAILED`): the session goes back in
   * and the whole queue waits, doubling the wait each time. A session that cannot be read or
   * whose cursor cannot be moved now (busy, moved by another follower, damaged until `baton
   * doctor --fix`): that session alone is tried again later, with its own back-off.
   */
  private async drain(): Promise<void> {
    let wait = this.o.sender.config.backoffMs;
    while (!this.stopped && this.pending.size) {
      const id = this.pending.values().next().value as string;
      this.pending.delete(id);
      try {
        await this.deliver(id);
        this.retries.delete(id);
        if (this.down) this.o.onWarning(`The collector at ${this.o.sender.config.url} takes spans again; caught up.`);
        this.down = false;
        wait = this.o.sender.config.backoffMs;
      } catch (e) {
        if (!isBatonError(e)) throw e;
        if (e.code !== 'EXPORT_FAILED') {
          this.retryLater(id, e);
          continue;
        }
        this.pending.add(id);
        this.o.onWarning(`${e.message} Keeping the place; trying again in ${wait} ms.`);
        this.down = true;
        await this.pause(wait);
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Queues session `id` again after its own back-off. */
  private retryLater(id: string, e: BatonError): void {
    const wait = this.retries.get(id) ?? this.o.sender.config.backoffMs;
    this.retries.set(id, Math.min(wait * 2, MAX_BACKOFF_MS));
    this.o.onWarning(`Session ${id} not sent now (${e.code}): ${e.message} Trying again in ${wait} ms.`);
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(id);
    }, wait);
    this.timers.add(t);
  }

  /** Waits `ms`, or less when stopped (new changes do not cut a back-off short: the collector is away). */
  private async pause(ms: number): Promise<void> {
    const sleep = this.o.sleep ?? ((t: number) => new Promise<void>((resolve) => setTimeout(resolve, t)));
    await Promise.race([sleep(ms), new Promise<void>((resolve) => (this.wake = resolve))]);
    this.wake = null;
  }

  /** Sends the spans of session `id` closed after its cursor, then moves the cursor. */
  private async deliver(id: string): Promise<void> {
    const m = this.o.manager;
    const name = cursorName(this.o.destination, id);
    const raw = await m.cursors.get(name);
    const from = seqOf(raw);
    let plan: Awaited<ReturnType<typeof planSession>>;
    try {
      plan = await planSession(m, id, (s) => s.closedAt > from);
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND')) return; // deleted meanwhile: nothing left to send
      throw e;
    }
    if (plan.revision <= from) return;
    // Nothing closed and spans still open: keep the cursor where it is (no write per lease renewal).
    if (!plan.spans.length && plan.open > 0) return;
    const resource = resourceOf(this.o.sender.config.resource);
    if (plan.spans.length)
      await this.o.sender.send(
        plan.spans.map((s) => toReadableSpan(id, s, resource)),
        undefined,
        0,
      );
    await m.cursors.put(name, JSON.stringify({ seq: plan.revision }), raw);
    if (plan.spans.length) this.o.onSent({ sessionId: id, spans: plan.spans.length, through: plan.revision });
  }

  /** Stops watching and waits for the delivery in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.wake?.();
    await this.stopWatch?.();
    await this.draining?.catch(() => undefined);
  }

  /** Resolves when the queue is empty (tests and `--once`). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }
}
