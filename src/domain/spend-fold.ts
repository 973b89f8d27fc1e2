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

/** Folds a transcript read: the file's cursor (where the next read starts, its last turn, an open response) and the responses counted. */
export function readTranscript(s: SessionState, d: EventDataMap['transcript.read'], time: string): void {
  const ledger = (s.transcripts ??= { files: {}, counted: '' });
  const before = ledger.files[d.path];
  ledger.files[d.path] = {
    cli: d.cli,
    agent: d.agent,
    agentSessionId: d.agentSessionId,
    offset: d.offset,
    fileSize: d.fileSize,
    fileMtimeMs: d.fileMtimeMs,
    perResponse: d.perResponse === true || before?.perResponse === true,
    model: d.model ?? null,
    readAt: time,
    ...cursorTail(before, d),
  };
  if (typeof d.responses === 'string') ledger.counted += d.responses;
}

/**
 * The last turn and open response a cursor keeps after a read: a read that saw usage says both
 * (`open` null: the last response was complete); one that saw none keeps what was known.
 */
function cursorTail(
  before: TranscriptCursor | undefined,
  d: EventDataMap['transcript.read'],
): Pick<TranscriptCursor, 'lastTurn' | 'open'> {
  if (d.lastTurn) return { lastTurn: { ...d.lastTurn }, ...(d.open ? { open: d.open } : {}) };
  return {
    ...(before?.lastTurn ? { lastTurn: before.lastTurn } : {}),
    ...(before?.open ? { open: before.open } : {}),
  };
}
