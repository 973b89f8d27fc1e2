/**
 * Reads the hook payload from stdin, bounded in size and time. A payload over the limit is
 * drained (so the agent CLI's write does not fail on a closed pipe) but not kept or parsed:
 * a 20 MB payload must not cost a 20 MB JSON parse on every tool call.
 */
import fs from 'node:fs';

/** Default payload limit: larger than any hook payload but one carrying a huge file's content. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
/** Longest the hook waits for stdin to end. */
export const DEFAULT_STDIN_TIMEOUT_MS = 5000;

/** What was read. */
export interface Payload {
  /** The text, or null when it was over the limit (or stdin could not be read). */
  text: string | null;
  /** Bytes seen in all (kept or not). */
  bytes: number;
  /** Why `text` is null: `too-large`, `timeout`, `unreadable`. */
  problem: 'too-large' | 'timeout' | 'unreadable' | null;
}

/** Reads fd `fd` (stdin) to its end, keeping at most `maxBytes`. Synchronous: the hook has nothing else to do. */
export function readPayload(
  fd = 0,
  maxBytes = DEFAULT_MAX_PAYLOAD_BYTES,
  timeoutMs = DEFAULT_STDIN_TIMEOUT_MS,
): Payload {
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(256 * 1024);
  let bytes = 0;
  let kept = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        if (Date.now() > deadline) return { text: null, bytes, problem: 'timeout' };
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      if (code === 'EOF') break;
      return { text: null, bytes, problem: bytes ? 'unreadable' : null };
    }
    if (n === 0) break;
    bytes += n;
    if (kept + n <= maxBytes) {
      chunks.push(Buffer.from(buf.subarray(0, n)));
      kept += n;
    } else if (chunks.length) {
      chunks.length = 0;
    }
    if (Date.now() > deadline) return { text: null, bytes, problem: 'timeout' };
  }
  if (bytes > maxBytes) return { text: null, bytes, problem: 'too-large' };
  return { text: Buffer.concat(chunks).toString('utf8'), bytes, problem: null };
}
