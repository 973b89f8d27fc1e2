import { isBatonError } from '../manager/index.js';
import { ConnectionRuns } from './connection-runs.js';
import type { SessionManager } from '../manager/index.js';

/** What the tools, resources and prompts of one server share. */
export interface ServerOptions {
  /**
   * The manager every call goes through (the same one the CLI uses), or a function that
   * opens it: `create` is true only for `session_start`, so a server started in a folder
   * without a store creates one only when a session is started (as `baton start` does).
   */
  manager: SessionManager | ((create: boolean) => SessionManager);
  /** Agent named by `--agent` / BATON_AGENT: used when a call names none. */
  agentFallback?: string | null;
  /** Session named by BATON_SESSION: used when a call names none, before the active one. */
  session?: string | null;
  /**
   * Fencing token of the lease `baton run` holds on `session` (BATON_LEASE_TOKEN): writes to
   * that session carry it, so once the run has lost its lease they are refused (FENCED), as
   * the CLI's are. Writes to other sessions do not carry it.
   */
  fencingToken?: number | null;
  /** The clock for "now" in views; default: the manager's. */
  clock?: () => Date;
  /** Problems that did not stop a call. */
  onWarning?: (message: string) => void;
  /** How long the connection's runs live after each renewal (default 60 s; the server renews them every half of it). */
  runTtlMs?: number;
}

/** Change options of a tool call. */
export interface ChangeFields {
  agent: string | null;
  expectedRevision?: number;
  fencingToken?: number;
  run?: string;
}

/** The per-server helpers tool bodies use. */
export class Kit {
  private readonly clientName: () => string | null;
  /** The runs this connection holds, one per session it works on. */
  readonly runs: ConnectionRuns;

  constructor(
    readonly o: ServerOptions,
    clientName: () => string | null,
  ) {
    this.clientName = clientName;
    this.runs = new ConnectionRuns(() => this.manager(), o.runTtlMs);
  }

  /** The manager; `create` makes the store when there is none (session_start only). */
  manager(create = false): SessionManager {
    return typeof this.o.manager === 'function' ? this.o.manager(create) : this.o.manager;
  }

  /**
   * Reads with the manager, or gives `none` when the workspace has no store yet: a fresh
   * project simply has no sessions, and clients list them on connect. Only for listings; a
   * call on a session keeps NO_STORE (there is no such session to act on).
   */
  async unlessNoStore<T>(read: (m: SessionManager) => Promise<T>, none: T): Promise<T> {
    try {
      return await read(this.manager());
    } catch (e) {
      if (isBatonError(e, 'NO_STORE')) return none;
      throw e;
    }
  }

  /** The agent a call is attributed to: its `agent`, else --agent/BATON_AGENT, else the client's name. */
  agent(explicit?: string | null): string | null {
    return explicit ?? this.o.agentFallback ?? this.clientName() ?? null;
  }

  /** The session a call acts on: its `session`, else the server's, else the active one. */
  session(explicit?: string | null): Promise<string> {
    return this.manager().resolve(explicit ?? (this.o.session || null));
  }

  /**
   * Change options for a call on session `id` from its common fields; the change is made in
   * the connection's run on it (started by the first change of an active session).
   */
  async change(
    args: { agent?: string | undefined; ifRevision?: number | undefined },
    id: string,
  ): Promise<ChangeFields> {
    const o = this.fields(args, id);
    const run = await this.runs.runFor(
      id,
      o.agent,
      o.fencingToken !== undefined ? { fencingToken: o.fencingToken } : {},
    );
    return run ? { ...o, run } : o;
  }

  /** {@link change} without starting a run (pause, complete: the run held, if any, is named). */
  async changeHeld(
    args: { agent?: string | undefined; ifRevision?: number | undefined },
    id: string,
  ): Promise<ChangeFields> {
    const o = this.fields(args, id);
    const run = await this.runs.current(id);
    return run ? { ...o, run } : o;
  }

  private fields(args: { agent?: string | undefined; ifRevision?: number | undefined }, id: string): ChangeFields {
    const token = this.o.fencingToken;
    return {
      agent: this.agent(args.agent),
      ...(args.ifRevision === undefined ? {} : { expectedRevision: args.ifRevision }),
      ...(token !== undefined && token !== null && this.o.session && id === this.o.session
        ? { fencingToken: token }
        : {}),
    };
  }

  /** Now, as ISO-8601. */
  now(): string {
    return this.o.clock ? this.o.clock().toISOString() : this.manager().time();
  }

  /**
   * After a call that changed something, once its response is on its way: the derived files
   * (handoff.md, mirrors) of the sessions it changed are refreshed when the event loop turns
   * (DerivedFiles.flushSoon), off the acknowledgement path; calls in a burst share one refresh.
   * A workspace without a store (a refused session_start) has nothing to refresh.
   */
  changedSoon(): void {
    this.existingManager()?.derivedFiles.flushSoon();
  }

  /** Resolves once the derived-file refreshes scheduled so far are done (before the store closes). */
  async settled(): Promise<void> {
    await this.existingManager()?.derivedFiles.settled();
  }

  private existingManager(): SessionManager | null {
    try {
      return this.manager();
    } catch {
      return null;
    }
  }
}
