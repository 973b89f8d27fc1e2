/**
 * The recovery part of the resume plan: which checkpoint can be offered (corrupt and
 * superseded ones are skipped), what each option (checkpoint, live, fresh) loses, and which
 * one baton recommends. Pure.
 */
import { list, plural } from '../phrasing.js';
import type { SessionState } from '../state.js';
import { WORK_EVENT_TYPES } from './resume-plan-types.js';
import type {
  CheckpointInfo,
  CorruptCheckpoint,
  FilesReport,
  InFlightPhase,
  OfferedCheckpoint,
  PhaseFiles,
  Recommendation,
  RecoveryOption,
  RecoveryPlan,
  ResumeInput,
} from './resume-plan-types.js';

/** A checkpoint that can be offered: valid, with a known revision. */
type UsableCheckpoint = CheckpointInfo & { revision: number };

function usable(c: CheckpointInfo): c is UsableCheckpoint {
  return c.valid && typeof c.revision === 'number' && Number.isFinite(c.revision);
}

function cpRef(c: UsableCheckpoint): OfferedCheckpoint {
  return { id: c.id, name: c.name, revision: c.revision, createdAt: c.createdAt };
}

function corrupt(c: CheckpointInfo): CorruptCheckpoint {
  const problem = c.problem ?? (c.valid ? 'its revision is unknown' : null);
  return { id: c.id, name: c.name, revision: c.revision, createdAt: c.createdAt, problem, superseded: c.superseded };
}

/**
 * Seqs on the session's current line of work: after the last restore, its state is the
 * restored checkpoint's, whose own line ends at the checkpoint's revision (and may hold
 * earlier restores). Returns inclusive ranges, newest first; restore events themselves are
 * excluded.
 */
function currentLine(s: SessionState): Array<[number, number]> {
  const restores = [...(s.restores ?? [])].sort((a, b) => a.seq - b.seq);
  const ranges: Array<[number, number]> = [];
  let upTo = s.revision;
  for (;;) {
    const r = [...restores].reverse().find((x) => x.seq <= upTo);
    if (!r) {
      ranges.push([1, upTo]);
      return ranges;
    }
    if (r.seq < upTo) ranges.push([r.seq + 1, upTo]);
    if (r.revision >= r.seq) return ranges; // malformed: a restore to the future
    upTo = r.revision;
  }
}

function workEventsAfter(s: SessionState, events: Array<{ seq: number; type: string }>, revision: number): number {
  const line = currentLine(s);
  return events.filter(
    (e) => e.seq > revision && WORK_EVENT_TYPES.includes(e.type) && line.some(([a, b]) => e.seq >= a && e.seq <= b),
  ).length;
}

/** The recovery plan, with what the warnings need to know about it. */
export interface PlannedRecovery {
  recovery: RecoveryPlan;
  /** The checkpoint offered, if any. */
  offered: OfferedCheckpoint | null;
  /** File groups of completed phases whose files changed, vanished or reappeared outside the session. */
  touchedDone: PhaseFiles[];
}

/** True for a file check that means work counted as done was altered outside the session. */
export function alteredOutside(kind: string): boolean {
  return kind === 'changed' || kind === 'vanished' || kind === 'reappeared';
}

/** The checkpoints to offer, newest first: the offered one and the corrupt ones skipped on the way to it. */
function offerCheckpoints(
  s: SessionState,
  input: ResumeInput,
  prefer: string | null,
): Pick<RecoveryPlan, 'corruptCheckpoints' | 'fallback'> & { offered: UsableCheckpoint | null } {
  // Newest first (the input is in creation order); superseded ones (by the caller or by the
  // journal's restores) are never offered.
  const supersededInJournal = new Set((s.checkpoints ?? []).filter((c) => c.superseded).map((c) => c.id));
  const newestFirst = [...input.checkpoints]
    .reverse()
    .map((c) => (supersededInJournal.has(c.id) && !c.superseded ? { ...c, superseded: true } : c));
  const corruptCheckpoints = newestFirst.filter((c) => !usable(c)).map(corrupt);
  const current = newestFirst.filter((c) => !c.superseded);
  // The checkpoint the session's toolkit names for recovery, when it can be restored; else the newest usable one.
  const preferredIdx = prefer === null ? -1 : current.findIndex((c) => c.id === prefer && usable(c));
  const offeredIdx = preferredIdx >= 0 ? preferredIdx : current.findIndex(usable);
  const offered = offeredIdx >= 0 ? (current[offeredIdx] as UsableCheckpoint) : null;
  const skipped = (offeredIdx >= 0 ? current.slice(0, offeredIdx) : current).filter((c) => !usable(c)).map(corrupt);
  const fallback = skipped.length ? { skipped, offered: offered ? cpRef(offered) : null } : null;
  return { corruptCheckpoints, fallback, offered };
}

/** The checkpoint option: going back to `offered`, and what that loses. */
function checkpointOption(
  s: SessionState,
  input: ResumeInput,
  offered: UsableCheckpoint | null,
  touchedDone: PhaseFiles[],
): RecoveryOption {
  if (!offered) {
    return {
      kind: 'checkpoint',
      from: null,
      available: false,
      checkpoint: null,
      loses: { events: 0, workEvents: null, completedPhases: null, summary: 'not available' },
      notes: [input.checkpoints.length ? 'No valid, non-superseded checkpoint.' : 'No checkpoint was taken.'],
    };
  }
  const completedNow = s.phases.filter((p) => p.status === 'completed').map((p) => p.id);
  const lost = Math.max(0, s.revision - offered.revision);
  const work = input.events ? workEventsAfter(s, input.events, offered.revision) : null;
  const lostPhases = offered.completedPhases
    ? completedNow.filter((id) => !offered.completedPhases!.includes(id))
    : null;
  const notes: string[] = [];
  if (offered.revision > s.revision)
    notes.push(`Checkpoint revision ${offered.revision} is newer than the session (revision ${s.revision}).`);
  const laterRestores = (s.restores ?? []).filter((r) => r.seq > offered.revision);
  if (laterRestores.length) {
    const r = laterRestores[laterRestores.length - 1]!;
    notes.push(`A restore to ${r.checkpointId} at revision ${r.seq} already set part of those events aside.`);
  }
  if (touchedDone.length)
    notes.push(
      "It puts back the session's record, not the files: the files changed outside the session stay as they are.",
    );
  let summary =
    lost === 0
      ? 'nothing: no events since the checkpoint'
      : `${plural(lost, 'event')} recorded after revision ${offered.revision}`;
  if (lost > 0 && work !== null) summary += ` (${work} of them changed the work)`;
  if (lostPhases?.length) summary += `, including the completion of ${list(lostPhases)}`;
  return {
    kind: 'checkpoint',
    from: `checkpoint:${offered.id}`,
    available: true,
    checkpoint: cpRef(offered),
    loses: { events: lost, workEvents: work, completedPhases: lostPhases, summary },
    notes,
  };
}

/** The live option (continue as is) and the fresh one (start again from the first phase). */
function liveAndFresh(
  s: SessionState,
  input: ResumeInput,
  inFlight: InFlightPhase[],
): [RecoveryOption, RecoveryOption] {
  const completedNow = s.phases.filter((p) => p.status === 'completed').map((p) => p.id);
  const halfDone = inFlight.map((p) => (p.subStep ? `${p.phaseId} (at sub-step "${p.subStep}")` : p.phaseId));
  const liveOption: RecoveryOption = {
    kind: 'live',
    from: 'live',
    available: true,
    checkpoint: null,
    loses: { events: 0, workEvents: 0, completedPhases: [], summary: 'nothing' },
    notes: halfDone.length ? [`Keeps the half-done work of ${list(halfDone)}.`] : [],
  };
  const freshEvents = Math.max(0, s.revision - 1);
  const freshOption: RecoveryOption = {
    kind: 'fresh',
    from: 'fresh',
    available: true,
    checkpoint: null,
    loses: {
      events: freshEvents,
      workEvents: input.events
        ? input.events.filter((e) => e.seq > 1 && e.seq <= s.revision && WORK_EVENT_TYPES.includes(e.type)).length
        : (input.workEventsTotal ?? null),
      completedPhases: completedNow,
      summary: `everything: ${plural(completedNow.length, 'completed phase')} and ${plural(freshEvents, 'event')} since the session was created`,
    },
    notes: ['Starts again from the first phase of the plan.'],
  };
  return [liveOption, freshOption];
}

/**
 * The recovery options, corrupt checkpoints and the recommendation (the rule is stated on
 * `planResume`). `resumable` false: nothing is recommended.
 */
export function planRecovery(
  s: SessionState,
  input: ResumeInput,
  inFlight: InFlightPhase[],
  files: FilesReport,
  resumable: boolean,
  prefer: string | null = null,
): PlannedRecovery {
  const { corruptCheckpoints, fallback, offered } = offerCheckpoints(s, input, prefer);
  const touchedDone = files.byPhase.filter(
    (g) => g.phaseStatus === 'completed' && g.files.some((f) => alteredOutside(f.kind)),
  );
  const inFlightWithFiles = s.phases.filter((p) => p.status === 'in_progress' && p.files.length > 0).map((p) => p.id);
  let recommended: Recommendation | null = null;
  if (resumable) {
    if (touchedDone.length) {
      const phases = touchedDone.map((g) => g.phaseId!);
      recommended = {
        kind: 'live',
        from: 'live',
        reason: `Files of completed ${phases.length === 1 ? 'phase' : 'phases'} ${list(phases)} changed outside the session. Restoring a checkpoint would not undo that (it puts back the session's record, not the files): accept the edits, put the files back with git, or keep going, and continue from the current state.`,
      };
    } else if (!files.outsideChanges && input.planChanged !== true && inFlightWithFiles.length === 0) {
      recommended = {
        kind: 'live',
        from: 'live',
        reason: 'Nothing changed outside the session and no phase in flight wrote files: continue where it stopped.',
      };
    } else {
      recommended = {
        kind: 'live',
        from: 'live',
        reason: 'Continue from the current state, after checking the warnings.',
      };
    }
  }
  return {
    recovery: {
      options: [checkpointOption(s, input, offered, touchedDone), ...liveAndFresh(s, input, inFlight)],
      corruptCheckpoints,
      fallback,
      recommended,
    },
    offered: offered ? cpRef(offered) : null,
    touchedDone,
  };
}
