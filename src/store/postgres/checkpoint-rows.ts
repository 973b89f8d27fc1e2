import { checkpointFromRecord, checkpointRecord } from '../checkpoint-record.js';
import type { CheckpointRecord } from '../checkpoint-record.js';
import type { Checkpoint, CheckpointRead } from '../types.js';
import { pgCrypto } from './pool.js';

/*
 * Checkpoint rows of the PostgreSQL store: the body as stored, its checksum, and the check
 * of a row read back. Kept apart from store.ts, which holds the statements' callers.
 */

/** Hex SHA-256 of a checkpoint body, stored beside it. */
export function sha256(text: string): string {
  return pgCrypto().createHash('sha256').update(text).digest('hex');
}

/** A checkpoint's body as stored. */
export function encodeCheckpoint(cp: Checkpoint): string {
  return JSON.stringify(checkpointRecord(cp));
}

/** A checkpoint row, checked: checksum, shape, and that it belongs where it is stored. */
export function readCheckpointRow(
  sessionId: string,
  id: string,
  body: string,
  sum: string,
  createdAt: Date | null,
): CheckpointRead {
  const invalid = (problem: string): CheckpointRead => ({
    id,
    valid: false,
    problem,
    modifiedAt: createdAt ? createdAt.toISOString() : null,
  });
  if (sha256(body) !== sum) return invalid('checksum mismatch (changed in the database by hand?)');
  let r: Partial<CheckpointRecord>;
  try {
    r = JSON.parse(body) as typeof r;
  } catch {
    return invalid('invalid JSON');
  }
  if (r.format !== 'baton.checkpoint') return invalid('is not a checkpoint');
  const checked = checkpointFromRecord(r, sessionId, id);
  return typeof checked === 'string' ? invalid(checked) : { id, valid: true, checkpoint: checked };
}
