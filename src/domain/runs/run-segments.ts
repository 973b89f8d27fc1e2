/**
 * The runs of a session as segments on a time line (the dashboard draws one bar per run:
 * its agent, a mark where it died, gaps where nothing ran). Pure: liveness comes in.
 */
import { runLabel, runLive } from './runs.js';
import type { Liveness } from './runs.js';
import type { SessionState } from '../state.js';

/** One run as the dashboard draws it. */
export interface RunSegment {
  id: string;
  kind: string;
  /** "claude conversation 1a2b3c4d (run-2, pid 12 on h)". */
  label: string;
  agent: string | null;
  phases: string[];
  startedAt: string;
  /** When it ended (or was found dead, or lapsed); null while live. */
  endedAt: string | null;
  /** `live`, or how it ended; a run not yet written down as dead but known gone is `died`. */
  outcome: 'live' | 'finished' | 'paused' | 'died';
  cause: string | null;
}

/** The session's runs as segments, in start order. */
export function runSegments(s: SessionState, l: Liveness): RunSegment[] {
  return (s.runs ?? []).map((r) => {
    const base = {
      id: r.id,
      kind: r.kind,
      label: runLabel(r),
      agent: r.agent ?? r.cli,
      phases: [...r.phases],
      startedAt: r.startedAt,
    };
    if (r.ended) return { ...base, endedAt: r.ended.at, outcome: r.ended.how, cause: r.ended.cause };
    if (runLive(r, l)) return { ...base, endedAt: null, outcome: 'live' as const, cause: null };
    // Gone but not yet written down: dead since it was found (process) or since it lapsed.
    const found = l.dead?.has(r.id);
    return {
      ...base,
      endedAt: found ? r.renewedAt : (r.expiresAt ?? l.now),
      outcome: 'died' as const,
      cause: found ? 'process-gone' : 'lease-lapsed',
    };
  });
}
