/**
 * Counting transcript usage once per response, and the events an ingest appends. A response
 * is known by its key; its counts are the largest seen for each field (a streamed response is
 * written several times with a growing output count). A response counted before adds only
 * what grew since; one seen again unchanged (a resumed session repeating earlier lines, a
 * sidechain copy, a second read) adds nothing.
 */
import type { EventDraft } from '../decide.js';
import { assertWritable, draft, text } from '../decide.js';
import type { LastTurn, SessionState, TranscriptReadPoint } from '../state.js';
import type { TranscriptCli, UsageRecord, UsageTuple } from './transcript-usage.js';

/** What a batch of usage records adds to what was counted before. */
export interface CountResult {
  /** Tokens to record, by model ('' when unknown). */
  byModel: Map<string, UsageTuple>;
  /** New totals of the responses counted or grown by this batch. */
  responses: Map<string, UsageTuple>;
  /** Responses counted for the first time. */
  newResponses: number;
}

function tuple(text: string, from: number, to: number): UsageTuple | null {
  const v = text.slice(from, to).split(',');
  if (v.length !== 4) return null;
  const t = v.map(Number) as UsageTuple;
  return t.every((x) => Number.isFinite(x)) ? t : null;
}

/** The responses of a ledger (see `transcript.read`) as a map; a later line for a key wins. */
export function decodeLedger(text: string): Map<string, UsageTuple> {
  const seen = new Map<string, UsageTuple>();
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const tab = text.lastIndexOf('\t', end);
    const t = tab > at ? tuple(text, tab + 1, end) : null;
    if (t) seen.set(text.slice(at, tab), t);
    at = end + 1;
  }
  return seen;
}

/** Above this many keys, {@link ledgerLookup} decodes the whole ledger instead of searching it per key. */
const SEARCH_KEYS = 64;

/**
 * The ledger's counts of `keys` only (absent: never counted). A few keys (the new responses of
 * one turn) are searched for in the text, so a session that counted thousands of responses
 * does not decode them all on every read.
 */
export function ledgerLookup(text: string, keys: ReadonlySet<string>): Map<string, UsageTuple> {
  if (keys.size > SEARCH_KEYS) return decodeLedger(text);
  const found = new Map<string, UsageTuple>();
  for (const key of keys) {
    // The last line for the key holds its latest totals.
    let at = text.lastIndexOf(`${key}\t`);
    while (at > 0 && text[at - 1] !== '\n') at = text.lastIndexOf(`${key}\t`, at - 1);
    if (at < 0) continue;
    const from = at + key.length + 1;
    const end = text.indexOf('\n', from);
    const t = tuple(text, from, end === -1 ? text.length : end);
    if (t) found.set(key, t);
  }
  return found;
}

/** Responses as ledger lines (see `transcript.read`). */
export function encodeLedger(responses: ReadonlyMap<string, UsageTuple>): string {
  let out = '';
  for (const [key, v] of responses) out += `${key}\t${v.join(',')}\n`;
  return out;
}

/** Counts a batch against the responses counted before (`seen`, by key). */
export function countResponses(records: readonly UsageRecord[], seen: ReadonlyMap<string, UsageTuple>): CountResult {
  const batch = new Map<string, { model: string | null; usage: UsageTuple }>();
  for (const r of records) {
    const cur = batch.get(r.key);
    if (!cur) batch.set(r.key, { model: r.model, usage: [...r.usage] });
    else {
      cur.model ??= r.model;
      for (let i = 0; i < 4; i++) cur.usage[i] = Math.max(cur.usage[i]!, r.usage[i]!);
    }
  }
  const result: CountResult = { byModel: new Map(), responses: new Map(), newResponses: 0 };
  for (const [key, { model, usage }] of batch) {
    const before = seen.get(key) ?? null;
    const delta = usage.map((v, i) => Math.max(0, v - (before?.[i] ?? 0))) as UsageTuple;
    if (!delta.some((x) => x > 0)) continue;
    if (!before) result.newResponses++;
    result.responses.set(key, usage.map((v, i) => Math.max(v, before?.[i] ?? 0)) as UsageTuple);
    const m = model ?? '';
    const sum = result.byModel.get(m) ?? [0, 0, 0, 0];
    result.byModel.set(m, sum.map((v, i) => v + delta[i]!) as UsageTuple);
  }
  return result;
}

/**
 * What the end of a read shows (records in file order): the conversation's last turn (its last
 * response, largest counts of its lines) and, when that response has no final usage yet (a
 * stream still running, or cut by a crash), its key: its counts are a lower bound. Null when
 * the read saw no usage.
 */
export function readTail(records: readonly UsageRecord[]): { lastTurn: LastTurn; open: string | null } | null {
  const last = records.at(-1);
  if (!last) return null;
  const lines = records.filter((r) => r.key === last.key);
  const usage = [0, 0, 0, 0];
  for (const r of lines) for (let i = 0; i < 4; i++) usage[i] = Math.max(usage[i]!, r.usage[i]!);
  const at = lines.reduce<string | null>((a, r) => (r.at && (!a || r.at > a) ? r.at : a), null);
  const model = lines.find((r) => r.model)?.model ?? null;
  const lastTurn: LastTurn = {
    context: usage[0]! + usage[1]! + usage[2]! + usage[3]!,
    at,
    model,
    ...(lines.some((r) => r.cache1h) ? { cache1h: true as const } : {}),
  };
  return { lastTurn, open: lines.some((r) => r.final !== false) ? null : last.key };
}

/**
 * The phase an agent's tokens go to: an in-progress phase the agent works on, else the first
 * phase in progress, else none.
 */
export function workingPhase(s: SessionState, agent: string): string | null {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  return (running.find((p) => p.agents.includes(agent)) ?? running[0])?.id ?? null;
}

/** One read of a transcript, ready to be recorded (the fields of its `transcript.read`), with what it counted. */
export interface IngestRead extends TranscriptReadPoint {
  cli: TranscriptCli;
  path: string;
  perResponse: boolean;
  model: string | null;
  counted: CountResult;
  /** The phase the tokens go to, when the caller knows it (a run's own phase); default the agent's working phase. */
  phaseId?: string | null;
  /** What the end of the read shows ({@link readTail}); absent when it saw no usage. */
  tail?: { lastTurn: LastTurn; open: string | null } | null;
}

/**
 * The events of a transcript read: a `tokens.recorded` per model for what it counted, on the
 * agent's working phase, then the `transcript.read` that moves the file's offset and
 * remembers the responses counted. Appended together, in one conditional append.
 */
export function decideIngest(s: SessionState, r: IngestRead): EventDraft[] {
  assertWritable(s);
  const agent = text(r.agent, 'agent name', { max: 200 });
  const phaseId = r.phaseId !== undefined ? r.phaseId : workingPhase(s, agent);
  const events: EventDraft[] = [];
  for (const [model, [input, output, cached, cacheWrite]] of r.counted.byModel) {
    events.push(
      draft('tokens.recorded', {
        agent,
        phaseId,
        input,
        output,
        cached,
        ...(cacheWrite ? { cacheWrite } : {}),
        ...(model ? { model } : {}),
      }),
    );
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
      ...(r.tail ? { lastTurn: r.tail.lastTurn, open: r.tail.open } : {}),
      responses: encodeLedger(r.counted.responses),
    }),
  );
  return events;
}
