import { BatonError } from '../../domain/errors.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import { eventJson } from '../event-json.js';
import { hint } from '../../domain/hints.js';
import { lossStart } from '../loss-event.js';
import type { RepairReport, Snapshot } from '../types.js';

/*
 * The PostgreSQL store's event rows as written (types and bodies) and read back (event bodies,
 * the snapshot, and the check that the seqs read are contiguous).
 */

/** An event row's body, parsed; `CORRUPT` naming the row when it is not an event in JSON. */
export function decodeEvent(id: string, seq: number, body: string): StoredEvent {
  try {
    const v = JSON.parse(body) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v) || typeof (v as { type?: unknown }).type !== 'string')
      throw new Error('not an event');
    return { ...v, seq } as StoredEvent;
  } catch (e) {
    throw new BatonError(
      'CORRUPT',
      `Session ${id}'s event ${seq} is not an event in valid JSON (changed in the database by hand?).`,
      {
        hint: hint('repair.rebuilds', { session: id }),
        details: { sessionId: id, seq },
        cause: e,
      },
    );
  }
}

/** The snapshot row's state, or null (reported in `repairs`) when it is unreadable. */
export function readSnapshot(id: string, revision: number, text: string, repairs: RepairReport[]): Snapshot | null {
  try {
    const state = JSON.parse(text) as Snapshot['state'];
    if (state && typeof state === 'object' && state.revision === revision) return { revision, state };
  } catch {
    // reported below
  }
  repairs.push({
    sessionId: id,
    kind: 'snapshot_corrupt',
    message: `Session ${id}: its snapshot (revision ${revision}) is unreadable; state rebuilt from the journal.`,
    savedTo: null,
  });
  return null;
}

/**
 * `CORRUPT` when the seqs of `events` (read from `first` on) are not `first`, `first + 1`, …
 * (a `repair.events_lost` event bridges the seqs it stands for): rows were deleted behind the
 * store's back. Never read as a shorter history, which a snapshot check would then "fix" by
 * dropping what the missing rows did.
 */
export function checkSeqs(id: string, events: readonly StoredEvent[], first: number): void {
  let expected = first;
  for (const e of events) {
    if (e.seq !== expected && lossStart(e as unknown as Record<string, unknown>) !== expected) {
      throw new BatonError(
        'CORRUPT',
        `Session ${id}'s events skip from seq ${expected - 1} to ${e.seq} (rows deleted behind the store's back?).`,
        {
          hint: hint('repair.rebuilds', { session: id }),
          details: { sessionId: id, missing: { from: expected, to: e.seq - 1 } },
        },
      );
    }
    expected = e.seq + 1;
  }
}

/** Types and JSON bodies of events to insert, in step (the body without seq: the row has it). */
export function encodeEvents(events: NewEvent[]): { types: string[]; bodies: string[] } {
  const types: string[] = [];
  const bodies: string[] = [];
  for (const e of events) {
    types.push(String(e.type));
    bodies.push(eventJson(e));
  }
  return { types, bodies };
}
