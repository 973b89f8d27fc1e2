/**
 * `manager.hooks.subagentRan`: a sub-agent that ran inside one tool call (Gemini CLI's `invoke_agent`, which no
 * sub-agent hook event announces): the sub-agent as an agent of the phase, its files
 * attributed to it, and its tokens read from its own chat under its name (late lines are read
 * at the end of the turn: subagent-transcripts.ts).
 */
import path from 'node:path';
import { agentName } from '../../domain/agents/agent-name.js';
import type { SessionState } from '../../domain/state.js';
import type { AgentContext } from './agent-context.js';
import { findGeminiSubagentChat } from './gemini-chats.js';

/**
 * A sub-agent that ran inside one tool call: `agentId` when the payload names it (else its
 * chat is looked for), `task` its prompt, `written` the files its file tools wrote.
 */
export interface SubagentRan {
  agentId: string | null;
  agentType: string | null;
  task: string | null;
  written: string[];
}

/** What {@link subagentRan} needs: the session, the hooks' records, the work tree's root. */
interface SubagentRanDeps {
  get(id: string): Promise<SessionState>;
  hooks: {
    subagent(
      id: string,
      a: AgentContext,
      what: 'stop',
      sub: { agent: string; agentId: string; agentType: string | null; transcriptPath: string | null },
    ): Promise<SessionState>;
    files(id: string, a: AgentContext, written: string[], deleted: string[], created: string[]): Promise<unknown>;
  };
  root: string | null;
}

/** The outcome: the sub-agent's name, or null when neither the payload nor the chats name it. */
export async function subagentRan(
  m: SubagentRanDeps,
  id: string,
  a: AgentContext,
  act: SubagentRan,
): Promise<string | null> {
  const s0 = await m.get(id);
  const known = new Set((s0.subagents ?? []).map((x) => x.agentId));
  const chat = findGeminiSubagentChat(a.transcriptPath, a.agentSessionId, {
    agentId: act.agentId,
    task: act.task,
    known,
  });
  const agentId = act.agentId ?? chat?.agentId ?? null;
  if (!agentId) return null;
  const agent = agentName(a.cli, { agentId, agentType: act.agentType });
  // The tool call comes from the parent: the parent is the main agent. Stop records start and stop.
  const s = await m.hooks.subagent(id, { ...a, agent: a.cli }, 'stop', {
    agent,
    agentId,
    agentType: act.agentType,
    transcriptPath: chat?.file ?? null,
  });
  if (act.written.length) {
    // Its files were first recorded (as the main agent's) by their own AfterTool: same hash, now its name, and created stays created.
    await m.hooks.files(s.id, { ...a, agent }, act.written, [], createdOf(s, m.root ?? a.cwd ?? '.', act.written));
  }
  return agent;
}

/** Of `written`, those the session records as created (a re-attribution keeps the action). */
function createdOf(s: SessionState, root: string, written: string[]): string[] {
  const created = new Set<string>();
  const rows = [...s.phases.flatMap((p) => p.files), ...(s.looseFiles ?? [])];
  for (const f of rows) if (f.action === 'created') created.add(f.path);
  return written.filter((w) => created.has(path.relative(root, path.resolve(root, w))) || created.has(w));
}
