/**
 * The checkpoint files of an imported session: import records a `checkpoint.created` event
 * for every usable foreign checkpoint (src/formats/import.ts); this saves the matching baton
 * checkpoint, holding the session's state at that event's revision, its git state (branch
 * and commit as the toolkit recorded them) and the files the state recorded (unmeasured: the
 * toolkit kept no hashes). baton's own `resume` then offers them with what restoring loses.
 */
import { fold } from '../../domain/apply.js';
import type { EventDataMap, NewEvent, StoredEvent } from '../../domain/events.js';
import { TOOLKIT_RULES_KEY } from '../../domain/toolkits/toolkit-rules.js';
import { PROVENANCE_KEY } from '../../formats/import.js';
import type { Checkpoint } from '../../store/types.js';
import { recordedPaths } from './checkpoint-lookup.js';
import type { ManagerCore as SessionManager } from '../types.js';

/**
 * Saves one checkpoint file per `checkpoint.created` event of a session's journal `events`
 * (all of them from the first event: seq = position) after seq `after` (a re-import: only the
 * checkpoints it added).
 */
export async function saveImportedCheckpoints(
  m: SessionManager,
  id: string,
  events: ReadonlyArray<NewEvent | StoredEvent>,
  after = 0,
): Promise<void> {
  const stored = events.map((e, i) => ({ ...e, seq: 'seq' in e ? e.seq : i + 1 }) as StoredEvent);
  // Where the session came from and its toolkit's rules are no work a restore undoes: each
  // checkpoint keeps them (they are recorded last, after the checkpoints), so a session
  // restored to an imported checkpoint still exports onto its foreign documents.
  const whole = fold(null, stored, id);
  const keep = Object.fromEntries(
    [PROVENANCE_KEY, TOOLKIT_RULES_KEY]
      .filter((k) => whole?.metadata[k] !== undefined)
      .map((k) => [k, whole!.metadata[k]]),
  );
  for (const e of stored) {
    if (e.type !== 'checkpoint.created' || e.seq <= after) continue;
    const d = e.data as EventDataMap['checkpoint.created'];
    const state = fold(null, stored.slice(0, d.revision), id);
    if (!state) continue;
    state.metadata = { ...state.metadata, ...keep };
    const cp: Checkpoint = {
      id: d.checkpointId,
      sessionId: id,
      name: d.name,
      createdAt: e.time,
      revision: d.revision,
      state,
      git: d.git,
      files: recordedPaths(state).map((p) => ({ path: p, sha256: null, size: null })),
      trigger: d.trigger,
      phaseId: d.phaseId,
    };
    await m.store.saveCheckpoint(id, cp);
  }
}
