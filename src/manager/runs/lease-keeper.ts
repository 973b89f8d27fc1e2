/**
 * Keeping a lease alive while a run works (`manager.runs.hold`, and through it `baton run`):
 * heartbeats, and what happens when they stop working.
 */
import { isBatonError } from '../../domain/errors.js';

/** What the keeper reports to the run it keeps alive. */
export interface LeaseKeeperEvents {
  /** The lease is gone for good (FENCED): stop the command. Called once. */
  onLost(reason: string): void;
  /** The lease ran out by the store's clock without a renewal (store unreachable): stop the command. Called once. */
  onLapsed(expiresAt: string): void;
  /** A heartbeat failed for a reason that may pass (the store unreachable). */
  onTrouble(message: string): void;
}

/** One renewal, and the clock leases are judged by (the store's, measured at each renewal). */
export interface LeaseBeat {
  /** Renews; resolves to the new expiry. FENCED once the lease is lost. */
  renew(): Promise<string | undefined>;
  /** The time now by the clock expiry is judged by. */
  now(): string;
}

/**
 * Keeps a run's lease: renews it every `heartbeatMs` by the store's clock, each renewal
 * given at most `heartbeatMs` before the next is tried (a renewal stuck on a cut link must
 * not hold the others back). The lease is `lost` once a renewal is FENCED (another
 * worker took the session, or it expired and the store refuses it), and `lapsed` once the
 * store's clock, as last measured, passes its expiry without a renewal: the holder stops
 * working then, before anyone can take over, instead of when it hears of it.
 */
export class LeaseKeeper {
  /** Why the lease was lost (FENCED), or null. */
  lost: string | null = null;
  /** The expiry that passed without a renewal, or null. */
  lapsed: string | null = null;
  private expiresAt: string;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly beat1: LeaseBeat,
    private readonly o: { ttlMs: number; heartbeatMs: number; expiresAt: string },
    private readonly on: LeaseKeeperEvents,
  ) {
    this.expiresAt = o.expiresAt;
  }

  /** Starts renewing. */
  start(): void {
    this.schedule();
  }

  /** Stops renewing (a renewal in flight is left to finish). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * After a lapse: renews until the store answers for sure (FENCED: lost; renewed: held
   * again) or `deadlineMs` passes. True when the answer came.
   */
  async settle(deadlineMs: number): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    while (this.lost === null && this.lapsed !== null && Date.now() < until) {
      await this.beat();
      if (this.lost === null && this.lapsed !== null)
        await new Promise((r) => setTimeout(r, Math.min(this.o.heartbeatMs, 1000)));
    }
    return this.lost !== null || this.lapsed === null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.beat().finally(() => this.schedule());
    }, this.o.heartbeatMs);
  }

  /**
   * One renewal attempt, waited for at most a heartbeat; then the lapse check. An attempt
   * still hanging then (a statement sent into a cut link waits for TCP to give up) is left
   * to finish on its own and the next beat tries again on another connection: renewals are
   * conditional appends, so a late one that lands is harmless.
   */
  private async beat(): Promise<void> {
    const attempt = this.renew();
    let t: NodeJS.Timeout | undefined;
    await Promise.race([attempt, new Promise<void>((r) => (t = setTimeout(r, this.o.heartbeatMs)))]);
    clearTimeout(t);
    if (this.lost === null && this.lapsed === null && Date.parse(this.beat1.now()) >= Date.parse(this.expiresAt)) {
      this.lapsed = this.expiresAt;
      this.on.onLapsed(this.expiresAt);
    }
  }

  private async renew(): Promise<void> {
    try {
      const next = await this.beat1.renew();
      // Attempts may finish out of order: keep the latest expiry.
      if (next && Date.parse(next) > Date.parse(this.expiresAt)) this.expiresAt = next;
      this.lapsed = null;
    } catch (e) {
      if (isBatonError(e, 'FENCED')) {
        if (this.lost === null) {
          this.lost = e.message;
          this.on.onLost(e.message);
        }
      } else {
        this.on.onTrouble((e as Error).message);
      }
    }
  }
}
