/**
 * Gemini CLI sub-agents' own chats. The CLI writes a conversation's chat to
 * `<home>/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (the hooks' transcript_path)
 * and each sub-agent's to `…/chats/<session_id>/<sub-agent id>.jsonl` (first line
 * `kind: "subagent"`, then its task as the first user message). Found here so their tokens
 * are read under the sub-agent's name.
 */
import fs from 'node:fs';
import { geminiSubagentChats } from './subagent-transcripts.js';
import type { GeminiChat } from './subagent-transcripts.js';

/** How much of a chat's start is read to find its task. */
const HEAD_BYTES = 64 * 1024;

/**
 * The chat of the sub-agent a tool call ran: the one named `agentId` when the payload gave
 * it, else, among the chats not yet recorded (`known`), the newest whose task is `task`
 * (else the newest one). Null when there is none.
 */
export function findGeminiSubagentChat(
  transcriptPath: string | null,
  sessionId: string,
  want: { agentId: string | null; task: string | null; known: ReadonlySet<string> },
): GeminiChat | null {
  const chats = geminiSubagentChats(transcriptPath, sessionId);
  if (want.agentId) return chats.find((c) => c.agentId === want.agentId) ?? null;
  const fresh = chats
    .filter((c) => !want.known.has(c.agentId))
    .map((c) => ({ ...c, mtime: mtimeOf(c.file) }))
    .sort((a, b) => b.mtime - a.mtime);
  const needle = want.task === null ? null : JSON.stringify(want.task);
  const byTask = needle === null ? undefined : fresh.find((c) => head(c.file).includes(needle.slice(1, -1)));
  const pick = byTask ?? fresh[0];
  return pick ? { agentId: pick.agentId, file: pick.file } : null;
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** The first bytes of a chat (its header and first user message). */
function head(file: string): string {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}
