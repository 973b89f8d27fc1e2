/** Folding token use and transcript reads into the state (the handlers of apply.ts). */
import type { EventDataMap, StoredEvent } from '../events.js';
import type { HostTokens, SessionState, TokenCounts, TokenUsage, TranscriptCursor } from '../state.js';
import { modelCellKey, zeroTokens } from '../state.js';

/** Adds `d` into `into`, counter by counter. */
function addTokens(into: TokenCounts, d: TokenCounts): void {
  into.input += d.input;
  into.output += d.output;
  into.cached += d.cached;
  // Only where cache writes were recorded: older shapes stay as they were.
  if (d.cacheWrite) into.cacheWrite = (into.cacheWrite ?? 0) + d.cacheWrite;
}

/** `base` plus `d`, as a new object. */
function added<T extends TokenCounts>(base: T, d: TokenCounts): T {
  const out = { ...base };
  addTokens(out, d);
  return out;
}

/**
 * Folds a `tokens.recorded` event into the totals per session, agent, phase, model, cell and
 * the host that recorded it. The objects it changes are replaced, not changed in place: a
 * fold shares them with the state it started from, and so need not copy all of `tokens`
 * first (own.ts), which every token record would pay (BENCHMARKS.md's token updates row).
 */
export function recordTokens(s: SessionState, d: EventDataMap['tokens.recorded'], host: string): void {
  const t = s.tokens;
  const model = typeof d.model === 'string' && d.model !== '' ? d.model : null;
  const next: TokenUsage = {
    ...t,
    byAgent: { ...t.byAgent, [d.agent]: added(t.byAgent[d.agent] ?? zeroTokens(), d) },
    byHost: hostTokens(t.byHost, d, model, host || '(unknown host)'),
  };
  addTokens(next, d);
  if (d.phaseId !== null) next.byPhase = { ...t.byPhase, [d.phaseId]: added(t.byPhase[d.phaseId] ?? zeroTokens(), d) };
  s.tokens = next;
  if (model === null) return;
  next.byModel = { ...t.byModel, [model]: added(t.byModel?.[model] ?? zeroTokens(), d) };
  const key = modelCellKey(d.agent, d.phaseId, model);
  const cell = s.modelCells?.[key] ?? { agent: d.agent, phaseId: d.phaseId, model, ...zeroTokens() };
  s.modelCells = { ...s.modelCells, [key]: added(cell, d) };
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
 * `byHost` with a token record added to the machine that recorded it (the event's actor host):
 * `tokens --by host` sums a shared store's records across machines, each priced by its models.
 */
function hostTokens(
  byHost: TokenUsage['byHost'],
  d: EventDataMap['tokens.recorded'],
  model: string | null,
  host: string,
): Record<string, HostTokens> {
  const h: HostTokens = added(byHost?.[host] ?? zeroTokens(), d);
  if (model !== null) h.byModel = { ...h.byModel, [model]: added(h.byModel?.[model] ?? zeroTokens(), d) };
  return { ...byHost, [host]: h };
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
