/**
 * Sub-agents' own transcripts, read again at the end of a turn and of the conversation: a CLI
 * may write a sub-agent's last lines after the hook that reported it (Claude Code appends to
 * the sub-agent transcript after SubagentStop; Gemini CLI's sub-agent chat outlives
 * `invoke_agent`'s AfterTool). The ingestion's remembered offset counts each response once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentContext, SessionManager } from '../manager/index.js';
import { geminiSubagentChats } from './gemini-chats.js';
import type { GeminiChat } from './gemini-chats.js';

/**
 * The sub-agent transcripts of a conversation by sub-agent id: Claude Code's
 * `<transcript without .jsonl>/subagents/agent-<id>.jsonl`, Gemini CLI's
 * `<chats>/<session_id>/<id>.jsonl`; none for Codex (its sub-agents have rollouts of their own).
 */
export function subagentTranscripts(cli: string, transcriptPath: string | null, sessionId: string): GeminiChat[] {
  if (!transcriptPath) return [];
  if (cli === 'gemini') return geminiSubagentChats(transcriptPath, sessionId);
  if (cli !== 'claude') return [];
  const dir = path.join(transcriptPath.replace(/\.jsonl$/, ''), 'subagents');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl'))
    .sort()
    .map((n) => ({ agentId: n.slice('agent-'.length, -'.jsonl'.length), file: path.join(dir, n) }));
}

/**
 * Reads new lines of every recorded sub-agent's transcript of this conversation, under the
 * sub-agent's name. A transcript of a sub-agent the session has not recorded is left alone (its
 * name is unknown). Problems become warnings: tokens not read now are read at the next call.
 */
export async function ingestSubagentTranscripts(
  m: SessionManager,
  id: string,
  a: AgentContext,
  warn: (message: string) => void,
): Promise<void> {
  const files = subagentTranscripts(a.cli, a.transcriptPath, a.agentSessionId);
  if (!files.length) return;
  const s = await m.get(id);
  const cli = a.cli === 'claude' ? 'claude' : 'gemini';
  for (const f of files) {
    const sub = s.subagents?.find((x) => x.agentId === f.agentId);
    if (!sub) continue;
    try {
      // The sub-agent's tokens go to the phase it worked on (its run's phase when it started).
      const phaseId = sub.phaseId;
      await m.transcripts.ingest(s.id, {
        cli,
        path: f.file,
        agent: sub.agent,
        agentSessionId: a.agentSessionId,
        ...(phaseId ? { phaseOf: () => phaseId } : {}),
      });
    } catch (e) {
      warn(`transcript ${f.file} not read: ${(e as Error).message}`);
    }
  }
}
