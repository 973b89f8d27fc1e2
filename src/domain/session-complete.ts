/**
 * What completing a session requires of its phases: a session marked done with work left
 * undone misleads whoever reads it later, so every phase must be completed or skipped,
 * unless the caller forces it, and then the phases left unfinished are recorded.
 */
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import type { SessionState } from './state.js';

/**
 * The ids of the phases of `s` that are neither completed nor skipped. With any and without
 * `force`: `BLOCKED`, naming each with its status, and the way out (finish or skip them, or
 * force). With `force`: the list, for the `session.completed` event to record.
 */
export function unfinishedForCompletion(s: SessionState, force: boolean): string[] {
  const unfinished = s.phases.filter((p) => p.status !== 'completed' && p.status !== 'skipped');
  if (unfinished.length && !force) {
    const list = unfinished.map((p) => `${p.id} (${p.status.replace('_', ' ')})`).join(', ');
    throw new BatonError('BLOCKED', `Session ${s.id} has unfinished phases: ${list}.`, {
      hint: hint('session.complete-unfinished', { session: s.id, phases: unfinished.map((p) => p.id) }),
      details: { sessionId: s.id, unfinished: unfinished.map((p) => ({ id: p.id, status: p.status })) },
    });
  }
  return unfinished.map((p) => p.id);
}
