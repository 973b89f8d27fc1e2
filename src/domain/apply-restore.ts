/**
 * Folding a checkpoint's restore: the session's work put back as the checkpoint had it, and
 * the files outside phases of states written before they had a typed field lifted into it.
 */
import type { EventDataMap, StoredEvent } from './events.js';
import type { CheckpointRef, FileRecord, SessionState } from './state.js';

/**
 * The parts of a state that are the session's work, which a restore puts back as the
 * checkpoint had them. Everything else belongs to the run and carries on: lifecycle status
 * and cause, tokens spent and budget, id counters (ids are never handed out twice), repairs,
 * lease, and the checkpoint list itself.
 */
export const RESTORED_FIELDS = [
  'title',
  'phases',
  'decisions',
  'findings',
  'notes',
  'milestones',
  'artifacts',
  'contextSummary',
  'metadata',
] as const;

/** Folds `checkpoint.restored` into `s` (in place). */
export function restoreCheckpoint(s: SessionState, d: EventDataMap['checkpoint.restored'], e: StoredEvent): void {
  if (typeof d.state !== 'object' || d.state === null) return;
  const from = structuredClone(d.state) as unknown as Record<string, unknown>;
  const into = s as unknown as Record<string, unknown>;
  for (const k of RESTORED_FIELDS) if (k in from) into[k] = from[k];
  // A checkpoint's loose files come back with it; one taken before the typed field has them in metadata.
  if ('looseFiles' in from) into['looseFiles'] = from['looseFiles'];
  else delete s.looseFiles;
  liftLooseFiles(s);
  const supersedes = new Set(d.supersedes ?? []);
  s.checkpoints = (s.checkpoints ?? []).map(
    (c): CheckpointRef => ({
      ...c,
      superseded: c.id === d.checkpointId ? false : c.superseded || supersedes.has(c.id),
    }),
  );
  (s.restores ??= []).push({
    checkpointId: d.checkpointId,
    revision: d.revision,
    at: e.time,
    seq: e.seq,
    gitCommit: d.git?.commit ?? null,
  });
}

/** Metadata key where files outside phases were kept before {@link SessionState.looseFiles}. */
const LEGACY_LOOSE_FILES = 'looseFiles';

/**
 * Moves files outside phases from `metadata.looseFiles` (snapshots and checkpoints written
 * before the typed field) to `looseFiles`. Replaces `metadata` rather than changing it, so a
 * state shared with a snapshot is left as it was.
 */
export function liftLooseFiles(s: SessionState): void {
  if (!Object.hasOwn(s.metadata, LEGACY_LOOSE_FILES)) return;
  const { [LEGACY_LOOSE_FILES]: legacy, ...rest } = s.metadata;
  s.metadata = rest;
  if (s.looseFiles === undefined && Array.isArray(legacy)) {
    const files = legacy.filter(
      (f): f is FileRecord => typeof f === 'object' && f !== null && typeof (f as { path?: unknown }).path === 'string',
    );
    if (files.length) s.looseFiles = files;
  }
}
