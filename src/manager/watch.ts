import { BatonError, isBatonError } from '../domain/errors.js';
import { hint } from '../domain/hints.js';
import type { StoredEvent } from '../domain/events.js';
import { validateId } from '../domain/ids.js';
import type { ManagerCore as SessionManager } from './types.js';

/** One batch of new events of one session, as {@link watchSessions} reports it. */
export interface SessionChange {
  sessionId: string;
  /** The session's revision after these events. */
  revision: number;
  /** The events after the last revision reported (or seen at start), in seq order. */
  events: StoredEvent[];
}

/** Options of {@link watchSessions}. */
export interface WatchSessionsOptions {
  /** Only this session. */
  sessionId?: string | null;
  onChange: (c: SessionChange) => void;
  /** Problems that did not stop watching (a session that could not be read). */
  onWarning?: (message: string) => void;
}

/**
 * Streams the changes of a store: every event appended after watching started, grouped per
 * session in seq order, none twice and none skipped. The store's change feed (LISTEN/NOTIFY
 * on PostgreSQL, file watching on the file store) only says which session moved to which
 * revision; the events themselves are read from the journal after the revision already
 * reported. Resolves once watching has started, with a function that stops it.
 * `STORE_UNAVAILABLE` for a store without a change feed.
 */
export async function watchSessions(m: SessionManager, o: WatchSessionsOptions): Promise<() => Promise<void>> {
  const store = m.store;
  if (!store.watch) {
    throw new BatonError(
      'STORE_UNAVAILABLE',
      `The ${store.kind} store at ${store.location} has no change feed to watch.`,
      {
        hint: 'Watch a file store or a PostgreSQL store.',
      },
    );
  }
  const only = o.sessionId ? validateId(o.sessionId) : null;
  if (only && !(await store.exists(only))) {
    throw new BatonError('NOT_FOUND', `No session ${only}.`, {
      hint: hint('session.list-all-see'),
      details: { sessionId: only },
    });
  }
  /** Revision reported last (or seen at start) per session. */
  const reported = new Map<string, number>();
  /** Highest revision the feed announced per session, not yet read. */
  const wanted = new Map<string, number>();
  let opened!: () => void;
  // Announcements wait until the baseline is in place: the events of a session that existed
  // before watching began are not news.
  let chain: Promise<void> = new Promise<void>((resolve) => (opened = resolve));
  let stopped = false;

  const catchUp = async (id: string): Promise<void> => {
    const target = wanted.get(id);
    const from = reported.get(id) ?? 0;
    if (target === undefined || target <= from) return;
    let events: StoredEvent[];
    try {
      events = await store.readEvents(id, from);
    } catch (e) {
      if (!isBatonError(e)) throw e;
      if (!isBatonError(e, 'NOT_FOUND')) o.onWarning?.(`Session ${id} could not be read: ${(e as Error).message}`);
      return;
    }
    if (!events.length || stopped) return;
    const revision = events[events.length - 1]!.seq;
    reported.set(id, revision);
    o.onChange({ sessionId: id, revision, events });
  };

  // The feed starts before the baseline is read, so nothing written in between is lost: a
  // change announced for a revision the baseline already holds is not reported again.
  const stop = await store.watch(({ sessionId, revision }) => {
    if (stopped || (only && sessionId !== only)) return;
    wanted.set(sessionId, Math.max(wanted.get(sessionId) ?? 0, revision));
    chain = chain
      .then(() => catchUp(sessionId))
      .catch((e: unknown) => o.onWarning?.(`Watching ${sessionId} failed: ${(e as Error).message}`));
  });
  try {
    const listed = await store.list();
    const ids = only ? [only] : [...listed.summaries.filter((s) => !s.archived).map((s) => s.id), ...listed.missing];
    for (const id of ids) {
      const rev = await revisionOf(m, id);
      if (rev !== null) reported.set(id, rev);
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    opened();
  }
  await chain;
  return async () => {
    stopped = true;
    await stop();
    await chain;
  };
}

async function revisionOf(m: SessionManager, id: string): Promise<number | null> {
  try {
    return (await m.store.load(id)).revision;
  } catch (e) {
    if (isBatonError(e)) return null;
    throw e;
  }
}
