/**
 * Waiting for a conversation's transcript to hold the tool call a hook is about to judge.
 * Claude Code fires PreToolUse while it may still be writing the assistant message that asks
 * for the call (with that response's token use) to the transcript: judged before that line
 * lands, a budget would let through the very call that passes it.
 */
import fs from 'node:fs';

/** How much of the transcript's end is searched for the call's id: the message that asks for it is the last one. */
const TAIL_BYTES = 256 * 1024;

/** True when the last {@link TAIL_BYTES} of `file` contain `needle`; false when they do not or the file cannot be read. */
function tailHolds(file: string, needle: string): boolean {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    return buf.includes(needle);
  } catch {
    return false;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * Resolves once transcript `file` holds tool call `callId` (its `tool_use` block's id), or after
 * `timeoutMs` (then the caller judges on what is there: a transcript that never names the call
 * costs one wait, not a refusal). Checks every `pollMs`.
 */
export async function waitForCall(file: string, callId: string, timeoutMs = 1000, pollMs = 20): Promise<boolean> {
  const needle = JSON.stringify(callId);
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (tailHolds(file, needle)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
