/**
 * Recording a sub-agent that ran inside one tool call (Gemini CLI's `invoke_agent`, which no
 * sub-agent hook event announces): the sub-agent as an agent of the phase, its files
 * attributed to it, and its tokens read from its own chat under its name (late lines are read
 * at the end of the turn: subagent-transcripts.ts).
 */
import path from 'node:path';
import type { AgentContext, SessionManager, SessionState } from '../manager/index.js';
import { agentName } from './agent-name.js';
import { findGeminiSubagentChat } from './gemini-chats.js';
import type { HookAction } from './model.js';

/** The outcome: the sub-agent's name, or null when neither the payload nor the chats name it. */
export async function recordSubagentRan(
  m: SessionManager,
  id: string,
  a: AgentContext,
  act: Extract<HookAction, { kind: 'subagent-ran' }>,
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
    await m.hooks.files(
      s.id,
      { ...a, agent },
      act.written,
      [],
      createdOf(s, m.workspace?.root ?? a.cwd ?? '.', act.written),
    );
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
