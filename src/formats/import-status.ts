/**
 * The session lifecycle at import: the events baton's state machine allows to take a session
 * to the foreign session's status.
 */
import type { EventType } from '../domain/events.js';
import type { SessionStatus } from '../domain/state.js';
import { SESSION_TRANSITIONS } from '../domain/transitions.js';
import type { SessionAction } from '../domain/transitions.js';

/** The lifecycle events that take a session from `from` to `to` (one step, or resume then one), or null when none does. */
export function statusEvent(
  to: SessionStatus,
  from: SessionStatus,
  raw: string | null,
): Array<{ type: EventType; data: unknown }> | null {
  if (to === from) return [];
  const one = (f: SessionStatus): Array<{ type: EventType; data: unknown }> | null => {
    const action = (Object.entries(SESSION_TRANSITIONS[f]) as Array<[SessionAction, SessionStatus]>).find(
      ([, target]) => target === to,
    )?.[0];
    if (!action) return null;
    const detail = raw ?? null;
    switch (action) {
      case 'pause':
        return [{ type: 'session.paused', data: { cause: 'imported', detail } }];
      case 'resume':
        return [{ type: 'session.resumed', data: { from: f } }];
      case 'interrupt':
        return [{ type: 'session.interrupted', data: { cause: 'imported', detail } }];
      case 'complete':
        return [{ type: 'session.completed', data: { detail } }];
      case 'fail':
        return [{ type: 'session.failed', data: { detail } }];
      case 'abandon':
        return [{ type: 'session.abandoned', data: { detail } }];
    }
  };
  const direct = one(from);
  if (direct) return direct;
  if (SESSION_TRANSITIONS[from].resume) {
    const then = one('active');
    if (then) return [{ type: 'session.resumed', data: { from } }, ...then];
  }
  return null;
}
