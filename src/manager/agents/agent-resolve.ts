/**
 * Which session a hook's conversation records go to (`manager.hooks.resolve`): BATON_SESSION,
 * else the session the conversation was bound to (the binding index's answer used unread, the
 * sessions searched when it proves stale), else the active session, else one autostarted.
 */
import { findBinding } from '../../domain/agents/agent-sessions.js';
import { isBatonError } from '../../domain/errors.js';
import { validateId } from '../../domain/ids.js';
import type { SessionState } from '../../domain/state.js';
import { FINAL_STATUSES } from '../../domain/state.js';
import type { AgentContext, BindingSource, HookManager, ResolveOptions } from './agent-context.js';
import { BindingIndex } from './agent-bindings.js';

/** A session a hook resolved to, and how. */
export interface Resolved {
  id: string;
  source: BindingSource;
}

/** See the file comment. One per hook process: it remembers whether the index proved stale. */
export class HookResolver {
  private readonly index: BindingIndex;
  /** The session the binding index named, used without reading it first (false: do not trust the index again). */
  private unverified: string | null | false = null;
  private lastResolve: { a: AgentContext; o: ResolveOptions } | null = null;

  constructor(
    private readonly m: HookManager,
    dir: string,
  ) {
    this.index = new BindingIndex(dir);
  }

  /**
   * The session a conversation's events go to: `explicit` (BATON_SESSION), else the session
   * that conversation was bound to before, else the workspace's active session, else (with
   * `autostart`) a new session named after the conversation; null when none applies.
   * Sessions that have ended or been archived are skipped.
   */
  async resolve(a: AgentContext, o: ResolveOptions): Promise<Resolved | null> {
    this.lastResolve = { a, o };
    if (o.explicit) return { id: validateId(o.explicit), source: 'env' };
    // The index's answer is used unread (a hook runs on every tool call: one load, not two);
    // the change itself refuses a session that has ended, and then the slow way is taken.
    const hinted = this.index.get(a.cli, a.agentSessionId);
    if (hinted && this.unverified !== false) {
      this.unverified = hinted;
      return { id: hinted, source: 'binding' };
    }
    return this.resolveSlowly(a, o, hinted);
  }

  /** Remembers in the binding index that the conversation's records went to session `id`. */
  remember(a: AgentContext, id: string): void {
    this.index.set(a.cli, a.agentSessionId, id);
  }

  /**
   * After a write to `id` failed with `e`: where the records go instead when `id` was the
   * index's unread answer and has ended or gone (the index is not trusted again), else null
   * (the caller rethrows `e`).
   */
  async instead(id: string, e: unknown): Promise<Resolved | null> {
    const stale =
      id === this.unverified &&
      (isBatonError(e, 'INVALID_TRANSITION') || isBatonError(e, 'NOT_FOUND')) &&
      this.lastResolve;
    if (!stale) return null;
    this.unverified = false;
    return this.resolveSlowly(stale.a, stale.o, id);
  }

  private async resolveSlowly(a: AgentContext, o: ResolveOptions, skip: string | null): Promise<Resolved | null> {
    const bound = await this.boundSession(a, skip);
    if (bound) return { id: bound, source: 'binding' };
    const active = await this.m.store.getActive();
    if (active && (await this.open(active))) return { id: active, source: 'active' };
    if (!o.autostart) return null;
    const s = await this.m.start({
      title: `${a.cli} conversation ${a.agentSessionId.slice(0, 8)}`,
      agent: a.agent,
      switch: true,
    });
    return { id: s.id, source: 'autostart' };
  }

  /** An open session holding the conversation's binding, searched (and remembered in the index). */
  private async boundSession(a: AgentContext, skip: string | null): Promise<string | null> {
    const rows = await this.m.listRows({});
    for (const row of rows.slice(0, 200)) {
      if ((FINAL_STATUSES as readonly string[]).includes(row.status) || row.id === skip) continue;
      const s = await this.open(row.id);
      if (s && findBinding(s, a.cli, a.agentSessionId)) {
        this.index.set(a.cli, a.agentSessionId, row.id);
        return row.id;
      }
    }
    return null;
  }

  /** The session if it exists and still takes changes, else null. */
  private async open(id: string): Promise<SessionState | null> {
    try {
      const s = await this.m.get(id);
      return s.archived || FINAL_STATUSES.includes(s.status) ? null : s;
    } catch (e) {
      if (isBatonError(e, 'NOT_FOUND') || isBatonError(e, 'BAD_INPUT')) return null;
      throw e;
    }
  }
}
