import { validateId } from '../../domain/ids.js';
import { checkCheckpoint, checkpointExists, notFound } from '../errors.js';
import type { Checkpoint, CheckpointRead } from '../types.js';
import { encodeCheckpoint, readCheckpointRow, sha256 } from './checkpoint-rows.js';
import { sqlState } from './pool.js';
import type { Query } from './query.js';
import type { Statements } from './sql.js';

/**
 * Stores a checkpoint of session `id`, checked against the journal end `end()` reads (null: no
 * such session).
 * `CHECKPOINT_EXISTS` when the id is taken, `NOT_FOUND` when the session is gone meanwhile.
 */
export async function saveCheckpointRow(
  q: Query,
  sql: Statements,
  id: string,
  checkpoint: Checkpoint,
  end: () => Promise<number | null>,
): Promise<void> {
  validateId(id);
  const cpId = validateId(checkpoint.id, 'checkpoint id');
  const last = await end();
  if (last === null) throw notFound(id);
  checkCheckpoint(id, checkpoint, last);
  const body = encodeCheckpoint(checkpoint);
  try {
    await q(sql.saveCheckpoint, [id, cpId, body, sha256(body)]);
  } catch (e) {
    if (sqlState(e) === '23505') throw checkpointExists(id, cpId);
    if (sqlState(e) === '23503') throw notFound(id); // deleted meanwhile
    throw e;
  }
}

/** The checkpoints of session `id` (only `checkpointId` when given), checked; `NOT_FOUND` without the session. */
export async function readCheckpointRows(
  q: Query,
  sql: Statements,
  id: string,
  checkpointId: string | null,
): Promise<CheckpointRead[]> {
  validateId(id);
  const r = await q<{ id: string | null; body: string | null; sha256: string | null; created_at: Date | null }>(
    sql.checkpoints,
    [id, checkpointId],
  );
  if (!r.rows[0] || r.rows[0].id !== null) throw notFound(id);
  return r.rows.slice(1).map((x) => readCheckpointRow(id, x.id!, x.body!, x.sha256!, x.created_at));
}
