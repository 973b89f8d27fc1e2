/**
 * Retention rules, pure: pinning, which sessions `baton cleanup` may archive or delete, and
 * the parsing of its options. Time comes in as an argument; nothing here does I/O.
 */
import type { EventDraft } from './decide.js';
import { draft } from './decide.js';
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import { clip } from './ids.js';
import { effectiveStatus } from './runs/lease.js';
import type { SessionState, SessionStatus } from './state.js';

/** Statuses cleanup may act on: never `active` or `interrupted`. */
export const CLEANUP_STATUSES: readonly SessionStatus[] = ['paused', 'completed', 'failed', 'abandoned'];
/** Statuses cleanup acts on when `--status` is not given. */
export const DEFAULT_CLEANUP_STATUSES: readonly SessionStatus[] = ['completed', 'failed', 'abandoned'];
/** Default age limit of cleanup: sessions last updated more than this long ago. */
export const DEFAULT_OLDER_THAN = '30d';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses an age such as `12h`, `30d`, `2w` (also `90m`, `45s`) into milliseconds. */
export function parseAge(text: unknown, what = '--older-than'): number {
  const m = typeof text === 'string' ? /^\s*(\d{1,9})\s*([smhdw])\s*$/i.exec(text) : null;
  if (!m) {
    throw new BatonError(
      'BAD_INPUT',
      `${what} must be a number with a unit (s, m, h, d or w); got ${JSON.stringify(clip(String(text)))}.`,
      {
        hint: hint('option.age-examples', { what }),
      },
    );
  }
  return Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
}

/** Parses `--status S[,S…]` for cleanup: statuses among {@link CLEANUP_STATUSES}. */
export function parseCleanupStatuses(text: unknown): SessionStatus[] {
  const parts =
    typeof text === 'string'
      ? text
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== '')
      : [];
  if (!parts.length) {
    throw new BatonError('BAD_INPUT', '--status needs at least one status.', {
      hint: `Use one or more of: ${CLEANUP_STATUSES.join(', ')} (comma-separated).`,
    });
  }
  for (const p of parts) {
    if (p === 'active' || p === 'interrupted') {
      throw new BatonError('BAD_INPUT', `Cleanup never touches ${p} sessions.`, {
        hint: hint('cleanup.statuses', { statuses: [...CLEANUP_STATUSES] }),
      });
    }
    if (!(CLEANUP_STATUSES as readonly string[]).includes(p)) {
      throw new BatonError('BAD_INPUT', `Unknown status ${JSON.stringify(clip(p))}.`, {
        hint: `Use one or more of: ${CLEANUP_STATUSES.join(', ')} (comma-separated).`,
      });
    }
  }
  return [...new Set(parts)] as SessionStatus[];
}

/** Pins (or unpins) a session. Allowed in any status, archived or not; refused when nothing changes. */
export function decidePin(s: SessionState, pinned: boolean, reason: string | null = null): EventDraft[] {
  if ((s.pinned === true) === pinned) {
    throw new BatonError('INVALID_TRANSITION', `Session ${s.id} is already ${pinned ? 'pinned' : 'not pinned'}.`, {
      hint: 'Nothing to do.',
      details: { sessionId: s.id, pinned },
    });
  }
  return [draft(pinned ? 'session.pinned' : 'session.unpinned', { reason })];
}

/** What cleanup needs to know of a session to judge it. */
export interface CleanupCandidate {
  id: string;
  /** The status a reader reports (an active session whose lease expired reads as interrupted). */
  status: SessionStatus;
  pinned: boolean;
  /** Time of the last event. */
  updatedAt: string;
  /** The session lives in the archive location. */
  archived: boolean;
  /** The workspace's active pointer names it. */
  current: boolean;
}

/** Cleanup's criteria. */
export interface CleanupCriteria {
  now: string;
  olderThanMs: number;
  statuses: readonly SessionStatus[];
  /** Delete (archived sessions included) rather than archive. */
  delete: boolean;
}

/** The candidate of a session as read at `now`. */
export function cleanupCandidate(s: SessionState, now: string, archived: boolean, current: boolean): CleanupCandidate {
  return {
    id: s.id,
    status: effectiveStatus(s, now).status,
    pinned: s.pinned === true,
    updatedAt: s.updatedAt,
    archived,
    current,
  };
}

/** Why cleanup leaves this session alone, or null when it is to be archived or deleted. */
export function keptBecause(c: CleanupCandidate, o: CleanupCriteria): string | null {
  if (c.status === 'active' || c.status === 'interrupted') return `it is ${c.status}`;
  if (c.pinned) return 'it is pinned';
  if (c.current) return "it is the workspace's current session";
  if (!o.statuses.includes(c.status)) return `it is ${c.status}`;
  if (!o.delete && c.archived) return 'it is already archived';
  if (Date.parse(c.updatedAt) > Date.parse(o.now) - o.olderThanMs) return 'it was updated too recently';
  return null;
}

/**
 * The sessions cleanup acts on, newest first: those {@link keptBecause} does not keep, minus
 * the newest `keep` of them.
 */
export function selectForCleanup<C extends CleanupCandidate>(
  candidates: readonly C[],
  o: CleanupCriteria & { keep?: number | null },
): C[] {
  const chosen = candidates
    .filter((c) => keptBecause(c, o) === null)
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id.localeCompare(b.id)));
  return chosen.slice(Math.max(0, o.keep ?? 0));
}

/**
 * Refuses, at the moment of acting, a session cleanup must not touch (it changed since it was
 * selected: resumed, pinned, written to). `INVALID_TRANSITION`, nothing written.
 */
export function assertCleanable(c: CleanupCandidate, o: CleanupCriteria): void {
  const why = keptBecause(c, o);
  if (why) {
    throw new BatonError('INVALID_TRANSITION', `Session ${c.id} is left alone by cleanup: ${why}.`, {
      hint: c.pinned ? hint('session.unpin', { session: c.id }) : hint('cleanup.dry-run'),
      details: { sessionId: c.id, status: c.status, pinned: c.pinned },
    });
  }
}
