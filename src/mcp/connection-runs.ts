/**
 * The runs an MCP connection holds (docs/runs.md): a connection that starts, resumes or
 * changes an active session works on it as one run of kind `mcp`, renewed on a timer while
 * connected (so a killed server is found by its run lapsing, or at once on its host by its
 * process being gone). A disconnect ends each run: with work in flight and no other run
 * live, the session is interrupted with cause `disconnected`; a session the client paused
 * or completed first is left as it is.
 */
import { isBatonError, RUN_HEARTBEAT_MS, RUN_TTL_MS } from '../manager/index.js';
import type { SessionManager } from '../manager/index.js';

/** See the file comment. */
export class ConnectionRuns {
  private readonly held = new Map<string, Promise<string | undefined>>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private disconnecting: Promise<void> | null = null;

  constructor(
    private readonly manager: () => SessionManager,
    private readonly ttlMs: number = RUN_TTL_MS,
  ) {}

  /**
   * The connection's run on session `id`, started now when it has none and the session is
   * active (a change to a paused or finished session is made outside any run: it does not
   * reopen it). Undefined when there is none.
   */
  runFor(
    id: string,
    agent: string | null,
    o: { reopen?: boolean; fencingToken?: number } = {},
  ): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    let p = this.held.get(id);
    if (!p) {
      p = this.start(id, agent, o.reopen === true, o.fencingToken);
      this.held.set(id, p);
      // A failed or skipped start is tried again by the next call.
      void p.then(
        (r) => r === undefined && this.held.get(id) === p && this.held.delete(id),
        () => this.held.get(id) === p && this.held.delete(id),
      );
    }
    return p.catch(() => undefined);
  }

  /** The run held on `id` now, if any (not starting one). */
  async current(id: string): Promise<string | undefined> {
    return this.held.get(id)?.catch(() => undefined);
  }

  /** `reopen`: start it also on a paused or interrupted session (which becomes active: a phase claim is work). */
  private async start(
    id: string,
    agent: string | null,
    reopen: boolean,
    token: number | undefined,
  ): Promise<string | undefined> {
    const m = this.manager();
    const s = await m.get(id);
    if (s.status !== 'active' && !(reopen && (s.status === 'paused' || s.status === 'interrupted'))) return undefined;
    // A server under a `baton run`'s lease (BATON_LEASE_TOKEN) starts its run under it: FENCED once lost.
    const r = await m.runs.start(id, {
      kind: 'mcp',
      agent,
      ttlMs: this.ttlMs,
      ...(token !== undefined ? { token } : {}),
    });
    this.schedule();
    return r.result.id;
  }

  /** The client paused or finished the session itself: the run ends by choice (the session keeps the status the client gave it). */
  async ended(id: string, how: 'finished' | 'paused', cause: string, agent: string | null): Promise<void> {
    const run = await this.current(id);
    this.held.delete(id);
    if (run)
      await this.manager()
        .runs.end(id, run, { how, cause }, { agent })
        .catch(() => undefined);
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    const every = Math.max(50, Math.min(RUN_HEARTBEAT_MS, Math.floor(this.ttlMs / 2)));
    this.timer = setInterval(() => void this.beat(), every);
    // A heartbeat never keeps the process alive on its own.
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    for (const [id, p] of this.held) {
      const run = await p.catch(() => undefined);
      if (!run) continue;
      try {
        await this.manager().runs.renew(id, run);
      } catch (e) {
        // Ended or lapsed (FENCED): the next change starts a new run; a store hiccup is tried again next beat.
        if (isBatonError(e, 'FENCED') && this.held.get(id) === p) this.held.delete(id);
      }
    }
  }

  /** The connection is gone: every run it holds ends (`disconnected`); no run is started after this. Idempotent. */
  disconnect(): Promise<void> {
    this.disconnecting ??= this.endAll();
    return this.disconnecting;
  }

  private async endAll(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const all = [...this.held];
    this.held.clear();
    for (const [id, p] of all) {
      const run = await p.catch(() => undefined);
      if (run)
        await this.manager()
          .runs.disconnected(id, run)
          .catch(() => undefined);
    }
  }
}
