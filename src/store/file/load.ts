import { hint } from '../../domain/hints.js';
import { BatonError } from '../../domain/errors.js';
import { journalEmpty } from '../errors.js';
import type { LoadResult, RepairReport } from '../types.js';
import { syncTail } from './append.js';
import type { Writer } from './append.js';
import type { Handle } from './handle.js';
import { caughtInFlight } from './journal.js';
import { READ_AGAIN, pauseBeforeReadAgain } from './loss.js';
import { tornTailFound } from './read-only.js';
import { lockSession } from './session-lock.js';
import { readSnapshot, scanFromSnapshot } from './snapshot.js';

/**
 * Reads session `id` through handle `h`: its snapshot (checked, repaired into `repairs`) and
 * the journal after it. Lines caught half written by a writer are read again; a torn tail is
 * cut under the session lock (reported only, on a read-only handle). `guardLoss(end)` throws
 * when acknowledged events past journal end `end` are proven lost; any other damaged line is
 * `CORRUPT`, with `baton repair` as the way out.
 */
export function loadJournal(
  now: () => Date,
  writer: Writer,
  id: string,
  h: Handle,
  repairs: RepairReport[],
  guardLoss: (journalEnd: number) => void,
): LoadResult {
  const snap = readSnapshot(now, id, h, repairs);
  let scan = scanFromSnapshot(h, snap);
  // Without the lock, lines being written may be caught half visible: read again (journal.ts).
  // A read-only handle never takes the lock, so its incomplete last line may be one too.
  for (
    let again = 1;
    !h.lock.isHeld &&
    (caughtInFlight(scan.bad) || (h.readOnly !== null && scan.tornAt !== null)) &&
    again <= READ_AGAIN;
    again++
  ) {
    pauseBeforeReadAgain(again);
    scan = scanFromSnapshot(h, snap);
  }
  if (!snap && scan.lastSeq === 0 && !scan.bad.length) throw journalEmpty(id, h.journal);
  // Damage at the end (a cut line, a snapshot past the journal) may be more than a torn
  // append: look for proof of acknowledged events the journal no longer holds first.
  if (scan.tornAt !== null || repairs.some((r) => r.kind === 'snapshot_stale')) guardLoss(scan.maxSeq);
  if (scan.tornAt !== null && h.readOnly !== null) repairs.push(tornTailFound(id, h.readOnly, scan.tornAt));
  else if (scan.tornAt !== null) {
    lockSession(h);
    h.lastSeq = -1;
    syncTail(writer, id, h, repairs, guardLoss);
    scan = scanFromSnapshot(h, snap);
  }
  if (scan.bad.length) {
    const first = scan.bad[0]!;
    throw new BatonError(
      'CORRUPT',
      `Session ${id}'s journal has ${scan.bad.length} damaged line(s), first near byte ${first.offset} (${first.reason}).`,
      {
        hint: hint('repair.rebuilds', { session: id }),
        details: { sessionId: id, badLines: scan.bad.map((b) => ({ offset: b.offset, reason: b.reason })) },
      },
    );
  }
  return {
    snapshot: snap ? { revision: snap.revision, state: snap.state } : null,
    events: scan.events,
    revision: scan.lastSeq,
    repairs,
  };
}
