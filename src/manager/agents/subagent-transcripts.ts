/**
 * Sub-agents' own transcripts, read again at the end of a turn, of the conversation, and when
 * the conversation died (salvage): a CLI may write a sub-agent's last lines after the hook
 * that reported it (Claude Code appends to the sub-agent transcript after SubagentStop; Gemini
 * CLI's sub-agent chat outlives `invoke_agent`'s AfterTool), and a conversation that died may
 * have had a sub-agent mid-work. The ingestion's remembered offset counts each response once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionState } from '../../domain/state.js';
import type { IngestInput, IngestResult } from './transcripts.js';

/** One sub-agent transcript file. */
export interface GeminiChat {
  agentId: string;
  file: string;
}

/**
 * Gemini CLI sub-agents' chats (`<chats>/<session_id>/<sub-agent id>.jsonl`, beside the
 * conversation's chat); none when the folder is missing.
 */
export function geminiSubagentChats(transcriptPath: string | null, sessionId: string): GeminiChat[] {
  if (!transcriptPath) return [];
  const dir = path.join(path.dirname(transcriptPath), sessionId);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => ({ agentId: n.slice(0, -'.jsonl'.length), file: path.join(dir, n) }));
}

/** What reading sub-agent transcripts needs of the manager. */
export interface SubagentReader {
  get(id: string): Promise<SessionState>;
  readonly transcripts: { ingest(sessionId: string, input: IngestInput): Promise<unknown> };
}

/** The conversation whose sub-agents are read. */
export interface ConversationFiles {
  cli: string;
  transcriptPath: string | null;
  agentSessionId: string;
}

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
 * Returns the tokens read (input, output, cache read and write).
 */
export async function ingestSubagentTranscripts(
  m: SubagentReader,
  id: string,
  a: ConversationFiles,
  warn: (message: string) => void,
): Promise<number> {
  const files = subagentTranscripts(a.cli, a.transcriptPath, a.agentSessionId);
  if (!files.length) return 0;
  let read = 0;
  const s = await m.get(id);
  const cli = a.cli === 'claude' ? 'claude' : 'gemini';
  for (const f of files) {
    const sub = s.subagents?.find((x) => x.agentId === f.agentId);
    if (!sub) continue;
    try {
      // The sub-agent's tokens go to the phase it worked on (its run's phase when it started).
      const phaseId = sub.phaseId;
      const r = (await m.transcripts.ingest(s.id, {
        cli,
        path: f.file,
        agent: sub.agent,
        agentSessionId: a.agentSessionId,
        ...(phaseId ? { phaseOf: () => phaseId } : {}),
      })) as Partial<IngestResult> | undefined;
      read += (r?.input ?? 0) + (r?.output ?? 0) + (r?.cacheRead ?? 0) + (r?.cacheWrite ?? 0);
    } catch (e) {
      warn(`transcript ${f.file} not read: ${(e as Error).message}`);
    }
  }
  return read;
}
