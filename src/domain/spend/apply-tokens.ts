/** Folding token use and transcript reads into the state (the handlers of apply.ts). */
import type { EventDataMap, StoredEvent } from '../events.js';
import type { SessionState, TokenCounts, TranscriptCursor } from '../state.js';
import { modelCellKey, zeroTokens } from '../state.js';

/** Adds `d` into `into`, counter by counter. */
export function addTokens(into: TokenCounts, d: TokenCounts): void {
  into.input += d.input;
  into.output += d.output;
  into.cached += d.cached;
  // Only where cache writes were recorded: older shapes stay as they were.
  if (d.cacheWrite) into.cacheWrite = (into.cacheWrite ?? 0) + d.cacheWrite;
}

/** Folds a `tokens.recorded` event into the totals per session, agent, phase, model, cell and the host that recorded it. */
export function recordTokens(s: SessionState, d: EventDataMap['tokens.recorded'], host: string): void {
  recordHostTokens(s, d, host);
  addTokens(s.tokens, d);
  addTokens((s.tokens.byAgent[d.agent] ??= zeroTokens()), d);
  if (d.phaseId !== null) addTokens((s.tokens.byPhase[d.phaseId] ??= zeroTokens()), d);
  const model = d.model;
  if (typeof model !== 'string' || model === '') return;
  addTokens(((s.tokens.byModel ??= {})[model] ??= zeroTokens()), d);
  const cells = (s.modelCells ??= {});
  addTokens(
    (cells[modelCellKey(d.agent, d.phaseId, model)] ??= { agent: d.agent, phaseId: d.phaseId, model, ...zeroTokens() }),
    d,
  );
}

/** Folds a `transcript.read` event into the transcript ledger. */
export function readTranscript(s: SessionState, d: EventDataMap['transcript.read'], e: StoredEvent): void {
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
    readAt: e.time,
    ...cursorTail(before, d),
  };
  if (typeof d.responses === 'string') ledger.counted += d.responses;
}

/**
 * Adds a token record to the machine that recorded it (the event's actor host): `tokens
 * --by host` sums a shared store's records across machines, each priced by its models.
 */
export function recordHostTokens(s: SessionState, d: EventDataMap['tokens.recorded'], host: string): void {
  const h = ((s.tokens.byHost ??= {})[host || '(unknown host)'] ??= zeroTokens());
  addTokens(h, d);
  if (typeof d.model === 'string' && d.model !== '') addTokens(((h.byModel ??= {})[d.model] ??= zeroTokens()), d);
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
