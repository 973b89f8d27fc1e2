/**
 * How spend bookkeeping folds into a state (used by `apply`): the tokens by host that recorded
 * them, and the end of a transcript's read (its last turn, a response left without final
 * usage). Kept apart from apply.ts so the fold of each concern stays small.
 */
import type { EventDataMap } from './events.js';
import type { SessionState, TokenCounts, TranscriptCursor } from './state.js';
import { zeroTokens } from './state.js';

function add(into: TokenCounts, d: TokenCounts): void {
  into.input += d.input;
  into.output += d.output;
  into.cached += d.cached;
  if (d.cacheWrite) into.cacheWrite = (into.cacheWrite ?? 0) + d.cacheWrite;
}

/**
 * Adds a token record to the machine that recorded it (the event's actor host): `tokens
 * --by host` sums a shared store's records across machines, each priced by its models.
 */
export function recordHostTokens(s: SessionState, d: EventDataMap['tokens.recorded'], host: string): void {
  const h = ((s.tokens.byHost ??= {})[host || '(unknown host)'] ??= zeroTokens());
  add(h, d);
  if (typeof d.model === 'string' && d.model !== '') add(((h.byModel ??= {})[d.model] ??= zeroTokens()), d);
}

/**
 * The last turn and open response a cursor keeps after a read: a read that saw usage says both
 * (`open` null: the last response was complete); one that saw none keeps what was known.
 */
export function cursorTail(
  before: TranscriptCursor | undefined,
  d: EventDataMap['transcript.read'],
): Pick<TranscriptCursor, 'lastTurn' | 'open'> {
  if (d.lastTurn) return { lastTurn: { ...d.lastTurn }, ...(d.open ? { open: d.open } : {}) };
  return {
    ...(before?.lastTurn ? { lastTurn: before.lastTurn } : {}),
    ...(before?.open ? { open: before.open } : {}),
  };
}
