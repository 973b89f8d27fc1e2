/**
 * The stdio transport's line reader (src/mcp/transport.ts) and the stdout diversion
 * (src/mcp/stdio.ts), in process: an oversized line is answered and skipped, lines split
 * across chunks still parse, and only the transport's writer reaches stdout.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { divertWrites } from '../../src/mcp/stdio.js';
import { LineTransport, recoverId } from '../../src/mcp/transport.js';

/** A transport over an in-memory input with a small line limit; collects what it reads and writes. */
async function reader(max = 1000): Promise<{
  input: PassThrough;
  got: JSONRPCMessage[];
  written: string[];
  errors: string[];
  feed: (s: string | Buffer) => Promise<void>;
}> {
  const input = new PassThrough();
  const written: string[] = [];
  const out = Object.assign(new EventEmitter(), { write: (s: string) => (written.push(s), true) });
  const t = new LineTransport(input, out, max);
  const got: JSONRPCMessage[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e.message);
  await t.start();
  const feed = (s: string | Buffer): Promise<void> => new Promise((r) => input.write(s, () => setImmediate(r)));
  return { input, got, written, errors, feed };
}

const req = (id: number, extra = ''): string => `{"jsonrpc":"2.0","id":${id},"method":"ping"${extra}}\n`;

describe('LineTransport', () => {
  it('reads lines split across chunks and several lines in one chunk', async () => {
    const r = await reader();
    const two = req(1) + req(2);
    await r.feed(two.slice(0, 10));
    await r.feed(two.slice(10, 40));
    await r.feed(two.slice(40));
    expect(r.got.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
  });

  it('answers an oversized line with -32600 under its id (first or last member), skips it and reads on', async () => {
    const r = await reader(1000);
    const pad = 'z'.repeat(5000);
    await r.feed(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"${pad}"}}\n`);
    // The SDK Client's order: the id last, streamed in small chunks.
    const sdkOrder = `{"method":"tools/call","params":{"name":"n","arguments":{"id":"inner","text":"${pad}"}},"jsonrpc":"2.0","id":"req-8"}\n`;
    for (let i = 0; i < sdkOrder.length; i += 300) await r.feed(sdkOrder.slice(i, i + 300));
    await r.feed(`${pad}\n`);
    await r.feed(req(9));
    const answers = r.written.map(
      (w) => JSON.parse(w) as { id: unknown; error: { code: number; message: string; data: { maxBytes: number } } },
    );
    expect(answers.map((a) => a.id)).toEqual([7, 'req-8', null]);
    for (const a of answers) {
      expect(a.error.code).toBe(-32600);
      expect(a.error.message).toContain('at most 1000 bytes');
      expect(a.error.data.maxBytes).toBe(1000);
    }
    expect(r.got.map((m) => (m as { id: number }).id)).toEqual([9]);
    expect(r.errors).toHaveLength(3);
  });

  it('answers a line that is not JSON with a Parse error (id null), and JSON that is not JSON-RPC (a batch too) with Invalid Request; reads on', async () => {
    const r = await reader(1000);
    await r.feed('this is not json\n');
    await r.feed('{"jsonrpc":"2.0","id":"x","method":\n');
    await r.feed('{"hello":"world"}\n');
    await r.feed(`[${req(3).trim()},${req(4).trim()}]\n`);
    await r.feed('{"jsonrpc":"2.0","id":5,"method":"ping","extra":1}\n');
    await r.feed('{"jsonrpc":"1.0","id":"six","method":"ping"}\n');
    await r.feed('\n  \r\n');
    await r.feed(req(7));
    const answers = r.written.map(
      (w) => JSON.parse(w) as { jsonrpc: string; id: unknown; error: { code: number; message: string } },
    );
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [null, -32700],
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [5, -32600],
      ['six', -32600],
    ]);
    expect(answers.every((a) => a.jsonrpc === '2.0')).toBe(true);
    expect(answers[3]!.error.message).toMatch(/batch/);
    expect(r.got.map((m) => (m as { id: number }).id)).toEqual([7]);
    expect(r.errors).toHaveLength(6);
  });

  it('a large line split across many chunks, a CRLF line, and a message the hand-written checks leave to the SDK schema', async () => {
    const r = await reader(2_000_000);
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note_add","arguments":{"text":"${'é'.repeat(300_000)}"}}}\n`;
    const bytes = Buffer.from(big);
    // Chunk borders fall inside the two-byte characters too.
    for (let i = 0; i < bytes.length; i += 65_535) await r.feed(bytes.subarray(i, i + 65_535));
    await r.feed(`${req(2).trim()}\r\n`);
    // A response from the client: valid JSON-RPC that only the SDK's schema accepts here.
    await r.feed('{"jsonrpc":"2.0","id":3,"result":{}}\n');
    expect(r.got).toHaveLength(3);
    expect((r.got[0] as unknown as { params: { arguments: { text: string } } }).params.arguments.text).toBe(
      'é'.repeat(300_000),
    );
    expect((r.got[1] as { id: number }).id).toBe(2);
    expect(r.got[2]).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(r.written).toEqual([]);
  });

  it('recoverId: the top-level id only, never one nested in params', () => {
    expect(recoverId('{"jsonrpc":"2.0","id":3,"method":"x","params":{', '')).toBe(3);
    expect(recoverId('{"method":"x","params":{"id":"nested"', '"}},"jsonrpc":"2.0","id":"a"}')).toBe('a');
    expect(recoverId('{"method":"x","params":{"id":"nested"', ',"id":5}}')).toBeNull();
    expect(recoverId('garbage', 'garbage')).toBeNull();
    expect(recoverId('{"id":1e400,', '')).toBeNull();
  });
});

describe('divertWrites', () => {
  it('sends every write on the stream elsewhere, keeps a writer for JSON-RPC, and restores', () => {
    const seen: string[] = [];
    const diverted: string[] = [];
    const out = Object.assign(new EventEmitter(), { write: (s: string) => (seen.push(s), true) });
    const err = { write: (s: string) => (diverted.push(s), true) };
    const before = out.write;
    const d = divertWrites(out, err);
    out.write('library noise\n');
    d.output.write('{"jsonrpc":"2.0"}\n');
    expect(seen).toEqual(['{"jsonrpc":"2.0"}\n']);
    expect(diverted).toEqual(['library noise\n']);
    d.restore();
    expect(out.write).toBe(before);
  });

  it('process.stdout.write goes to the other stream while diverted (console.* is checked in a spawned server: stdio.test.ts)', () => {
    const errWrites: string[] = [];
    const realWrite = process.stdout.write;
    const d = divertWrites(process.stdout, { write: (s: string) => (errWrites.push(String(s)), true) });
    try {
      process.stdout.write('diverted write\n');
    } finally {
      d.restore();
    }
    expect(process.stdout.write).toBe(realWrite);
    expect(errWrites).toEqual(['diverted write\n']);
  });
});
