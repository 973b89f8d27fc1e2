/**
 * A conversation transcript mirrored into a session, line by line, as the Claude Agent SDK's
 * `SessionStore` hands it over (`baton-sessions/claude-agent-sdk`, docs/claude-agent-sdk.md):
 * each batch of lines is one `transcript.mirrored` event, on the main transcript or on a
 * named sub-transcript (a sub-agent's, `subagents/agent-<id>`); a sub-transcript deleted by
 * the SDK is a `transcript.cleared`. The lines' token use is counted as the hooks count a
 * Claude Code transcript file ({@link usageFromLines}, one response once, through the same
 * ledger), so a conversation both mirrored and read by the hooks is counted once. Pure.
 */
import { assertWritable, draft } from '../decide.js';
import type { EventDraft } from '../decide.js';
import { BatonError } from '../errors.js';
import type { EventDataMap, StoredEvent } from '../events.js';
import { countResponses, encodeLedger, ledgerLookup, workingPhase } from './ingest.js';
import type { CountResult } from './ingest.js';
import type { SessionState } from '../state.js';
import { usageFromLines } from './transcript-usage.js';

/** One transcript line as the SDK passes it: a JSON object with a string `type`, most with a `uuid`. */
export type TranscriptEntry = { type: string; uuid?: string; timestamp?: string; [k: string]: unknown };

/** Most lines in one batch: the SDK sends about 100 ms of a turn, `importSessionToStore` 500 at a time. */
export const MAX_MIRROR_ENTRIES = 10_000;
/** Longest sub-transcript name. */
export const MAX_SUBPATH = 512;

const bad = (message: string, hint: string, details?: Record<string, unknown>): BatonError =>
  new BatonError('BAD_INPUT', message, { hint, ...(details ? { details } : {}) });

/** Checks a sub-transcript name: absent (the main transcript) or a non-empty relative name without `..`. */
export function checkSubpath(subpath: unknown): string | null {
  if (subpath === undefined || subpath === null) return null;
  if (
    typeof subpath !== 'string' ||
    subpath === '' ||
    subpath.length > MAX_SUBPATH ||
    subpath.startsWith('/') ||
    subpath.split(/[\\/]/).includes('..') ||
    /[\u0000-\u001f]/.test(subpath)
  ) {
    throw bad(
      `The sub-transcript name ${JSON.stringify(subpath)} is not valid: it must be a non-empty relative name (such as subagents/agent-1) of at most ${MAX_SUBPATH} characters, without "..".`,
      'Leave subpath out for the main transcript.',
      { subpath },
    );
  }
  return subpath;
}

/** Checks a batch of lines: JSON objects with a string `type`, at most {@link MAX_MIRROR_ENTRIES}. */
export function checkEntries(entries: unknown): TranscriptEntry[] {
  if (!Array.isArray(entries)) throw bad('The transcript lines must be an array.', 'Pass an array of entries.');
  if (entries.length > MAX_MIRROR_ENTRIES) {
    throw bad(
      `A batch of ${entries.length} transcript lines is more than ${MAX_MIRROR_ENTRIES}.`,
      'Append them in smaller batches (importSessionToStore takes batchSize).',
    );
  }
  entries.forEach((e, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e) || typeof (e as { type?: unknown }).type !== 'string')
      throw bad(
        `Transcript line ${i} is not an object with a string "type".`,
        'Pass the entries as the SDK gives them.',
        {
          index: i,
        },
      );
  });
  return entries as TranscriptEntry[];
}

/** The agent a transcript's tokens go to: `agent` for the main one, `agent/subagent#<id8>` for a sub-agent's. */
export function transcriptAgent(agent: string, subpath: string | null): string {
  if (subpath === null) return agent;
  const m = /(?:^|\/)agent-([^/]+)$/.exec(subpath);
  return `${agent}/subagent#${(m?.[1] ?? subpath).slice(0, 8)}`;
}

/** A batch to mirror, ready to be decided. */
export interface MirrorInput {
  subpath: string | null;
  entries: TranscriptEntry[];
  /** Who spent the tokens the lines report. */
  agent: string;
}

/**
 * The events of a mirrored batch: a `tokens.recorded` per model for the responses it reports
 * that were not counted before (on the agent's working phase), then the `transcript.mirrored`
 * with the lines and the responses counted. `s` null: the session is created with them.
 */
export function decideMirror(s: SessionState | null, i: MirrorInput): { events: EventDraft[]; counted: CountResult } {
  if (s) assertWritable(s);
  const records = usageFromLines(
    'claude',
    i.entries.map((e) => JSON.stringify(e)),
    { perResponse: false, model: null },
  );
  const seen = ledgerLookup(s?.transcripts?.counted ?? '', new Set(records.map((r) => r.key)));
  const counted = countResponses(records, seen);
  const phaseId = s ? workingPhase(s, i.agent) : null;
  const events: EventDraft[] = [];
  for (const [model, [input, output, cached, cacheWrite]] of counted.byModel) {
    events.push(
      draft('tokens.recorded', {
        agent: i.agent,
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
    draft('transcript.mirrored', {
      subpath: i.subpath,
      agent: i.agent,
      entries: i.entries,
      responses: encodeLedger(counted.responses),
    }),
  );
  return { events, counted };
}

/** The `transcript.cleared` of a sub-transcript (the main one goes with its session). */
export function decideClear(s: SessionState, subpath: string): EventDraft[] {
  assertWritable(s);
  return [draft('transcript.cleared', { subpath })];
}

type Fold<K extends keyof EventDataMap> = (s: SessionState, d: EventDataMap[K], e: StoredEvent) => void;

/** How mirror events fold into `mirror` and the token ledger (listed in apply.ts). */
export const MIRROR_HANDLERS: { [K in 'transcript.mirrored' | 'transcript.cleared']: Fold<K> } = {
  // Replaced, never changed in place: the state a fold starts from may share it.
  'transcript.mirrored': (s, d) => {
    const m = s.mirror ?? { entries: 0, transcripts: {} };
    const name = d.subpath ?? '';
    const n = Array.isArray(d.entries) ? d.entries.length : 0;
    s.mirror = {
      entries: m.entries + n,
      transcripts: { ...m.transcripts, [name]: (m.transcripts[name] ?? 0) + n },
    };
    if (typeof d.responses === 'string' && d.responses) {
      const ledger = s.transcripts ?? { files: {}, counted: '' };
      s.transcripts = { ...ledger, counted: ledger.counted + d.responses };
    }
  },
  'transcript.cleared': (s, d) => {
    if (!s.mirror) return;
    const { [d.subpath]: _gone, ...rest } = s.mirror.transcripts;
    s.mirror = { ...s.mirror, transcripts: rest };
  },
};

/**
 * The lines of one transcript as a session's journal holds them, in append order, or null
 * when none were mirrored (or the sub-transcript was deleted since). A line whose `uuid` was
 * kept already is a retried batch or a replayed import: kept once, where it first came.
 */
export function mirroredEntries(events: readonly StoredEvent[], subpath: string | null): TranscriptEntry[] | null {
  let out: TranscriptEntry[] | null = null;
  let seen = new Set<string>();
  for (const e of events) {
    if (e.type === 'transcript.cleared' && subpath !== null && e.data.subpath === subpath) {
      out = null;
      seen = new Set();
    }
    if (e.type !== 'transcript.mirrored' || (e.data.subpath ?? null) !== subpath) continue;
    out ??= [];
    for (const entry of e.data.entries) {
      const id = typeof entry.uuid === 'string' ? entry.uuid : null;
      if (id !== null) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      out.push(entry);
    }
  }
  return out && out.length > 0 ? out : null;
}
