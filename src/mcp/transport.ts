import { STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { refuseArguments } from './arguments-guard.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Largest JSON-RPC message (one line, in bytes) the server reads: the SDK's stdio limit, 10 MiB. */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** JSON-RPC "Invalid Request": the answer to a message too large to read, or not JSON-RPC. */
export const INVALID_REQUEST = -32600;

/** JSON-RPC "Parse error": the answer to a line that is not JSON. */
export const PARSE_ERROR = -32700;

/** Where messages are written: a writer (false: wait for 'drain') and the stream's 'drain' event. */
export interface MessageOutput {
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** What is read: a byte stream with the events the transport listens to. */
export interface MessageInput {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'error', listener: (e: Error) => void): unknown;
  pause(): unknown;
}

/** Bytes of an oversized line kept to find its id: its start and its end. */
const HEAD_BYTES = 4096;
const TAIL_BYTES = 512;

const ID_VALUE = String.raw`(-?\d{1,15}(?=\s*[,}])|"(?:[^"\\]|\\.){0,200}")`;
/** `"id"` as the first member after `jsonrpc` / `method` (as most clients order a request). */
const HEAD_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)*"id"\s*:\s*${ID_VALUE}`,
);
/** `"id"` as the last member of the outermost object (as the SDK's Client orders a request). */
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * The id of a request too large to parse, when it can be read cheaply from the line's first
 * and last bytes (see HEAD_ID, TAIL_ID); else null, which JSON-RPC uses for "unknown id".
 */
export function recoverId(head: string, tail: string): string | number | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!m) return null;
  try {
    const id = JSON.parse(m[1]!) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
  } catch {
    return null;
  }
}

/**
 * A newline-delimited JSON-RPC transport (as MCP's stdio transport) that survives a message
 * over {@link MAX_LINE_BYTES}: the SDK's own transport closes the connection when its read
 * buffer overflows, so every later call goes unanswered. Here an oversized line is skipped as
 * it streams in (only its first and last bytes are kept) and answered with an Invalid Request
 * error naming the limit, under the request's id when it can be found; the server reads on.
 * A line that is not JSON is answered with a Parse error (id null), one that is JSON but not a
 * JSON-RPC message (a batch included) with an Invalid Request error (under its id when it has a
 * usable one); both are reported to `onerror` and skipped, and the server reads on. (The SDK's
 * transport only reports them, leaving the client without an answer.)
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping an oversized line: its first bytes and (so far) last bytes. */
  private oversized: { head: Buffer; tail: Buffer } | null = null;
  private closed = false;

  constructor(
    private readonly input: MessageInput,
    private readonly output: MessageOutput,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.chunks = [];
    this.oversized = null;
    this.onclose?.();
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private readonly onInputError = (e: Error): void => this.onerror?.(e);

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  };

  /** Adds a piece of the current line, switching to skipping once the line is over the limit. */
  private take(piece: Buffer): void {
    if (!piece.length) return;
    const total = this.size + piece.length;
    if (this.oversized) {
      this.oversized.tail = lastBytes(Buffer.concat([this.oversized.tail, lastBytes(piece, TAIL_BYTES)]), TAIL_BYTES);
    } else if (total > this.maxLineBytes) {
      const all = [...this.chunks, piece];
      this.oversized = {
        head: Buffer.concat(all, Math.min(HEAD_BYTES, total)),
        tail: lastBytes(
          Buffer.concat([lastBytes(this.chunks.at(-1) ?? Buffer.alloc(0), TAIL_BYTES), lastBytes(piece, TAIL_BYTES)]),
          TAIL_BYTES,
        ),
      };
      this.chunks = [];
    } else {
      this.chunks.push(piece);
    }
    this.size = total;
  }

  private endLine(): void {
    const size = this.size;
    const oversized = this.oversized;
    const chunks = this.chunks;
    this.chunks = [];
    this.size = 0;
    this.oversized = null;
    if (oversized) {
      this.refuseOversized(oversized.head.toString('utf8'), oversized.tail.toString('utf8'), size);
      return;
    }
    const line = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
    let value: unknown;
    try {
      // JSON's whitespace includes the \r of a CRLF line end.
      value = JSON.parse(line);
    } catch (e) {
      if (!line.trim()) return;
      this.onerror?.(e as Error);
      this.refuse(null, PARSE_ERROR, `Parse error: the line is not JSON (${(e as Error).message}).`);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = toMessage(value);
    } catch (e) {
      this.onerror?.(e as Error);
      const what = Array.isArray(value)
        ? 'a batch (a JSON array), which MCP does not take: send one message per line'
        : 'not a JSON-RPC 2.0 request, notification or response';
      this.refuse(readableId(value), INVALID_REQUEST, `Invalid Request: the message is ${what}.`);
      return;
    }
    const refusal = refuseArguments(value);
    if (refusal) {
      void this.write(`${JSON.stringify(refusal)}\n`);
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers a line that could not be taken with a JSON-RPC error (id null when it cannot be read). */
  private refuse(id: string | number | null, code: number, message: string): void {
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private refuseOversized(head: string, tail: string, size: number): void {
    const id = recoverId(head, tail);
    const limit = `${this.maxLineBytes} bytes${this.maxLineBytes === MAX_LINE_BYTES ? ' (10 MiB)' : ''}`;
    const error = {
      code: INVALID_REQUEST,
      message: `Message too large: a JSON-RPC message may be at most ${limit}; this one had ${size} bytes and was dropped. Send less per call (e.g. store long text in a file and record it with artifact_add).`,
      data: { maxBytes: this.maxLineBytes, bytes: size },
    };
    this.onerror?.(
      new Error(`dropped a ${size}-byte message over the ${this.maxLineBytes}-byte limit (id ${JSON.stringify(id)})`),
    );
    // JSON-RPC answers a request whose id cannot be read with id null.
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
  }
}

/** A parsed line as a JSON-RPC message, as the SDK's stdio transport takes it (its schema's error is thrown). */
export function toMessage(value: unknown): JSONRPCMessage {
  return JSONRPCMessageSchema.parse(value);
}

/** The id of something that is not a valid message, when it has a usable one; else null. */
function readableId(value: unknown): string | number | null {
  const id =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : null;
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
}

function lastBytes(b: Buffer, n: number): Buffer {
  return b.length > n ? b.subarray(b.length - n) : b;
}
