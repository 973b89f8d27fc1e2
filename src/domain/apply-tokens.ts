/** Folding token use and transcript reads into the state (the handlers of apply.ts). */
import type { EventDataMap, StoredEvent } from './events.js';
import type { SessionState, TokenCounts } from './state.js';
import { modelCellKey, zeroTokens } from './state.js';

/** Adds `d` into `into`, counter by counter. */
export function addTokens(into: TokenCounts, d: TokenCounts): void {
  into.input += d.input;
  into.output += d.output;
  into.cached += d.cached;
  // Only where cache writes were recorded: older shapes stay as they were.
  if (d.cacheWrite) into.cacheWrite = (into.cacheWrite ?? 0) + d.cacheWrite;
}

/** Folds a `tokens.recorded` event into the totals per session, agent, phase, model and cell. */
export function recordTokens(s: SessionState, d: EventDataMap['tokens.recorded']): void {
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
  ledger.files[d.path] = {
    cli: d.cli,
    agent: d.agent,
    agentSessionId: d.agentSessionId,
    offset: d.offset,
    fileSize: d.fileSize,
    fileMtimeMs: d.fileMtimeMs,
    perResponse: d.perResponse === true || ledger.files[d.path]?.perResponse === true,
    model: d.model ?? null,
    readAt: e.time,
  };
  if (typeof d.responses === 'string') ledger.counted += d.responses;
}
