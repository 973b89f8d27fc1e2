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
    throw new BatonError(
      'BAD_INPUT',
      `Checkpoint ${cp.id} belongs to session ${JSON.stringify(cp.sessionId)}, not ${id}.`,
      { hint: 'Save a checkpoint under its own session.' },
    );
  }
  if (
    !Number.isInteger(cp.revision) ||
    cp.revision < 1 ||
    cp.revision > journalEnd ||
    cp.state?.revision !== cp.revision
  ) {
    throw new BatonError(
      'BAD_INPUT',
      `Checkpoint ${cp.id} is at revision ${cp.revision}, which session ${id} (at ${journalEnd}) does not have or its state does not match.`,
      {
        hint: 'Take the checkpoint from a state read from this session.',
      },
    );
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
  return new BatonError(
    'CONFLICT',
    `Session ${id} is at revision ${actual}, not ${expected}: someone else wrote first.`,
    {
      hint: 'Re-read the session and try again.',
      details: { sessionId: id, expectedRevision: expected, revision: actual },
    },
  );
}

/** The highest revision proven acknowledged by something other than the journal. */
export interface Proof {
  revision: number;
  /** What proves it, for messages: `snapshot.json`, `checkpoint cp-3-x`, `the registry`. */
  by: string;
}

/** `CORRUPT`: the journal ends at `journalRevision` but `proof` shows more was acknowledged. */
export function eventsLost(id: string, journalRevision: number, proof: Proof): BatonError {
  const from = journalRevision + 1;
  const range = from === proof.revision ? `event ${from} is` : `events ${from}–${proof.revision} are`;
  return new BatonError(
    'CORRUPT',
    `Session ${id}'s journal ends at revision ${journalRevision}, but ${proof.by} shows revision ${proof.revision} was acknowledged: ${range} lost (the journal was cut, or put back from an older copy).`,
    {
      hint: hint('journal.events-lost', { session: id }),
      details: {
        sessionId: id,
        journalRevision,
        provenRevision: proof.revision,
        provenBy: proof.by,
        lost: { from, to: proof.revision },
      },
    },
  );
}

/** `CORRUPT`: a session whose journal holds no event. */
export function journalEmpty(id: string, journal: string): BatonError {
  return new BatonError(
    'CORRUPT',
    `Session ${id}'s journal (${journal}) holds no event (it is empty, or holds only a torn line).`,
    {
      hint: hint('journal.restore-backup', { session: id }),
      details: { sessionId: id, journal },
    },
  );
}

/**
 * `CORRUPT` for a session without events, or whose registry row or snapshot names a revision
 * past its highest event (`max_seq`): acknowledged events were lost (rows deleted by hand, one
 * table put back from an older copy). Never read as a shorter session that would hand out
 * those seqs again. For stores that keep these revisions side by side (PostgreSQL).
 */
export function checkNothingLost(
  id: string,
  head: { snap_rev: number | null; row_rev: number | null; max_seq: number | null },
  where: string,
): void {
  const end = head.max_seq === null ? 0 : Number(head.max_seq);
  if (end === 0) throw journalEmpty(id, where);
  const snap = head.snap_rev === null ? 0 : Number(head.snap_rev);
  const row = head.row_rev === null ? 0 : Number(head.row_rev);
  if (snap > end || row > end)
    throw eventsLost(
      id,
      end,
      snap >= row ? { revision: snap, by: 'its snapshot' } : { revision: row, by: 'its registry row' },
    );
}

/**
 * `STORE_READ_ONLY`: a write asked of a store that cannot be written (a read-only mount,
 * files of another user, a store opened read-only), naming where it is and why, before a byte
 * is written. Reads of such a store work; the way out is making it writable.
 */
export function readOnlyStore(location: string, reason: string): BatonError {
  return new BatonError(
    'STORE_READ_ONLY',
    `The store at ${location} cannot be written (${reason}); this command changes it.`,
    {
      hint: hint('store.read-only', { location, reason }),
      details: { location, reason, retryable: false },
    },
  );
}
