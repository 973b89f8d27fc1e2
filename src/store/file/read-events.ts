import type { StoredEvent } from '../../domain/events.js';
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import { journalEmpty } from '../errors.js';
import { caughtInFlight, scanJournal } from './journal.js';

/**
 * The events after `afterSeq` in `buf`, the whole journal file `journal` of session `id`.
 * Any damaged line is `CORRUPT` (`details.inFlight` when it may be a write caught half done,
 * to be read again); `guardLoss(end, known)` throws when a snapshot, an unknown checkpoint or
 * the registry row proves events past journal end `end` were lost.
 */
export function eventsOfJournal(
  id: string,
  journal: string,
  buf: Buffer,
  afterSeq: number,
  guardLoss: (journalEnd: number, knownCheckpoints: ReadonlySet<string>) => void,
): StoredEvent[] {
  const scan = scanJournal(buf, 0, 1);
  if (scan.bad.length) {
    throw new BatonError('CORRUPT', `Session ${id}'s journal has ${scan.bad.length} damaged line(s).`, {
      hint: hint('repair.run', { session: id }),
      details: { sessionId: id, inFlight: caughtInFlight(scan.bad) },
    });
  }
  if (scan.lastSeq === 0) throw journalEmpty(id, journal);
  // The whole history is read anyway: the registry row and the checkpoints the journal does
  // not know are little more to read.
  const known = new Set(
    scan.events
      .filter((e) => e.type === 'checkpoint.created')
      .map((e) => String((e.data as { checkpointId?: unknown }).checkpointId)),
  );
  guardLoss(scan.lastSeq, known);
  return scan.events.filter((e) => e.seq > afterSeq);
}
