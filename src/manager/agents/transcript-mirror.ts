/**
 * Transcripts mirrored into a session line by line (`manager.transcripts.mirror`), as the
 * Claude Agent SDK's session store hands them over (docs/claude-agent-sdk.md): each batch is
 * one conditional append of its lines and of the tokens its responses report, counted once
 * per response through the same ledger as transcript files; the first batch creates the
 * session. Reading back returns the lines in append order, a retried line once.
 */
import { BatonError, isBatonError } from '../../domain/errors.js';
import type { NewEvent, StoredEvent } from '../../domain/events.js';
import {
  checkEntries,
  checkSubpath,
  decideClear,
  decideMirror,
  mirroredEntries,
  transcriptAgent,
} from '../../domain/agents/mirrored-transcript.js';
import type { TranscriptEntry } from '../../domain/agents/mirrored-transcript.js';
import type { ManagerCore } from '../types.js';

/** How to create the session a first batch lands in. */
export interface MirrorCreate {
  title: string;
  /** Session metadata that names what the session mirrors (checked by {@link MirrorInput.owns} later). */
  metadata: Record<string, unknown>;
}

/** Input of `manager.transcripts.mirror`. */
export interface MirrorInput {
  /** The sub-transcript (a sub-agent's, e.g. `subagents/agent-1`); absent: the main transcript. */
  subpath?: string | null;
  /** The lines, JSON objects with a string `type`, as the SDK passes them. */
  entries: unknown;
  /** Who spent the tokens of the main transcript (default `claude`); a sub-agent's go to `<agent>/subagent#<id8>`. */
  agent?: string;
  /** Creates the session when it does not exist (else `NOT_FOUND`). */
  create?: MirrorCreate;
  /** Refuses to write to a session that is not the one expected (`EXISTS`): the session's state is passed. */
  owns?: (metadata: Record<string, unknown>) => boolean;
}

/** What one mirrored batch added. */
export interface MirrorResult {
  lines: number;
  /** Responses counted for the first time, and their tokens. */
  responses: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

function notOurs(id: string): BatonError {
  return new BatonError('EXISTS', `Session ${id} exists and does not hold this transcript.`, {
    hint: 'Use another key (projectKey / sessionId), or delete the session.',
    details: { sessionId: id },
  });
}

/** Appends a batch of lines (and their tokens) to session `id`, creating it with the first batch when asked. */
export async function mirrorTranscript(m: ManagerCore, id: string, i: MirrorInput): Promise<MirrorResult> {
  const subpath = checkSubpath(i.subpath);
  const entries = checkEntries(i.entries);
  const agent = transcriptAgent(i.agent ?? 'claude', subpath);
  const result = (c: ReturnType<typeof decideMirror>['counted']): MirrorResult => {
    const r = { lines: entries.length, responses: c.newResponses, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const [input, output, cacheRead, cacheWrite] of c.byModel.values()) {
      r.input += input;
      r.output += output;
      r.cacheRead += cacheRead;
      r.cacheWrite += cacheWrite;
    }
    return r;
  };
  if (entries.length === 0) return result({ byModel: new Map(), responses: new Map(), newResponses: 0 });
  for (let attempt = 0; ; attempt++) {
    try {
      const done = await m.change(
        id,
        (s) => {
          if (i.owns && !i.owns(s.metadata)) throw notOurs(id);
          const d = decideMirror(s, { subpath, entries, agent });
          return { events: d.events, result: d.counted };
        },
        { agent },
      );
      return result(done.result);
    } catch (e) {
      if (!isBatonError(e, 'NOT_FOUND') || !i.create || attempt > 3) throw e;
    }
    const time = m.time();
    const actor = { agent, pid: m.origin.pid, host: m.origin.host };
    const d = decideMirror(null, { subpath, entries, agent });
    const created: NewEvent = {
      type: 'session.created',
      time,
      actor,
      data: {
        title: i.create.title.slice(0, 1000),
        idFormat: 'explicit',
        phases: [],
        budgetMax: null,
        contextSummary: null,
        metadata: i.create.metadata,
      },
    };
    try {
      await m.createFrom(id, [created, ...d.events.map((e) => ({ ...e, time, actor }) as NewEvent)]);
      return result(d.counted);
    } catch (e) {
      // Another writer created it first: append to it like any other.
      if (!isBatonError(e, 'EXISTS')) throw e;
    }
  }
}

/** The journal of `id`, or null when there is no such session (or it is not the one expected). */
async function journal(
  m: ManagerCore,
  id: string,
  owns?: (metadata: Record<string, unknown>) => boolean,
): Promise<StoredEvent[] | null> {
  try {
    const events = await m.log(id);
    if (owns) {
      const first = events[0];
      const metadata = first?.type === 'session.created' ? (first.data.metadata ?? {}) : {};
      if (!owns(metadata)) return null;
    }
    return events;
  } catch (e) {
    if (isBatonError(e, 'NOT_FOUND')) return null;
    throw e;
  }
}

/** The lines mirrored into one transcript of `id` in append order (a retried line once), or null when none. */
export async function mirroredLines(
  m: ManagerCore,
  id: string,
  subpath: string | null | undefined,
  owns?: (metadata: Record<string, unknown>) => boolean,
): Promise<TranscriptEntry[] | null> {
  const sub = checkSubpath(subpath);
  const events = await journal(m, id, owns);
  return events ? mirroredEntries(events, sub) : null;
}

/** Deletes one sub-transcript of `id` (the main transcript goes with its session); nothing when there is none. */
export async function clearMirrored(
  m: ManagerCore,
  id: string,
  subpath: string,
  owns?: (metadata: Record<string, unknown>) => boolean,
): Promise<void> {
  const sub = checkSubpath(subpath);
  if (sub === null) return;
  try {
    await m.change(id, (s) => {
      if (owns && !owns(s.metadata)) throw notOurs(id);
      return { events: s.mirror?.transcripts[sub] !== undefined ? decideClear(s, sub) : [], result: undefined };
    });
  } catch (e) {
    if (!isBatonError(e, 'NOT_FOUND')) throw e;
  }
}
