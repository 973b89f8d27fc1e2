import type { Checkpoint } from './types.js';

/*
 * The body of a stored checkpoint, the same in every backend (a file store's checksummed
 * line, a PostgreSQL row): written in one field order, checked the same way when read back.
 */

/** Version of the checkpoint format this code writes (`v`). */
export const CHECKPOINT_FORMAT_VERSION = 1;

/** A checkpoint as stored. */
export interface CheckpointRecord extends Checkpoint {
  format: 'baton.checkpoint';
  v: number;
}

/** The record to store for `cp`, fields in their stored order. */
export function checkpointRecord(cp: Checkpoint): CheckpointRecord {
  return {
    format: 'baton.checkpoint',
    v: CHECKPOINT_FORMAT_VERSION,
    id: cp.id,
    sessionId: cp.sessionId,
    name: cp.name,
    createdAt: cp.createdAt,
    revision: cp.revision,
    trigger: cp.trigger,
    phaseId: cp.phaseId,
    git: cp.git,
    files: cp.files,
    state: cp.state,
  };
}

/**
 * The checkpoint a parsed record (whose `format` the caller has checked) holds, when it is
 * checkpoint `checkpointId` of session `sessionId` and whole; else what is wrong with it.
 */
export function checkpointFromRecord(
  r: Partial<CheckpointRecord>,
  sessionId: string,
  checkpointId: string,
): Checkpoint | string {
  if (typeof r.v !== 'number' || r.v > CHECKPOINT_FORMAT_VERSION)
    return `has format ${String(r.v)}; this baton reads up to ${CHECKPOINT_FORMAT_VERSION}`;
  if (r.id !== checkpointId) return `holds checkpoint ${JSON.stringify(r.id)}, not ${checkpointId}`;
  if (r.sessionId !== sessionId) return `belongs to session ${JSON.stringify(r.sessionId)}`;
  if (typeof r.revision !== 'number' || !Number.isInteger(r.revision) || r.revision < 1) return 'has no valid revision';
  if (typeof r.state !== 'object' || r.state === null || r.state.revision !== r.revision)
    return `its state is missing or not at revision ${r.revision}`;
  if (typeof r.name !== 'string' || typeof r.createdAt !== 'string' || !Array.isArray(r.files))
    return 'lacks its name, time or file list';
  const { format: _f, v: _v, ...cp } = r as CheckpointRecord;
  return { ...cp, git: cp.git ?? null, trigger: cp.trigger ?? 'manual', phaseId: cp.phaseId ?? null };
}
