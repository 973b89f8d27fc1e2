/**
 * The types the parts of `manager.hooks` share (agent-hooks.ts, agent-resolve.ts,
 * agent-lifecycle.ts): the conversation a hook event comes from, and what the hooks use of
 * the manager. Kept apart so that those files do not import each other in a circle.
 */
import type { SessionState } from '../../domain/state.js';
import type { Runs } from '../runs/runs.js';
import type { IngestInput } from './transcripts.js';
import type { ManagerCore } from '../types.js';

/** The conversation a hook event comes from. */
export interface AgentContext {
  cli: string;
  agentSessionId: string;
  transcriptPath: string | null;
  model: string | null;
  /** The conversation's working folder (file paths are resolved against it). */
  cwd: string | null;
  /** The agent that acted: `claude`, or a sub-agent `claude/<type>#<id8>`. */
  agent: string;
  /** The agent CLI's own process (the hook's nearest ancestor that is not a shell): the conversation's run lives while it does. */
  pid?: number | null;
  /** BATON_PHASE in the CLI's environment: the phase the conversation works on. */
  phase?: string | null;
}

/** How a hook found its session (see `AgentHooks.resolve`). */
export type BindingSource = 'env' | 'binding' | 'active' | 'autostart';

/** Options of `AgentHooks.resolve`. */
export interface ResolveOptions {
  /** BATON_SESSION, when set. */
  explicit: string | null;
  /** Start a session for a conversation that has none (BATON_HOOK_AUTOSTART). */
  autostart: boolean;
}

/**
 * What the hooks use of the manager (SessionManager has it all; named here, not imported,
 * so that the manager and its parts do not import each other).
 */
export interface HookManager extends ManagerCore {
  listRows(filter: Record<string, never>): Promise<Array<{ id: string; status: string }>>;
  start(input: { title: string; agent?: string | null; switch?: boolean }): Promise<SessionState>;
  readonly checkpoints: ManagerCore['checkpoints'] & {
    create(
      sessionId: string,
      input: { name?: string | null },
      o?: { agent?: string | null },
    ): Promise<{ state: SessionState; checkpoint: { id: string } }>;
  };
  readonly transcripts: {
    ingest(sessionId: string, input: IngestInput): Promise<unknown>;
  };
  readonly runs: Runs;
}
