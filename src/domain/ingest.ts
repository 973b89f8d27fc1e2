/**
 * Counting transcript usage once per response, and the events an ingest appends. A response
 * is known by its key; its counts are the largest seen for each field (a streamed response is
 * written several times with a growing output count). A response counted before adds only
 * what grew since; one seen again unchanged (a resumed session repeating earlier lines, a
 * sidechain copy, a second read) adds nothing.
 */
import type { EventDraft } from './decide.js';
import { assertWritable, draft, text } from './decide.js';
import type { SessionState } from './state.js';
import type { TranscriptCli, UsageRecord, UsageTuple } from './transcript-usage.js';

/** What a batch of usage records adds to what was counted before. */
export interface CountResult {
  /** Tokens to record, by model ('' when unknown). */
  byModel: Map<string, UsageTuple>;
  /** New totals of the responses counted or grown by this batch. */
  responses: Record<string, UsageTuple>;
  /** Responses counted for the first time. */
  newResponses: number;
}

/** Counts a batch against the responses counted before (`seen`, by key). */
export function countResponses(records: readonly UsageRecord[], seen: Readonly<Record<string, UsageTuple>>): CountResult {
  const batch = new Map<string, { model: string | null; usage: UsageTuple }>();
  for (const r of records) {
    const cur = batch.get(r.key);
    if (!cur) batch.set(r.key, { model: r.model, usage: [...r.usage] });
    else {
      cur.model ??= r.model;
      for (let i = 0; i < 4; i++) cur.usage[i] = Math.max(cur.usage[i]!, r.usage[i]!);
    }
  }
  const result: CountResult = { byModel: new Map(), responses: {}, newResponses: 0 };
  for (const [key, { model, usage }] of batch) {
    const before = Object.hasOwn(seen, key) ? seen[key]! : null;
    const delta = usage.map((v, i) => Math.max(0, v - (before?.[i] ?? 0))) as UsageTuple;
    if (!delta.some((x) => x > 0)) continue;
    if (!before) result.newResponses++;
    result.responses[key] = usage.map((v, i) => Math.max(v, before?.[i] ?? 0)) as UsageTuple;
    const m = model ?? '';
    const sum = result.byModel.get(m) ?? [0, 0, 0, 0];
    result.byModel.set(m, sum.map((v, i) => v + delta[i]!) as UsageTuple);
  }
  return result;
}

/**
 * The phase an agent's tokens go to: an in-progress phase the agent works on, else the first
 * phase in progress, else none.
 */
export function workingPhase(s: SessionState, agent: string): string | null {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  return (running.find((p) => p.agents.includes(agent)) ?? running[0])?.id ?? null;
}

/** One read of a transcript, ready to be recorded. */
export interface IngestRead {
  cli: TranscriptCli;
  path: string;
  agent: string;
  agentSessionId: string | null;
  offset: number;
  fileSize: number;
  fileMtimeMs: number;
  perResponse: boolean;
  model: string | null;
  counted: CountResult;
}

/**
 * The events of a transcript read: a `tokens.recorded` per model for what it counted, on the
 * agent's working phase, then the `transcript.read` that moves the file's offset and
 * remembers the responses counted. Appended together, in one conditional append.
 */
export function decideIngest(s: SessionState, r: IngestRead): EventDraft[] {
  assertWritable(s);
  const agent = text(r.agent, 'agent name', { max: 200 });
  const phaseId = workingPhase(s, agent);
  const events: EventDraft[] = [];
  for (const [model, [input, output, cached, cacheWrite]] of r.counted.byModel) {
    events.push(draft('tokens.recorded', { agent, phaseId, input, output, cached, ...(cacheWrite ? { cacheWrite } : {}), ...(model ? { model } : {}) }));
  }
  events.push(
    draft('transcript.read', {
      cli: r.cli,
      path: r.path,
      agent,
      agentSessionId: r.agentSessionId,
      offset: r.offset,
      fileSize: r.fileSize,
      fileMtimeMs: r.fileMtimeMs,
      ...(r.perResponse ? { perResponse: true } : {}),
      ...(r.model ? { model: r.model } : {}),
      responses: r.counted.responses,
    }),
  );
  return events;
}
