/**
 * Go Team defines a checkpoint's checksum as the sha256 of the content that contains the
 * checksum itself, which is circular. baton's canonical form (documented in docs/formats.md):
 * parse the checkpoint JSON, remove the top-level `checksum` field, serialise the rest with
 * `JSON.stringify` (key order as in the file, no whitespace), hash the UTF-8 bytes with
 * sha256, and write it as `sha256:<hex>`. Whitespace and line endings of the file therefore
 * do not matter; any change to a value or to the key order does.
 */
import { createHash } from 'node:crypto';

/** The canonical checksum of a parsed checkpoint document. */
export function checkpointChecksum(doc: Record<string, unknown>): string {
  const { checksum: _ignored, ...rest } = doc;
  return `sha256:${createHash('sha256').update(JSON.stringify(rest), 'utf8').digest('hex')}`;
}

/** 'ok', 'missing' (no checksum field) or 'mismatch' (including a malformed value). */
export function verifyChecksum(doc: Record<string, unknown>): 'ok' | 'missing' | 'mismatch' {
  const c = doc.checksum;
  if (c === undefined || c === null || c === '') return 'missing';
  if (typeof c !== 'string') return 'mismatch';
  return c.trim().toLowerCase() === checkpointChecksum(doc) ? 'ok' : 'mismatch';
}
