import type { OnProgress } from '../progress.js';

export interface DoctorProblem {
  /** Stable code, e.g. `TORN_TAIL` (see {@link DOCTOR_CODES}). */
  code: string;
  /** The session concerned; null for the store itself. */
  sessionId: string | null;
  message: string;
  /** `--fix` repairs it. */
  fixable: boolean;
  /** It was repaired (and a check after the repair no longer finds it). */
  fixed: boolean;
  /** File (relative to the store) or object the problem is about, when there is one. */
  path: string | null;
}

/** Result of {@link runDoctor}. */
export interface DoctorReport {
  /** No problem is left (after the repairs, with `fix`). */
  ok: boolean;
  fix: boolean;
  /** The store checked. */
  location: string;
  /** Why the store cannot be written (then `fix` is refused with STORE_READ_ONLY), or null. */
  readOnly: string | null;
  /** Sessions checked, and how many of them are archived. */
  sessions: number;
  archived: number;
  problems: DoctorProblem[];
}

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  fix?: boolean;
  /** Agent the repair events are attributed to. */
  agent?: string | null;
  /** Told after each session checked (see progress.ts). */
  onProgress?: OnProgress;
}

/** Every problem code with what it means and what `--fix` does about it. */
export const DOCTOR_CODES: Readonly<Record<string, { means: string; fix: string }>> = {
  JOURNAL_CHECKSUM: {
    means: 'journal lines that fail their checksum (or are not JSON) followed by good ones; commands fail with CORRUPT',
    fix: 'repair: the journal is rebuilt with every readable event, each damaged line kept as a repair event, the original kept aside',
  },
  SEQ_GAP: {
    means: 'journal seq numbers that are not 1, 2, 3 … (lines deleted, duplicated or reordered)',
    fix: 'repair, as for JOURNAL_CHECKSUM',
  },
  TORN_TAIL: {
    means: 'the last journal line is incomplete: an append that was never acknowledged',
    fix: 'cut through the normal open path; the bytes are kept in journal.jsonl.torn-<time> and a repair.torn_tail event is appended',
  },
  EVENTS_LOST: {
    means:
      'a snapshot, checkpoint or registry row proves a revision past the end of the journal: acknowledged events were lost (a journal cut, or put back from an older copy); commands fail with CORRUPT',
    fix: 'repair: the state is recovered from the newest valid snapshot, the lost seqs are recorded in a repair.events_lost event and never handed out again, the original kept aside',
  },
  JOURNAL_MISSING: {
    means: 'a session folder without a readable journal.jsonl',
    fix: 'none: restore the journal from a backup, or move the folder away',
  },
  JOURNAL_EMPTY: { means: 'a journal without a session.created event', fix: 'none: restore the journal from a backup' },
  JOURNAL_CORRUPT: { means: 'the store refuses to read the session (stores without file-level checks)', fix: 'repair' },
  SNAPSHOT_CORRUPT: {
    means: 'snapshot.json or snapshot.json.bak cannot be read',
    fix: 'moved aside (*.corrupt-<time>); the state is rebuilt from the journal',
  },
  SNAPSHOT_MISMATCH: {
    means: 'a snapshot that differs from a full replay of the journal, or does not point at its journal line',
    fix: 'moved aside, as for SNAPSHOT_CORRUPT (stores without snapshot files: overwritten with the replayed state)',
  },
  INDEX_CORRUPT: { means: 'index.json is not a readable registry', fix: 'moved aside and the registry rebuilt' },
  INDEX_STALE: {
    means:
      'registry rows that differ from the sessions (status, title, progress, lease…), rows without a session, sessions without a row',
    fix: 'the registry is rebuilt from the sessions',
  },
  ACTIVE_DANGLING: {
    means: 'the active pointer names a session that does not exist',
    fix: 'pointed at the one active session, else cleared',
  },
  ACTIVE_NOT_ACTIVE: {
    means: 'the active pointer names a session that has ended (completed, failed, abandoned) or is archived',
    fix: 'pointed at the one active session, else cleared',
  },
  ACTIVE_UNPOINTED: {
    means: 'a session is active but the active pointer names another session (or none)',
    fix: 'with no pointer: pointed at it; otherwise report only (switch to it or pause it)',
  },
  DUPLICATE_ACTIVE: {
    means: 'more than one session is active; the workspace allows one',
    fix: 'report only: the message names the session to pause',
  },
  LEASE_EXPIRED: {
    means: 'a session says active but its lease expired (its run vanished); it reads as interrupted',
    fix: 'the interruption is recorded (lease.expired, session.interrupted) by a normal write',
  },
  CHECKPOINT_CORRUPT: {
    means: 'a checkpoint that fails its checksum or shape check',
    fix: 'report only: checkpoints are never deleted; restores fall back to the previous valid one',
  },
  TEMP_FILES: {
    means: 'temp files (*.tmp-<pid>-…) or half-created session folders (*.creating-<pid>-…) of processes that are gone',
    fix: 'removed (their writes were never acknowledged)',
  },
  STALE_LOCK: {
    means: 'lock files whose owner process is gone, and old .want/.break lock markers',
    fix: 'removed, the way a waiting writer breaks them',
  },
  STORE_MARKER: { means: 'store.json is missing or unreadable', fix: 'rewritten (the old file kept aside)' },
  STORE_LAYOUT: {
    means: 'sessions/ or archive/ is missing (or not a plain directory)',
    fix: 'a missing one is created',
  },
  HOOK_PROBLEMS: {
    means:
      'agent CLI hooks (`baton hook`) hit problems they could not record past (no store, a locked or damaged one, a bad or huge payload, an unreadable transcript, a bug); one line per kind, from the hook log',
    fix: 'acknowledged: later reports show only new problems (the log itself is kept)',
  },
  DUPLICATE_FOLDER: {
    means: 'a session has both a live and an archived folder; the archived one is ignored',
    fix: 'none: compare them and remove one',
  },
};

/** Identifies a problem across the passes of one run (code, session, path). */
export function keyOf(p: DoctorProblem): string {
  return `${p.code}\u0000${p.sessionId ?? ''}\u0000${p.path ?? ''}`;
}

/** Store problems first, then by session; within a group in the order found. */
export function sortProblems(list: DoctorProblem[]): DoctorProblem[] {
  return list
    .map((p, i) => ({ p, i }))
    .sort((a, b) => {
      const x = a.p.sessionId;
      const y = b.p.sessionId;
      if (x !== y) return x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      return a.i - b.i;
    })
    .map((e) => e.p);
}
