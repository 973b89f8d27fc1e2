/**
 * A conversation's end that arrives after its death was recorded: the agent CLI ran its
 * SessionEnd hook but did not wait for it (or it was slow), so the keeper's grace ran out and
 * the run was written down as dead (cause `process-gone`). The conversation really ended by
 * its user's choice, so its end is amended to a clean one, and a session that this death
 * interrupted (no other run live) is paused instead (docs/runs.md).
 */
import type { EventDraft } from '../decide.js';
import { draft } from '../decide.js';
import { findRun, liveRuns, runLabel } from './runs.js';
import type { Liveness } from './runs.js';
import type { SessionState } from '../state.js';

/** Deaths a late end may amend: found by a process check or a lapse, not a lost lease or a disconnect. */
const AMENDABLE = new Set(['process-gone', 'lease-lapsed']);

/**
 * Events that turn run `runId`'s recorded death into a clean end (`finished`, `cause`), and
 * the session it interrupted into paused when no other run is live. Empty when the run is
 * unknown, still open, ended by choice, or died of something a late end does not undo.
 */
export function decideLateEnd(
  s: SessionState,
  runId: string,
  e: { cause: string; detail: string | null },
  l: Liveness,
): EventDraft[] {
  const r = findRun(s, runId);
  if (r?.ended?.how !== 'died' || !AMENDABLE.has(r.ended.cause)) return [];
  const out: EventDraft[] = [
    draft('run.ended', {
      runId,
      how: 'finished',
      command: r.command ?? [],
      exitCode: null,
      signal: null,
      cause: e.cause,
      detail: `${e.detail ? `${e.detail}; ` : ''}its end arrived after its death was recorded (${r.ended.cause})`,
      amend: true,
    }),
  ];
  // Only the interruption this death caused is undone; a session another run took up since is left alone.
  const mine =
    s.status === 'interrupted' && s.statusCause?.cause === 'run-died' && s.statusCause.detail?.includes(`(${r.id},`);
  if (mine && !liveRuns(s, l).length)
    out.push(
      draft('session.paused', {
        cause: e.cause,
        detail: `${e.detail ? `${e.detail}; ` : ''}${runLabel(r)} ended`,
      }),
    );
  return out;
}
