import { crc32 } from 'node:zlib';

const MARK = ',"crc":"';

/**
 * Serialises a JSON object as one line that carries its own checksum as a last field:
 * `{...,"crc":"<8 hex>"}`. The checksum covers the exact bytes of the object without that
 * field, so a line stays plain JSON (diff-friendly) yet any change to it is detected.
 */
export function encodeRecord(value: object): string {
  return withChecksum(JSON.stringify(value));
}

/** {@link encodeRecord} of an object already serialised as `body` (JSON text of an object). */
export function withChecksum(body: string): string {
  if (body === '{}') return `{"crc":"${hex(crc32(body))}"}`;
  return `${body.slice(0, -1)}${MARK}${hex(crc32(body))}"}`;
}

/** Outcome of {@link decodeRecord}. */
export type Decoded = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Parses a line written by {@link encodeRecord} and checks its checksum. A trailing `\r` is
 * ignored: a journal checked out with CRLF line ends (git's autocrlf) is still the same data.
 */
export function decodeRecord(line: string): Decoded {
  if (line.endsWith('\r')) line = line.slice(0, -1);
  const at = line.lastIndexOf(MARK);
  let body: string;
  let sum: string;
  if (at === -1) {
    if (!line.startsWith('{"crc":"')) return { ok: false, reason: 'no checksum' };
    body = '{}';
    sum = line.slice(8, 16);
  } else {
    body = `${line.slice(0, at)}}`;
    sum = line.slice(at + MARK.length, at + MARK.length + 8);
    if (line.length !== at + MARK.length + 10 || !line.endsWith('"}'))
      return { ok: false, reason: 'malformed checksum field' };
  }
  if (hex(crc32(body)) !== sum) return { ok: false, reason: 'checksum mismatch' };
  try {
    const value = JSON.parse(body) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, reason: 'not an object' };
    return { ok: true, value: value as Record<string, unknown> };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}
