/**
 * Checkpoints as listed (what the journal recorded merged with what the store holds), and
 * finding one by id or prefix, with the errors that name the way out.
 */
import { BatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { CheckpointInfo as ResumeCheckpoint } from '../../domain/resume/resume-plan-types.js';
import type { CheckpointRef, SessionState } from '../../domain/state.js';
import { compareCheckpointIds } from '../../store/types.js';
import type { CheckpointGit, CheckpointRead } from '../../store/types.js';

/**
 * One line of `baton checkpoints`: what the store holds merged with what the journal knows.
 * A checkpoint whose file is damaged or missing is still listed (invalid, with the problem);
 * its name, revision and time then come from its `checkpoint.created` event.
 */
export interface CheckpointInfo extends ResumeCheckpoint {
  /** What is wrong with it, when not valid. */
  problem?: string;
  trigger: 'manual' | 'phase';
  phaseId: string | null;
  git: CheckpointGit | null;
  /** Number of files hashed in it (null when it cannot be read). */
  files: number | null;
  /** The journal holds its `checkpoint.created` event. */
  recorded: boolean;
  /** Ids of the phases completed in its state (null when it cannot be read). */
  completedPhases: string[] | null;
}

/** The problem of a checkpoint the journal recorded whose file is gone. */
export const MISSING_FILE = 'its file is missing (the journal recorded it)';

/** A stored checkpoint (or one only the journal knows) as listed. */
export function infoOf(read: CheckpointRead, ref: CheckpointRef | undefined): CheckpointInfo {
  const superseded = ref?.superseded ?? false;
  let r = read;
  // A file that checks out but is not the checkpoint the journal recorded under its id.
  if (r.valid && ref && ref.revision !== r.checkpoint.revision) {
    r = {
      id: r.id,
      valid: false,
      problem: `holds revision ${r.checkpoint.revision}, but the journal recorded it at revision ${ref.revision}`,
      modifiedAt: r.checkpoint.createdAt,
    };
  }
  if (r.valid) {
    const c = r.checkpoint;
    return {
      id: r.id,
      name: c.name,
      revision: c.revision,
      createdAt: c.createdAt,
      valid: true,
      superseded,
      trigger: c.trigger,
      phaseId: c.phaseId,
      git: c.git,
      files: c.files.length,
      recorded: ref !== undefined,
      completedPhases: (c.state.phases ?? []).filter((p) => p.status === 'completed').map((p) => p.id),
    };
  }
  return {
    id: r.id,
    name: ref?.name ?? r.id,
    revision: ref?.revision ?? null,
    createdAt: ref?.createdAt ?? r.modifiedAt ?? '',
    valid: false,
    superseded,
    problem: r.problem,
    trigger: ref?.trigger ?? 'manual',
    phaseId: ref?.phaseId ?? null,
    git: null,
    files: null,
    recorded: ref !== undefined,
    completedPhases: null,
  };
}

/** The newest valid checkpoint before `id`, preferring one not superseded. */
export function previousValid(all: CheckpointInfo[], id: string): CheckpointInfo | null {
  const before = all.filter((c) => c.valid && compareCheckpointIds(c.id, id) < 0);
  return before.filter((c) => !c.superseded).at(-1) ?? before.at(-1) ?? null;
}

/** The newest valid checkpoint that is not superseded (the usual recovery point), or null. */
export function latestValid(all: CheckpointInfo[]): CheckpointInfo | null {
  return all.filter((c) => c.valid && !c.superseded).at(-1) ?? null;
}

/** Every path the session recorded, in phases and outside them, sorted. */
export function recordedPaths(s: SessionState): string[] {
  const set = new Set<string>();
  for (const p of s.phases) for (const f of p.files) set.add(f.path);
  for (const f of s.looseFiles ?? []) set.add(f.path);
  return [...set].sort();
}

/** The next checkpoint number after the highest of `ids`. */
export function nextNumber(ids: string[]): number {
  let max = 0;
  for (const id of ids) {
    const m = /^cp-(\d+)(?:-|$)/.exec(id);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

/** The error when a checkpoint was taken at another revision than the caller expected. */
export function revisionConflict(id: string, expected: number, actual: number): BatonError {
  return new BatonError('CONFLICT', `Session ${id} is at revision ${actual}, not ${expected}.`, {
    hint: hint('session.reread'),
    details: { sessionId: id, expectedRevision: expected, revision: actual },
  });
}

/**
 * The checkpoint named by its id or by a unique prefix of it (`cp-3` for
 * `cp-3-before-refactor`). A prefix that ends where the id's number ends wins over longer
 * numbers (`cp-3` is not `cp-30-…`). Several matches: `BAD_INPUT` listing them; none: `NOT_FOUND`.
 */
export function byIdOrPrefix(sessionId: string, ref: string, all: CheckpointInfo[]): CheckpointInfo {
  const exact = all.find((c) => c.id === ref);
  if (exact) return exact;
  const starting = all.filter((c) => c.id.startsWith(ref));
  const whole = starting.filter((c) => c.id.startsWith(`${ref}-`));
  const matches = whole.length === 1 ? whole : starting;
  if (matches.length === 1) return matches[0]!;
  if (!matches.length) throw checkpointMissing(sessionId, ref, all);
  throw new BatonError(
    'BAD_INPUT',
    `Checkpoint ${JSON.stringify(ref)} of session ${sessionId} is ambiguous: it matches ${matches.map((c) => c.id).join(', ')}.`,
    {
      hint: 'Give more of the id, or the whole id.',
      details: { sessionId, checkpointId: ref, matches: matches.map((c) => c.id) },
    },
  );
}

/** The error for a checkpoint id the session does not have, naming the ones it has. */
export function checkpointMissing(sessionId: string, id: string, all: CheckpointInfo[]): BatonError {
  return new BatonError('NOT_FOUND', `Session ${sessionId} has no checkpoint ${JSON.stringify(id)}.`, {
    hint: all.length
      ? hint('checkpoint.list-some', { checkpoints: all.slice(-10).map((c) => c.id) })
      : hint('checkpoint.take-first'),
    details: { sessionId, checkpointId: id },
  });
}

/** `CORRUPT` for a damaged checkpoint, naming the problem and the previous valid one. */
export function corrupt(sessionId: string, info: CheckpointInfo, fallback: CheckpointInfo | null): BatonError {
  return new BatonError(
    'CORRUPT',
    `Checkpoint ${info.id} of session ${sessionId} is damaged: ${info.problem ?? 'unreadable'}.`,
    {
      hint: fallback
        ? hint('checkpoint.previous-valid', {
            checkpoint: fallback.id,
            name: fallback.name,
            revision: fallback.revision,
            superseded: fallback.superseded,
          })
        : hint('checkpoint.take-new'),
      details: { sessionId, checkpointId: info.id, problem: info.problem ?? null, fallback: fallback?.id ?? null },
    },
  );
}
