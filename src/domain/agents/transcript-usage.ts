/**
 * Token usage read from the transcripts the agent CLIs write, one record per line that
 * reports a response's usage (a response streamed over several lines gives several records
 * with one key; {@link countResponses} keeps the largest). Counts are normalised to baton's
 * meaning: `input` excludes cached tokens, `cacheRead` and `cacheWrite` apart, `output`
 * includes reasoning ("thinking") tokens. Pure: the caller reads the bytes.
 *
 * - Claude Code (`projects/<cwd>/<session>.jsonl`, sub-agents under `subagents/`): `assistant`
 *   lines, `message.usage` (Anthropic: input already excludes cache reads and writes), keyed
 *   by `message.id` plus `requestId` when present.
 * - Codex rollouts: `token_usage_record` lines per `response_id` (OpenAI: `input_tokens`
 *   includes `cached_input_tokens`; `output_tokens` includes reasoning). The `token_count`
 *   events hold running totals and are used only for rollouts without per-response records.
 * - Gemini CLI chats (JSONL, or the older single JSON file): `type: "gemini"` messages,
 *   `tokens.{input, output, cached, thoughts, tool}` (`input` includes `cached`; thoughts
 *   are billed as output), keyed by message id. Messages repeat as a record is updated.
 */

/** The CLIs whose transcripts baton reads. */
export const TRANSCRIPT_CLIS = ['claude', 'codex', 'gemini'] as const;
export type TranscriptCli = (typeof TRANSCRIPT_CLIS)[number];

/** input, output, cache read, cache write. */
export type UsageTuple = [number, number, number, number];

/** One report of a response's usage. */
export interface UsageRecord {
  /** Identifies the response across lines, files and reads (prefixed by the CLI). */
  key: string;
  model: string | null;
  usage: UsageTuple;
  /** When the line was written (ISO time), when it says. */
  at?: string;
  /**
   * False for a Claude line written before its response's final usage (no `stop_reason` yet:
   * the stream may still run, or was cut); the other CLIs write usage once a response is done.
   */
  final?: boolean;
  /** The response wrote Anthropic's one-hour cache. */
  cache1h?: true;
}

/** What a reader carries from one chunk of a transcript to the next. */
export interface ReaderContext {
  /** Codex: the rollout has per-response records, so its running totals are not counted. */
  perResponse: boolean;
  /** The model in effect (Codex names it on turn lines, not on usage lines). */
  model: string | null;
}

/** Cheap test before parsing a line: lines that cannot carry usage (or a model) are skipped unparsed. */
const MAY_MATTER: Record<TranscriptCli, (line: string) => boolean> = {
  claude: (l) => l.includes('"usage"'),
  codex: (l) =>
    l.includes('token_usage_record') ||
    l.includes('"token_count"') ||
    l.includes('"turn_context"') ||
    l.includes('thread_settings'),
  gemini: (l) => l.includes('"tokens"'),
};

function n(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

function obj(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * The ledger key of a response id: 16 hex digits of two independent 32-bit FNV-1a lanes.
 * The session keeps one line per response counted, and every hook run loads it: ids are
 * 40–90 characters, so keeping them whole made the ledger (and each load) several times
 * larger. Not a defence against crafted ids: two ids of one session collide with odds of
 * about n² / 2⁶⁵ (10⁻¹¹ for 24,000 responses). Pure JS, so the hook loads no crypto module.
 */
export function ledgerKey(id: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

function record(
  key: string,
  model: string | null,
  usage: UsageTuple,
  more: Pick<UsageRecord, 'at' | 'final' | 'cache1h'> = {},
): UsageRecord[] {
  if (!usage.some((x) => x > 0)) return [];
  const at = more.at && Number.isFinite(Date.parse(more.at)) ? new Date(more.at).toISOString() : undefined;
  return [
    {
      key: ledgerKey(key),
      model: model?.slice(0, 200) ?? null,
      usage,
      ...(at ? { at } : {}),
      ...(more.final === false ? { final: false } : {}),
      ...(more.cache1h ? { cache1h: true as const } : {}),
    },
  ];
}

function claudeLine(d: Record<string, unknown>): UsageRecord[] {
  const m = obj(d['message']);
  const u = obj(m?.['usage']);
  if (d['type'] !== 'assistant' || !m || !u) return [];
  const id = str(m['id']) ?? str(d['uuid']);
  if (!id) return [];
  const req = str(d['requestId']);
  const model = str(m['model']);
  return record(
    `claude:${id}${req ? `:${req}` : ''}`,
    model === '<synthetic>' ? null : model,
    [n(u['input_tokens']), n(u['output_tokens']), n(u['cache_read_input_tokens']), n(u['cache_creation_input_tokens'])],
    {
      ...(str(d['timestamp']) ? { at: str(d['timestamp'])! } : {}),
      final: str(m['stop_reason']) !== null,
      ...(n(obj(u['cache_creation'])?.['ephemeral_1h_input_tokens']) > 0 ? { cache1h: true as const } : {}),
    },
  );
}

function openAiUsage(u: Record<string, unknown>): UsageTuple {
  const cached = n(u['cached_input_tokens']);
  const written = n(u['cache_write_input_tokens']);
  return [Math.max(0, n(u['input_tokens']) - cached - written), n(u['output_tokens']), cached, written];
}

function codexLine(d: Record<string, unknown>, ctx: ReaderContext): UsageRecord[] {
  const p = obj(d['payload']);
  if (!p) return [];
  if (d['type'] === 'turn_context') {
    ctx.model = str(p['model']) ?? ctx.model;
    return [];
  }
  if (d['type'] === 'token_usage_record') {
    const u = obj(p['usage']);
    const id = str(p['response_id']);
    const at = str(d['timestamp']);
    return u && id ? record(`codex:${id}`, ctx.model, openAiUsage(u), at ? { at } : {}) : [];
  }
  if (d['type'] !== 'event_msg') return [];
  if (p['type'] === 'thread_settings_applied') {
    ctx.model = str(obj(p['thread_settings'])?.['model']) ?? ctx.model;
    return [];
  }
  if (p['type'] !== 'token_count' || ctx.perResponse) return [];
  const info = obj(p['info']);
  const last = obj(info?.['last_token_usage']);
  const total = obj(info?.['total_token_usage']);
  if (!last || !total) return [];
  // A running total identifies the step that raised it; repeats of one event carry the same.
  return record(
    `codex:total:${n(total['total_tokens'])}:${n(total['input_tokens'])}:${n(total['output_tokens'])}`,
    ctx.model,
    openAiUsage(last),
    str(d['timestamp']) ? { at: str(d['timestamp'])! } : {},
  );
}

function geminiMessage(m: unknown): UsageRecord[] {
  const o = obj(m);
  const t = obj(o?.['tokens']);
  const id = str(o?.['id']);
  if (!o || !t || !id || o['type'] !== 'gemini') return [];
  const cached = n(t['cached']);
  const at = str(o['timestamp']);
  return record(
    `gemini:${id}`,
    str(o['model']),
    [Math.max(0, n(t['input']) - cached) + n(t['tool']), n(t['output']) + n(t['thoughts']), cached, 0],
    at ? { at } : {},
  );
}

function geminiLine(d: Record<string, unknown>): UsageRecord[] {
  const set = obj(d['$set']);
  if (set && Array.isArray(set['messages'])) return set['messages'].flatMap(geminiMessage);
  return geminiMessage(d);
}

/**
 * Usage records of complete transcript lines (JSONL). Lines that are not JSON or carry no
 * usage are skipped. `ctx` is updated (and must be kept for the next chunk of the same file).
 */
export function usageFromLines(cli: TranscriptCli, lines: readonly string[], ctx: ReaderContext): UsageRecord[] {
  const may = MAY_MATTER[cli];
  if (cli === 'codex' && !ctx.perResponse && lines.some((l) => l.includes('token_usage_record')))
    ctx.perResponse = true;
  const out: UsageRecord[] = [];
  for (const line of lines) {
    if (!may(line)) continue;
    let d: Record<string, unknown> | null;
    try {
      d = obj(JSON.parse(line));
    } catch {
      continue;
    }
    if (!d) continue;
    if (cli === 'claude') out.push(...claudeLine(d));
    else if (cli === 'codex') out.push(...codexLine(d, ctx));
    else out.push(...geminiLine(d));
  }
  return out;
}

/**
 * Usage records of a Gemini chat saved as one JSON document (`{ "messages": [...] }`), or null
 * when the text is not such a document (yet: a file being rewritten).
 */
export function usageFromGeminiJson(text: string): UsageRecord[] | null {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch {
    return null;
  }
  const messages = obj(d)?.['messages'];
  return Array.isArray(messages) ? messages.flatMap(geminiMessage) : null;
}
