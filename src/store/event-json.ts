import type { NewEvent } from '../domain/events.js';

/** `JSON.stringify(e)` without the fields a store records apart from the event (seq, v, batch), in the event's own key order. */
export function eventJson(e: NewEvent): string {
  const { seq: _seq, v: _v, batch: _batch, ...rest } = e as unknown as Record<string, unknown>;
  return JSON.stringify(rest);
}
