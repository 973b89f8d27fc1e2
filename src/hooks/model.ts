/**
 * The one internal model of an agent CLI hook event. Each CLI's normaliser (claude.ts,
 * codex.ts, gemini.ts) turns its payload into a {@link HookEvent}; the recorder only ever
 * sees this shape.
 */

/** The CLIs `baton hook` receives. */
export type HookCli = 'claude' | 'codex' | 'gemini';
export const HOOK_CLIS: readonly HookCli[] = ['claude', 'codex', 'gemini'];

/** One item of the agent's own todo list. */
export interface HookStep {
  name: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
}

/** What happened, as far as baton cares. */
export type HookAction =
  | { kind: 'session-start'; source: string }
  | { kind: 'prompt'; prompt: string | null }
  /** A file tool wrote (or a patch deleted) these paths (absolute or relative to cwd). */
  | {
      kind: 'files';
      tool: string;
      written: string[];
      deleted: string[] /** Of `written`, the new files, when the CLI says (null: unknown). */;
      created: string[] | null;
    }
  | { kind: 'plan'; tool: string; steps: HookStep[] }
  | { kind: 'tool-failed'; tool: string; message: string }
  /**
   * Any other tool call: nothing is recorded unless tool outputs are opted in, or it is a
   * shell command (`command`) that ran `baton phase start|claim` (the conversation takes that phase).
   */
  | { kind: 'tool'; tool: string; output: string | null; command?: string | null }
  /** A call of Claude Code's task tools (TaskCreate, TaskUpdate, TaskList): the plan is their fold. */
  | { kind: 'tasks'; tool: string; call: { id: string; tool: string; input: Json; response: unknown } }
  | { kind: 'subagent-start'; agentId: string; agentType: string | null }
  | { kind: 'subagent-stop'; agentId: string; agentType: string | null; transcriptPath: string | null }
  /**
   * A sub-agent that ran inside one tool call (Gemini CLI's `invoke_agent`): started and
   * stopped at once. `agentId` when the payload names it (else the recorder looks for its
   * chat), `task` its prompt, `written` the files its file tools wrote (per the payload).
   */
  | {
      kind: 'subagent-ran';
      tool: string;
      agentId: string | null;
      agentType: string | null;
      task: string | null;
      written: string[];
    }
  /** A tool is about to run (PreToolUse, Gemini BeforeTool): the budgets may put it to the user or refuse it. */
  | { kind: 'pre-tool'; tool: string; callId: string | null }
  /** The agent finished its turn (Claude/Codex Stop, Gemini AfterAgent). */
  | { kind: 'stop' }
  | { kind: 'compact'; trigger: string | null }
  | { kind: 'session-end'; reason: string | null }
  /** An event baton does not use (BeforeModel, Notification …). */
  | { kind: 'ignored' };

/** A normalised hook event. */
export interface HookEvent {
  cli: HookCli;
  /** The event name as the CLI sent it. */
  event: string;
  /** The CLI's conversation id (null when the payload had none: nothing can be bound). */
  agentSessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  model: string | null;
  /** Who did it: `claude`, or a sub-agent `claude/<type>#<id8>` (agent-name.ts). */
  agent: string;
  action: HookAction;
}

/** A JSON object read from a payload (anything else reads as empty). */
export type Json = Record<string, unknown>;

/** A string field, or null. */
export function str(o: Json, key: string): string | null {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : null;
}

/** An object field, or an empty object. */
export function obj(o: Json, key: string): Json {
  const v = o[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

/** A shell command that may start or claim a phase (phaseFromCommand in the manager reads it exactly). */
export const BATON_PHASE_COMMAND = /\bbaton(\.cjs)?['"]?\s+(\S+\s+)*phase\s+(start|claim)\b/;

/** Whether an action leads to a write in the store (else the hook answers without opening it). */
export function recordsSomething(a: HookAction, capture: { prompts: boolean; toolOutputs: boolean }): boolean {
  if (a.kind === 'ignored') return false;
  if (a.kind === 'prompt') return capture.prompts && a.prompt !== null;
  if (a.kind === 'tool')
    return (capture.toolOutputs && a.output !== null) || (!!a.command && BATON_PHASE_COMMAND.test(a.command));
  return true;
}
