/**
 * `manager.transcripts.ingest`: token use read from an agent CLI's transcript, incrementally
 * and exactly. The session remembers, per file, the byte offset after the last complete line
 * read, and every response counted with its counts (`transcript.read`); a read starts at the
 * offset (a seek: a 50 MB transcript costs what its new lines cost), leaves a partial last
 * line for next time, and appends its tokens and the new offset in one conditional append.
 * Two processes ingesting at once: one append wins, the other re-reads from the new offset
 * and counts only what is still new.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../domain/errors.js';
import { countResponses, decideIngest, ledgerLookup, readTail } from '../../domain/agents/ingest.js';
import type { CountResult } from '../../domain/agents/ingest.js';
import { TRANSCRIPT_CLIS, usageFromGeminiJson, usageFromLines } from '../../domain/agents/transcript-usage.js';
import type { ReaderContext, TranscriptCli, UsageRecord } from '../../domain/agents/transcript-usage.js';
import type { EventDraft } from '../../domain/decide.js';
import type { SessionState, TranscriptCursor } from '../../domain/state.js';
import type { TranscriptEntry } from '../../domain/agents/mirrored-transcript.js';
import { clearMirrored, mirrorTranscript, mirroredLines } from './transcript-mirror.js';
import type { MirrorInput, MirrorResult } from './transcript-mirror.js';
import type { ManagerCore } from '../types.js';

/** Input of {@link Transcripts.ingest}. */
export interface IngestInput {
  cli: TranscriptCli;
  /** The transcript file (the hook payload's `transcript_path` or `agent_transcript_path`). */
  path: string;
  /** Who spent the tokens: `claude`, or a sub-agent's name (`claude/<type>#<id8>`). */
  agent: string;
  /** The CLI's own session id, kept with the file's cursor. */
  agentSessionId?: string;
  /** The run the tokens were spent in (an agent CLI conversation): the change is made in it. */
  run?: string;
  /** The phase the tokens go to, given the state (a run's own phase); default the agent's working phase. */
  phaseOf?: (s: SessionState) => string | null;
}

/** What one ingest added (zero when nothing was new). */
export interface IngestResult {
  /** Responses counted for the first time. */
  responses: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Bytes read per chunk: bounds memory on a first read of a large transcript. */
const CHUNK = 8 * 1024 * 1024;
/** Most bytes one call reads: a huge backlog is read over several calls (each remembers where it stopped). */
const MAX_READ = 256 * 1024 * 1024;
/** Skipped bytes worth remembering even when they counted nothing (so the next read starts past them). */
const REMEMBER_SKIPPED = 1024 * 1024;
const MAX_PATH = 4096;

/** A read of the new part of a transcript, not yet recorded. */
interface Read {
  records: UsageRecord[];
  offset: number;
  fileSize: number;
  fileMtimeMs: number;
  ctx: ReaderContext;
  /** Bytes consumed since the cursor. */
  advanced: number;
}

/** Thrown out of a change when the read found nothing worth an append. */
class NothingNew extends Error {}

function zero(): IngestResult {
  return { responses: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

function checkInput(i: IngestInput): { cli: TranscriptCli; file: string } {
  if (!(TRANSCRIPT_CLIS as readonly string[]).includes(i.cli)) {
    throw new BatonError('BAD_INPUT', `Unknown transcript kind ${JSON.stringify(i.cli)}.`, {
      hint: `Use one of: ${TRANSCRIPT_CLIS.join(', ')}.`,
    });
  }
  if (typeof i.path !== 'string' || i.path === '' || i.path.length > MAX_PATH || i.path.includes('\0')) {
    throw new BatonError('BAD_INPUT', 'The transcript path is missing or invalid.', {
      hint: "Pass the hook payload's transcript_path.",
    });
  }
  return { cli: i.cli, file: path.resolve(i.path) };
}

/** Reads whole lines from `from` to the end of an open file; a partial last line stays unread. */
function readLines(
  fd: number,
  from: number,
  size: number,
  cli: TranscriptCli,
  ctx: ReaderContext,
): { records: UsageRecord[]; offset: number } {
  const records: UsageRecord[] = [];
  let offset = from;
  let carry: Buffer = Buffer.alloc(0);
  let pos = from;
  while (pos < size) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - pos));
    const got = fs.readSync(fd, buf, 0, buf.length, pos);
    if (got <= 0) break;
    pos += got;
    const data = carry.length ? Buffer.concat([carry, buf.subarray(0, got)]) : buf.subarray(0, got);
    // Split at the last newline: a newline byte never occurs inside a UTF-8 sequence.
    const cut = data.lastIndexOf(0x0a);
    if (cut === -1) {
      carry = Buffer.from(data);
      continue;
    }
    records.push(...usageFromLines(cli, data.toString('utf8', 0, cut).split('\n'), ctx));
    offset += cut + 1;
    carry = Buffer.from(data.subarray(cut + 1));
  }
  return { records, offset };
}

/** Reads what is new in a transcript since `cursor`. */
function readNew(cli: TranscriptCli, file: string, cursor: TranscriptCursor | undefined): Read {
  let fd: number;
  try {
    // Non-blocking: a named pipe in place of a transcript must not hang the hook.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw new BatonError(
      'NOT_FOUND',
      `The transcript ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`,
      {
        hint: 'Check the path the hook passed; nothing was recorded from it.',
        details: { path: file },
        cause: e,
      },
    );
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      throw new BatonError('BAD_INPUT', `The transcript ${file} is not a regular file.`, {
        hint: "Pass the hook payload's transcript_path.",
        details: { path: file },
      });
    }
    const ctx: ReaderContext = { perResponse: cursor?.perResponse ?? false, model: cursor?.model ?? null };
    const base = { fileSize: st.size, fileMtimeMs: Math.floor(st.mtimeMs), ctx };
    if (cli === 'gemini' && file.endsWith('.json')) {
      // The older Gemini chat file is one JSON document rewritten in place: read it whole,
      // only when it changed; the response keys keep a re-read from counting twice.
      if (cursor && cursor.fileSize === st.size && cursor.fileMtimeMs === base.fileMtimeMs)
        return { ...base, records: [], offset: cursor.offset, advanced: 0 };
      const buf = Buffer.alloc(st.size);
      const got = st.size ? fs.readSync(fd, buf, 0, st.size, 0) : 0;
      const records = usageFromGeminiJson(buf.toString('utf8', 0, got));
      return {
        ...base,
        records: records ?? [],
        offset: records ? got : (cursor?.offset ?? 0),
        advanced: records ? got : 0,
      };
    }
    // A file shorter than the offset was replaced: read it again from the start.
    const from = cursor && cursor.offset <= st.size ? cursor.offset : 0;
    const { records, offset } = readLines(fd, from, Math.min(st.size, from + MAX_READ), cli, ctx);
    return { ...base, records, offset, advanced: offset - from };
  } finally {
    fs.closeSync(fd);
  }
}

/** What ingestion needs of the manager: its validated, conditional, retried change. */
export interface ChangeRunner {
  change<R>(
    id: string,
    fn: (s: SessionState) => { events: EventDraft[]; result: R },
    o?: { agent?: string | null; run?: string },
  ): Promise<unknown>;
}

/** Transcript ingestion, one of the manager's operations (`manager.transcripts`). */
export class Transcripts {
  constructor(private readonly manager: ChangeRunner & ManagerCore) {}

  /**
   * Appends a batch of transcript lines handed over line by line (the Claude Agent SDK's
   * session store), with the tokens their responses report counted once per response as
   * {@link ingest} counts them, in one conditional append; `create` makes the session with
   * the first batch. `BAD_INPUT` for lines that are not objects with a string `type` or a
   * bad sub-transcript name, `EXISTS` when `owns` refuses the session, `NOT_FOUND` without
   * `create`, `INVALID_TRANSITION` for a session that takes no more changes.
   */
  mirror(sessionId: string, input: MirrorInput): Promise<MirrorResult> {
    return mirrorTranscript(this.manager, sessionId, input);
  }

  /** The lines mirrored into one transcript of a session, in append order (a retried line once); null when none, or no such session. */
  mirrored(
    sessionId: string,
    subpath?: string | null,
    owns?: (metadata: Record<string, unknown>) => boolean,
  ): Promise<TranscriptEntry[] | null> {
    return mirroredLines(this.manager, sessionId, subpath, owns);
  }

  /** Deletes a mirrored sub-transcript (its lines stay in the journal, no longer read back). */
  clearMirrored(
    sessionId: string,
    subpath: string,
    owns?: (metadata: Record<string, unknown>) => boolean,
  ): Promise<void> {
    return clearMirrored(this.manager, sessionId, subpath, owns);
  }

  /**
   * Reads token use from the new part of a transcript and records it on the session: counted
   * once per response (across files and calls), by model, on the agent's phase in progress.
   * Safe under concurrent calls. Rejects with `NOT_FOUND` when the file cannot be read,
   * `INVALID_TRANSITION` when the session takes no more changes.
   */
  async ingest(sessionId: string, input: IngestInput): Promise<IngestResult> {
    const { cli, file } = checkInput(input);
    let counted: CountResult | null = null;
    try {
      await this.manager.change(
        sessionId,
        (s) => {
          // Runs again on a lost race, with the winner's offset and responses.
          const read = readNew(cli, file, s.transcripts?.files[file]);
          const seen = ledgerLookup(s.transcripts?.counted ?? '', new Set(read.records.map((x) => x.key)));
          counted = countResponses(read.records, seen);
          const tail = readTail(read.records);
          // A response that got its final line without new counts still closes (no longer a lower bound).
          const closes = !!s.transcripts?.files[file]?.open && tail !== null && tail.open === null;
          if (counted.byModel.size === 0 && read.advanced < REMEMBER_SKIPPED && !closes) throw new NothingNew();
          const events = decideIngest(s, {
            cli,
            path: file,
            agent: input.agent,
            agentSessionId: input.agentSessionId ?? null,
            offset: read.offset,
            fileSize: read.fileSize,
            fileMtimeMs: read.fileMtimeMs,
            perResponse: read.ctx.perResponse,
            model: read.ctx.model,
            counted,
            tail,
            ...(input.phaseOf ? { phaseId: input.phaseOf(s) } : {}),
          });
          return { events, result: undefined };
        },
        { agent: input.agent, ...(input.run ? { run: input.run } : {}) },
      );
    } catch (e) {
      if (e instanceof NothingNew) return zero();
      throw e;
    }
    const result = zero();
    const c = counted as CountResult | null;
    if (!c) return result;
    result.responses = c.newResponses;
    for (const [input, output, cacheRead, cacheWrite] of c.byModel.values()) {
      result.input += input;
      result.output += output;
      result.cacheRead += cacheRead;
      result.cacheWrite += cacheWrite;
    }
    return result;
  }
}
