/**
 * Retention through the manager: pin/unpin, delete with a tombstone, and `cleanup` (archive or
 * delete what is old, finished and not pinned). The rules are pure (domain/retention.ts);
 * this module reads the sessions, re-checks each one at the moment it acts, and calls the
 * store.
 */
import { decideArchive } from '../../domain/decide.js';
import { BatonError, isBatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import {
  DEFAULT_CLEANUP_STATUSES,
  DEFAULT_OLDER_THAN,
  assertCleanable,
  cleanupCandidate,
  decidePin,
  parseAge,
  selectForCleanup,
} from '../../domain/retention.js';
import type { CleanupCandidate, CleanupCriteria } from '../../domain/retention.js';
import type { SessionState, SessionStatus } from '../../domain/state.js';
import type { Tombstone } from '../../store/types.js';
import type { OnProgress } from '../progress.js';
import type { ChangeOptions, ChangeResult, ManagerCore as SessionManager } from '../types.js';

export type { Tombstone };

/** Options of {@link cleanup}. */
export interface CleanupOptions {
  /** Only sessions last updated more than this long ago (default 30 days). */
  olderThanMs?: number;
  /** Leave the newest N of the selected sessions alone. */
  keep?: number | null;
  /** Statuses to act on (default completed, failed, abandoned; never active or interrupted). */
  statuses?: readonly SessionStatus[];
  /** Only say what would happen. */
  dryRun?: boolean;
  /** Delete (archived sessions included) instead of archiving. */
  delete?: boolean;
  agent?: string | null;
  /** Told about each session left alone that was selected but changed before its turn, or could not be read. */
  onSkip?: (id: string, reason: string) => void;
  /** Told before the first session is read, then as each is read and as each chosen one is acted on (see progress.ts). */
  onProgress?: OnProgress;
}

/** One thing cleanup did (or would do). */
export interface CleanupAction {
  id: string;
  action: 'archive' | 'delete';
  status: SessionStatus;
  /** Time of the session's last event. */
  updatedAt: string;
  title: string;
}

/** Result of {@link cleanup}. */
export interface CleanupResult {
  dryRun: boolean;
  actions: CleanupAction[];
}

/** Pins or unpins a session: a pinned one is never touched by cleanup. */
export function pin(
  m: SessionManager,
  id: string,
  pinned: boolean,
  reason: string | null = null,
  o: ChangeOptions = {},
): Promise<ChangeResult<undefined>> {
  return m.change(id, (s) => ({ events: decidePin(s, pinned, reason), result: undefined }), o);
}

/**
 * Deletes a session for good and leaves a tombstone (`list --deleted`). Refused for a session
 * that is active, interrupted (a lease that expired reads so) or pinned. With
 * `expectedRevision`, only if the session is still at that revision.
 */
export async function deleteSession(
  m: SessionManager,
  id: string,
  o: ChangeOptions & { allowed?: (s: SessionState, c: CleanupCandidate) => void } = {},
): Promise<Tombstone> {
  const store = m.store;
  for (let attempt = 1; ; attempt++) {
    const s = await m.get(id);
    if (o.expectedRevision !== undefined && o.expectedRevision !== s.revision) {
      throw new BatonError('CONFLICT', `Session ${id} is at revision ${s.revision}, not ${o.expectedRevision}.`, {
        hint: hint('session.reread'),
        details: { sessionId: id, expectedRevision: o.expectedRevision, revision: s.revision },
      });
    }
    const now = m.time();
    const c = cleanupCandidate(s, now, await store.isArchived(id), (await store.getActive()) === id);
    if (o.allowed) o.allowed(s, c);
    else assertDeletable(c);
    try {
      const t = await store.delete(id, s.revision, { deletedAt: now, title: s.title, status: c.status });
      await store.withWorkspaceLock(async () => {
        if ((await store.getActive()) === id) await store.setActive(null);
      });
      return t;
    } catch (e) {
      // Someone wrote between the read and the delete: judge the session again.
      if (isBatonError(e, 'CONFLICT') && o.expectedRevision === undefined && attempt < 20) continue;
      throw e;
    }
  }
}

function assertDeletable(c: CleanupCandidate): void {
  if (c.status === 'active' || c.status === 'interrupted' || c.pinned) {
    throw new BatonError(
      'INVALID_TRANSITION',
      `Session ${c.id} is ${c.pinned ? 'pinned' : c.status}; it cannot be deleted.`,
      {
        hint: c.pinned ? hint('session.unpin', { session: c.id }) : hint('session.end-first', { session: c.id }),
        details: { sessionId: c.id, status: c.status, pinned: c.pinned },
      },
    );
  }
}

/** The deleted sessions (their tombstones), newest deletion first. */
export async function listDeleted(m: SessionManager): Promise<Tombstone[]> {
  return (await m.store.listTombstones()).reverse();
}

/**
 * Archives (or with `delete`, deletes) the sessions that are finished (by default completed,
 * failed or abandoned), not pinned, not the workspace's current session, and last updated
 * before `olderThanMs` ago, keeping the newest `keep` of them. Active and interrupted
 * sessions are never touched. Each session is checked again right before it is acted on;
 * one that changed meanwhile is left alone (`onSkip`). Stops at the first other error.
 */
export async function cleanup(m: SessionManager, o: CleanupOptions = {}): Promise<CleanupResult> {
  const olderThanMs = o.olderThanMs ?? parseAge(DEFAULT_OLDER_THAN);
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0)
    throw new BatonError('BAD_INPUT', `The age limit must be zero or more; got ${olderThanMs}.`, {
      hint: hint('option.example', { option: 'older-than', value: '30d' }),
    });
  if (o.keep !== undefined && o.keep !== null && (!Number.isInteger(o.keep) || o.keep < 0)) {
    throw new BatonError('BAD_INPUT', `--keep must be a whole number of sessions; got ${String(o.keep)}.`, {
      hint: hint('option.example', { option: 'keep', value: '10' }),
    });
  }
  const skip = o.onSkip ?? (() => undefined);
  const now = m.time();
  const criteria: CleanupCriteria = {
    now,
    olderThanMs,
    statuses: o.statuses ?? DEFAULT_CLEANUP_STATUSES,
    delete: o.delete === true,
  };
  const cutoff = Date.parse(now) - olderThanMs;
  const current = await m.store.getActive();

  // A registry row changes with every status change and its updatedAt is never later than
  // the session's, so rows rule out most sessions without reading them; the rest are read.
  const candidates: Array<CleanupCandidate & { title: string }> = [];
  const rows = (await m.list({ all: true })).filter(
    (row) =>
      row.id !== current &&
      row.pinned !== true &&
      criteria.statuses.includes(row.status) &&
      (criteria.delete || !row.archived) &&
      Date.parse(row.updatedAt) <= cutoff,
  );
  // One count over both rounds: reading each candidate, then acting on each chosen one.
  let total = rows.length;
  let step = 0;
  const progress = (item: string | null): void => o.onProgress?.({ done: step, total, item });
  progress(null);
  for (const row of rows) {
    step++;
    progress(row.id);
    let s: SessionState;
    try {
      s = await m.get(row.id);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      skip(row.id, `it cannot be read (${e.code}: ${e.message})`);
      continue;
    }
    candidates.push({ ...cleanupCandidate(s, now, await m.store.isArchived(row.id), false), title: s.title });
  }
  const chosen = selectForCleanup(candidates, { ...criteria, keep: o.keep ?? null });
  const actions: CleanupAction[] = chosen.map((c) => ({
    id: c.id,
    action: criteria.delete ? 'delete' : 'archive',
    status: c.status,
    updatedAt: c.updatedAt,
    title: c.title,
  }));
  if (o.dryRun) return { dryRun: true, actions };

  const done: CleanupAction[] = [];
  const change: ChangeOptions = { agent: o.agent ?? null };
  total += actions.length;
  for (const a of actions) {
    step++;
    progress(a.id);
    try {
      if (a.action === 'delete') {
        let status = a.status;
        // The same rules, applied to the session as read right before it goes.
        await deleteSession(m, a.id, {
          ...change,
          allowed: (_s, c) => {
            assertCleanable(c, criteria);
            status = c.status;
          },
        });
        done.push({ ...a, status });
      } else {
        await archiveChecked(m, a.id, criteria, change);
        done.push(a);
      }
    } catch (e) {
      // It changed since it was selected (resumed, pinned, written to, removed), or its
      // toolkit requires a step before archiving (toolkit-guard.ts): leave it.
      if (isBatonError(e, 'INVALID_TRANSITION') || isBatonError(e, 'NOT_FOUND') || isBatonError(e, 'BLOCKED')) {
        skip(a.id, e.message);
        continue;
      }
      throw e;
    }
  }
  return { dryRun: false, actions: done };
}

/** Archives a session if the cleanup rules still accept it; the archive is recorded only then. */
async function archiveChecked(
  m: SessionManager,
  id: string,
  criteria: CleanupCriteria,
  o: ChangeOptions,
): Promise<void> {
  const s = await m.get(id);
  if (!s.archived) {
    const current = (await m.store.getActive()) === id;
    // Validated against the state the archive is appended to (read again on a lost race).
    await m.change(
      id,
      (fresh) => {
        assertCleanable(cleanupCandidate(fresh, criteria.now, false, current), criteria);
        return { events: decideArchive(fresh), result: undefined };
      },
      o,
    );
  }
  // Moves the folder of a session recorded as archived.
  await m.archive(id, o);
}
