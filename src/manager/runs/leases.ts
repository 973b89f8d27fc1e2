import {
  decideAcquire,
  decideRelease,
  decideRenew,
  effectiveStatus,
  holderGoneEvents,
  leaseExpired,
  leaseOf,
} from '../../domain/runs/lease.js';
import type { GoneHolder, Lease } from '../../domain/runs/lease.js';
import type { SessionState } from '../../domain/state.js';
import { groupAlive, processAlive } from './process-check.js';
import type { ChangeResult, ManagerCore as SessionManager } from '../types.js';

/** Options for taking a lease. */
export interface AcquireOptions {
  owner: string;
  ttlMs: number;
  /** Take the lease even though another owner's lease is still valid. */
  force?: boolean;
  agent?: string | null;
}

/**
 * The leases of sessions (`manager.leases`): who works on a session now (`baton run`), fenced
 * by a token that goes up with each new holder, so a writer that lost its lease is refused
 * (FENCED).
 */
export class Leases {
  constructor(private readonly m: SessionManager) {}

  /**
   * The holder of `lease` when it is known to be gone: it ran on this machine (same host) and
   * its process no longer exists, or the machine has rebooted since it took the lease (the
   * boot id differs, so a pid reused since is not taken for it). Null when it may still run:
   * another machine's, this process's own, a detached lease (`baton claim`'s), an expired one,
   * and one whose run (in `s`) started a command that still runs in its process group: the
   * holder is gone only when the whole group is (an orphan is refused at takeover, orphans.ts).
   */
  holderGone(lease: Lease | null, s?: SessionState): GoneHolder | null {
    if (!lease || lease.detached) return null;
    const { pid, host, boot } = this.m.origin;
    if (lease.host !== host || lease.pid === pid || leaseExpired(lease, this.m.time())) return null;
    if (lease.boot && boot && lease.boot !== boot) return { pid: lease.pid, host: lease.host, reason: 'rebooted' };
    if (processAlive(lease.pid)) return null;
    const run = s?.runs?.find((r) => r.token === lease.token && r.process.pgid);
    return run && groupAlive(run.process.pgid!) ? null : { pid: lease.pid, host: lease.host, reason: 'exited' };
  }

  /**
   * Ends the lease of session `id` at once when its holder is gone ({@link holderGone}),
   * recording why; an active session becomes interrupted (cause `holder-gone`). Then it can
   * be resumed or claimed without waiting for the lease to expire. Returns the holder ended,
   * or null when there was nothing to end. Called by `resume --apply`, `claim` and `run`.
   */
  async endGoneHolder(id: string, agent: string | null = null): Promise<GoneHolder | null> {
    const m = this.m;
    const s = await m.get(id);
    const lease = leaseOf(s);
    const gone = this.holderGone(lease, s);
    if (!gone) return null;
    const r = await m.change(
      id,
      (s) => ({ events: holderGoneEvents(s, lease!.token, gone, m.time()), result: undefined }),
      { agent },
    );
    return r.events.length ? gone : null;
  }

  /** Takes the session's lease; the result is the lease (with its fencing token). */
  async acquire(id: string, o: AcquireOptions): Promise<ChangeResult<Lease>> {
    const m = this.m;
    const { pid, host, boot } = m.origin;
    return m
      .change(
        id,
        (s) => {
          const events = decideAcquire(
            s,
            { owner: o.owner, pid, host, boot, ttlMs: o.ttlMs, now: m.time() },
            o.force === true,
          );
          return { events, result: null as unknown as Lease };
        },
        { agent: o.agent ?? null },
      )
      .then((r) => ({ ...r, result: leaseOf(r.state)! }));
  }

  /** Renews the lease held with `token` (heartbeat). FENCED once it was lost. */
  renew(id: string, token: number, ttlMs: number): Promise<ChangeResult<undefined>> {
    return this.m.change(id, (s) => ({ events: decideRenew(s, token, ttlMs, this.m.time()), result: undefined }));
  }

  /**
   * The lease a worker may go on with instead of taking a new one: the session's current,
   * unexpired lease carries `token` (BATON_LEASE_TOKEN) and was taken by a process of this
   * machine that has ended (`baton claim` takes it and exits). A lease whose holder still runs
   * (a `baton run` around this one) is not handed over. Null otherwise.
   */
  async adoptable(id: string, token: number): Promise<Lease | null> {
    const m = this.m;
    const s = await m.get(id);
    const lease = leaseOf(s);
    if (!lease || lease.token !== token || effectiveStatus(s, m.time()).status !== 'active') return null;
    if (lease.host !== m.origin.host || lease.pid === m.origin.pid || processAlive(lease.pid)) return null;
    return lease;
  }

  /** Goes on with the lease held with `token` (see {@link adoptable}): renews it now. FENCED once lost. */
  async adopt(id: string, token: number, ttlMs: number, agent: string | null): Promise<Lease> {
    const r = await this.m.change(
      id,
      (s) => ({ events: decideRenew(s, token, ttlMs, this.m.time()), result: undefined }),
      { agent, fencingToken: token },
    );
    return leaseOf(r.state)!;
  }

  /** Releases the lease held with `token`. */
  release(id: string, token: number): Promise<ChangeResult<undefined>> {
    return this.m.change(id, (s) => ({ events: decideRelease(s, token, this.m.time()), result: undefined }));
  }

  /**
   * Judges leases by the store's clock when it has one (PostgreSQL: the server's), so a
   * holder's renewals and every claimer's view of expiry use one clock whatever the hosts'
   * clocks say. Measured again at each call (a heartbeat), so drift is followed.
   */
  async useStoreClock(): Promise<void> {
    const store = this.m.store;
    if (store.serverTime) await this.m.syncClock(() => store.serverTime!());
  }

  /** The manager's clock (the store's, after {@link useStoreClock}), as ISO-8601. */
  now(): string {
    return this.m.time();
  }

  /** The status readers should see now (an expired lease reads as interrupted). */
  status(s: SessionState): ReturnType<typeof effectiveStatus> {
    return effectiveStatus(s, this.m.time());
  }
}
