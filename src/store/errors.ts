import { hint } from '../domain/hints.js';
import { BatonError } from '../domain/errors.js';
import type { Checkpoint } from './types.js';

/*
 * The errors every backend raises for the same situations, worded once so that a session
 * missing from PostgreSQL reads exactly like one missing from the file store.
 */

/** Refuses a checkpoint that does not describe session `id` at a revision it has. */
export function checkCheckpoint(id: string, cp: Checkpoint, journalEnd: number): void {
  if (cp.sessionId !== id) {
    throw new BatonError('BAD_INPUT', `Checkpoint ${cp.id} belongs to session ${JSON.stringify(cp.sessionId)}, not ${id}.`, { hint: 'Save a checkpoint under its own session.' });
  }
  if (!Number.isInteger(cp.revision) || cp.revision < 1 || cp.revision > journalEnd || cp.state?.revision !== cp.revision) {
    throw new BatonError('BAD_INPUT', `Checkpoint ${cp.id} is at revision ${cp.revision}, which session ${id} (at ${journalEnd}) does not have or its state does not match.`, {
      hint: 'Take the checkpoint from a state read from this session.',
    });
  }
}

/** `EXISTS` for a checkpoint id. */
export function checkpointExists(id: string, cpId: string): BatonError {
  return new BatonError('EXISTS', `Session ${id} already has a checkpoint ${cpId}.`, {
    hint: 'Checkpoints are never overwritten; take a new one under another id.',
    details: { sessionId: id, checkpointId: cpId },
  });
}

/** `NOT_FOUND` for a checkpoint id. */
export function checkpointNotFound(id: string, cpId: string): BatonError {
  return new BatonError('NOT_FOUND', `Session ${id} has no checkpoint ${JSON.stringify(cpId)}.`, {
    hint: hint('checkpoint.list', { session: id }),
    details: { sessionId: id, checkpointId: cpId },
  });
}

/** `NOT_FOUND` for a session id. */
export function notFound(id: string): BatonError {
  return new BatonError('NOT_FOUND', `No session ${JSON.stringify(id)}.`, {
    hint: hint('session.list-all'),
    details: { sessionId: id },
  });
}

/** `EXISTS` for a session id. */
export function exists(id: string): BatonError {
  return new BatonError('EXISTS', `Session ${JSON.stringify(id)} already exists.`, {
    hint: hint('session.other-id-or-switch'),
    details: { sessionId: id },
  });
}

/** `CONFLICT` for a stale expected revision. */
export function conflict(id: string, expected: number, actual: number): BatonError {
  return new BatonError('CONFLICT', `Session ${id} is at revision ${actual}, not ${expected}: someone else wrote first.`, {
    hint: 'Re-read the session and try again.',
    details: { sessionId: id, expectedRevision: expected, revision: actual },
  });
}
