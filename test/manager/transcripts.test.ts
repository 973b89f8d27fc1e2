/**
 * `manager.transcripts.ingest`: token use read from agent CLI transcripts, counted once per
 * response (streamed duplicates, sidechain copies, resumed sessions repeating lines, repeated
 * calls), by agent and sub-agent, incrementally (a partial last line waits; bytes before the
 * offset are never read again), from the real CLIs' transcripts (trimmed), and by real
 * processes ingesting at once.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { runFixture, tempStoreDir } from '../store/helpers.js';

const FIX = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/transcripts');
const SUB = 'claude/general-purpose#ab12cd34';
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-transcripts-'));
  dirs.push(d);
  return d;
}

interface Resp {
  id: string;
  req?: string;
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  sidechain?: boolean;
  session?: string;
  model?: string;
}

/** A Claude Code `assistant` transcript line. */
function assistant(r: Resp): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: r.sidechain === true,
    ...(r.sidechain ? { agentId: 'ab12cd34ef567890' } : {}),
    type: 'assistant',
    uuid: `u-${r.id}-${r.output}`,
    sessionId: r.session ?? 's1',
    ...(r.req === undefined ? {} : { requestId: r.req }),
    message: {
      id: r.id,
      type: 'message',
      role: 'assistant',
      model: r.model ?? 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'ok' }],
      usage: {
        input_tokens: r.input,
        output_tokens: r.output,
        cache_read_input_tokens: r.cacheRead ?? 0,
        cache_creation_input_tokens: r.cacheWrite ?? 0,
      },
    },
  });
}

function user(text: string, session = 's1'): string {
  return JSON.stringify({ type: 'user', sessionId: session, message: { role: 'user', content: text } });
}

function write(file: string, lines: string[], end = '\n'): string {
  fs.writeFileSync(file, lines.join('\n') + end);
  return file;
}

async function session(m: SessionManager, id = 's'): Promise<string> {
  await m.start({ title: id, id, phases: [{ id: 'impl', name: 'Implement' }] });
  await m.phase(id, 'impl', 'start', { agent: 'claude' });
  return id;
}

const A = { id: 'msg_A', req: 'req_A', input: 100, cacheRead: 1000, cacheWrite: 50 };
const S1 = { id: 'msg_S1', req: 'req_S1', input: 300, output: 30, sidechain: true };

describe('transcripts.ingest (Claude)', () => {
  it('counts streamed duplicates, sidechain copies, a resumed session and a sub-agent exactly once, by agent; a second pass adds nothing', async () => {
    const d = tmp();
    const main1 = write(path.join(d, 's1.jsonl'), [
      user('go'),
      assistant({ ...A, output: 10 }),
      assistant({ ...A, output: 25 }),
      assistant({ ...A, output: 40 }),
      assistant(S1),
      assistant({ id: 'msg_B', req: 'req_B', input: 200, output: 20, cacheRead: 2000 }),
    ]);
    const sub = write(path.join(d, 'agent-ab12cd34ef567890.jsonl'), [
      assistant(S1),
      assistant({
        id: 'msg_S2',
        req: 'req_S2',
        input: 400,
        output: 60,
        cacheRead: 100,
        cacheWrite: 10,
        sidechain: true,
      }),
    ]);
    const main2 = write(path.join(d, 's2.jsonl'), [
      assistant({ ...A, output: 40, session: 's2' }),
      assistant({ id: 'msg_B', req: 'req_B', input: 200, output: 20, cacheRead: 2000, session: 's2' }),
      user('more', 's2'),
      assistant({ id: 'msg_C', req: 'req_C', input: 500, output: 70, cacheRead: 3000, session: 's2' }),
    ]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    // The order the hooks run in: SubagentStop (the sub-agent's own transcript), then Stop.
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: sub, agent: SUB })).toEqual({
      responses: 2,
      input: 700,
      output: 90,
      cacheRead: 100,
      cacheWrite: 10,
    });
    expect(
      await m.transcripts.ingest(id, { cli: 'claude', path: main1, agent: 'claude', agentSessionId: 's1' }),
    ).toEqual({ responses: 2, input: 300, output: 60, cacheRead: 3000, cacheWrite: 50 });
    expect(
      await m.transcripts.ingest(id, { cli: 'claude', path: main2, agent: 'claude', agentSessionId: 's2' }),
    ).toEqual({ responses: 1, input: 500, output: 70, cacheRead: 3000, cacheWrite: 0 });

    const s = await m.get(id);
    expect(s.tokens.byAgent).toEqual({
      [SUB]: { input: 700, output: 90, cached: 100, cacheWrite: 10 },
      claude: { input: 800, output: 130, cached: 6000, cacheWrite: 50 },
    });
    expect([s.tokens.input, s.tokens.output, s.tokens.cached, s.tokens.cacheWrite]).toEqual([1500, 220, 6100, 60]);
    expect(s.tokens.byPhase['impl']).toEqual({ input: 1500, output: 220, cached: 6100, cacheWrite: 60 });
    expect(s.tokens.byModel).toEqual({
      'claude-sonnet-4-5-20250929': { input: 1500, output: 220, cached: 6100, cacheWrite: 60 },
    });

    const revision = s.revision;
    for (const [file, agent] of [
      [sub, SUB],
      [main1, 'claude'],
      [main2, 'claude'],
    ] as const) {
      expect(await m.transcripts.ingest(id, { cli: 'claude', path: file, agent })).toEqual({
        responses: 0,
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
      });
    }
    expect((await m.get(id)).revision).toBe(revision);
  });

  it('records only the growth of a response counted in an earlier read', async () => {
    const f = write(path.join(tmp(), 't.jsonl'), [assistant({ id: 'msg_X', req: 'r', input: 10, output: 5 })]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' });
    fs.appendFileSync(f, `${assistant({ id: 'msg_X', req: 'r', input: 10, output: 35 })}\n`);
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toEqual({
      responses: 0,
      input: 0,
      output: 30,
      cacheRead: 0,
      cacheWrite: 0,
    });
    expect((await m.get(id)).tokens.byAgent['claude']).toEqual({ input: 10, output: 35, cached: 0 });
  });

  it('keys by message id alone when a line has no requestId', async () => {
    const f = write(path.join(tmp(), 't.jsonl'), [
      assistant({ id: 'msg_Y', input: 7, output: 1 }),
      assistant({ id: 'msg_Y', input: 7, output: 3 }),
      assistant({ id: 'msg_Y', req: 'r2', input: 7, output: 3 }),
    ]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    // Without a requestId the key is the message id; with one it is another key: two responses.
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toMatchObject({
      responses: 2,
      input: 14,
      output: 6,
    });
  });

  it('leaves a partial last line for the next read', async () => {
    const f = path.join(tmp(), 't.jsonl');
    const first = assistant({ id: 'msg_1', req: 'r1', input: 1, output: 1 });
    const second = assistant({ id: 'msg_2', req: 'r2', input: 2, output: 2 });
    fs.writeFileSync(f, `${first}\n${second.slice(0, 40)}`);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toMatchObject({
      responses: 1,
      input: 1,
    });
    expect((await m.get(id)).transcripts?.files[f]?.offset).toBe(Buffer.byteLength(first) + 1);
    fs.appendFileSync(f, `${second.slice(40)}\n`);
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toMatchObject({
      responses: 1,
      input: 2,
    });
  });

  it('never reads the bytes before the offset again (a seek, not a re-read)', async () => {
    const f = path.join(tmp(), 't.jsonl');
    const early = assistant({ id: 'msg_E', req: 'rE', input: 5, output: 5 });
    write(f, [early]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' });
    // Rewrite the read part in place (same length) as another response: a re-read would count it.
    const forged = early.replace('msg_E', 'msg_F');
    expect(forged.length).toBe(early.length);
    fs.writeFileSync(f, `${forged}\n${assistant({ id: 'msg_G', req: 'rG', input: 1, output: 1 })}\n`);
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toMatchObject({
      responses: 1,
      input: 1,
    });
    expect((await m.get(id)).tokens.input).toBe(6);
  });

  it('a replaced, shorter file is read again from the start, still counting each response once', async () => {
    const f = write(path.join(tmp(), 't.jsonl'), [
      user('x'.repeat(500)),
      assistant({ id: 'msg_1', req: 'r', input: 3, output: 3 }),
    ]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' });
    write(f, [
      assistant({ id: 'msg_1', req: 'r', input: 3, output: 3 }),
      assistant({ id: 'msg_2', req: 'r', input: 4, output: 4 }),
    ]);
    expect(await m.transcripts.ingest(id, { cli: 'claude', path: f, agent: 'claude' })).toMatchObject({
      responses: 1,
      input: 4,
    });
  });

  it('the real Claude Code transcripts: main agent and sub-agent apart, cache reads and writes apart', async () => {
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    const subAgent = 'claude/general-purpose#ad3b4e2f';
    await m.transcripts.ingest(id, { cli: 'claude', path: path.join(FIX, 'claude-subagent.jsonl'), agent: subAgent });
    await m.transcripts.ingest(id, { cli: 'claude', path: path.join(FIX, 'claude-main.jsonl'), agent: 'claude' });
    const s = await m.get(id);
    // Each of the four responses reported input 1111, cache read 333, cache write 222, output 44.
    expect(s.tokens.byAgent).toEqual({
      [subAgent]: { input: 2222, output: 88, cached: 666, cacheWrite: 444 },
      claude: { input: 2222, output: 88, cached: 666, cacheWrite: 444 },
    });
    expect(Object.keys(s.tokens.byModel ?? {})).toEqual(['claude-opus-4-8']);
  });

  it('refuses an unknown CLI and names a transcript it cannot read', async () => {
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    await expect(m.transcripts.ingest(id, { cli: 'cursor' as never, path: '/x', agent: 'a' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
    await expect(
      m.transcripts.ingest(id, { cli: 'claude', path: path.join(tmp(), 'missing.jsonl'), agent: 'claude' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('missing.jsonl') });
    const d = tmp();
    await expect(m.transcripts.ingest(id, { cli: 'claude', path: d, agent: 'claude' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
    // A named pipe with no writer: refused at once, never waited on.
    const fifo = path.join(d, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    await expect(m.transcripts.ingest(id, { cli: 'claude', path: fifo, agent: 'claude' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('not a regular file'),
    });
  });
});

/** The `gemini` messages of the real Gemini CLI chat. */
function geminiMessages(): Array<Record<string, unknown>> {
  return fs
    .readFileSync(path.join(FIX, 'gemini-chat.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"gemini"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('transcripts.ingest (Codex, Gemini)', () => {
  it('Codex rollout: per-response records, input without the cached part, running totals not counted again', async () => {
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    const r = await m.transcripts.ingest(id, {
      cli: 'codex',
      path: path.join(FIX, 'codex-rollout.jsonl'),
      agent: 'codex',
    });
    // Two responses of input 1111 (333 of them cached), output 44.
    expect(r).toEqual({ responses: 2, input: 1556, output: 88, cacheRead: 666, cacheWrite: 0 });
    expect((await m.get(id)).tokens.byModel).toEqual({ 'gpt-mock': { input: 1556, output: 88, cached: 666 } });
  });

  it('Codex rollout without per-response records: the token_count steps, each once', async () => {
    const d = tmp();
    const lines = fs
      .readFileSync(path.join(FIX, 'codex-rollout.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.includes('token_usage_record'));
    const counts = lines.filter((l) => l.includes('"token_count"'));
    // A token_count event written twice (Codex repeats them) is one step.
    const f = write(path.join(d, 'rollout.jsonl'), [...lines, ...counts]);
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    expect(await m.transcripts.ingest(id, { cli: 'codex', path: f, agent: 'codex' })).toEqual({
      responses: 2,
      input: 1556,
      output: 88,
      cacheRead: 666,
      cacheWrite: 0,
    });
  });

  it('Gemini chat JSONL: a message rewritten as it is updated counts once; thoughts are output, input without the cached part', async () => {
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    const r = await m.transcripts.ingest(id, {
      cli: 'gemini',
      path: path.join(FIX, 'gemini-chat.jsonl'),
      agent: 'gemini',
    });
    expect(r).toEqual({ responses: 2, input: 1556, output: 98, cacheRead: 666, cacheWrite: 0 });
    expect(Object.keys((await m.get(id)).tokens.byModel ?? {})).toEqual(['gemini-3.8-flash']);
  });

  it('Gemini: a resumed chat whose first line sets the earlier messages again counts only the new ones', async () => {
    const d = tmp();
    const messages = geminiMessages();
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    await m.transcripts.ingest(id, { cli: 'gemini', path: path.join(FIX, 'gemini-chat.jsonl'), agent: 'gemini' });
    const next = {
      ...messages[0]!,
      id: 'new-1',
      tokens: { input: 2000, output: 10, cached: 1000, thoughts: 0, tool: 0, total: 2010 },
    };
    const f = write(path.join(d, 'resumed.jsonl'), [
      JSON.stringify({ sessionId: 'g2', kind: 'main' }),
      JSON.stringify({ $set: { messages } }),
      JSON.stringify(next),
    ]);
    expect(await m.transcripts.ingest(id, { cli: 'gemini', path: f, agent: 'gemini' })).toEqual({
      responses: 1,
      input: 1000,
      output: 10,
      cacheRead: 1000,
      cacheWrite: 0,
    });
  });

  it('Gemini chat as one JSON file: re-read when it changes, only new messages counted', async () => {
    const d = tmp();
    const messages = geminiMessages();
    const f = path.join(d, 'session-1.json');
    fs.writeFileSync(f, JSON.stringify({ sessionId: 'g1', messages: messages.slice(0, 1) }, null, 2));
    const m = new SessionManager({ store: new MemoryStore() });
    const id = await session(m);
    expect(await m.transcripts.ingest(id, { cli: 'gemini', path: f, agent: 'gemini' })).toMatchObject({
      responses: 1,
      input: 778,
      output: 49,
    });
    expect(await m.transcripts.ingest(id, { cli: 'gemini', path: f, agent: 'gemini' })).toMatchObject({ responses: 0 });
    fs.writeFileSync(f, JSON.stringify({ sessionId: 'g1', messages }, null, 2));
    expect(await m.transcripts.ingest(id, { cli: 'gemini', path: f, agent: 'gemini' })).toMatchObject({
      responses: 1,
      input: 778,
      output: 49,
    });
  });
});

describe('transcripts.ingest by concurrent processes', () => {
  it('four processes ingesting the same transcripts at once count each response once', async () => {
    const { root, base, remove } = tempStoreDir('baton-ingest-');
    try {
      const m = new SessionManager({ store: new FileStore({ root }) });
      const id = await session(m, 'race');
      const main = path.join(base, 'main.jsonl');
      const sub = path.join(base, 'sub.jsonl');
      fs.copyFileSync(path.join(FIX, 'claude-main.jsonl'), main);
      fs.copyFileSync(path.join(FIX, 'claude-subagent.jsonl'), sub);
      const at = String(Date.now() + 1500);
      const runs = await Promise.all([
        runFixture('test/fixtures/ingest-writer.ts', [root, id, 'claude', main, 'claude', at, '2']),
        runFixture('test/fixtures/ingest-writer.ts', [root, id, 'claude', main, 'claude', at, '2']),
        runFixture('test/fixtures/ingest-writer.ts', [
          root,
          id,
          'claude',
          sub,
          'claude/general-purpose#ad3b4e2f',
          at,
          '2',
        ]),
        runFixture('test/fixtures/ingest-writer.ts', [
          root,
          id,
          'claude',
          sub,
          'claude/general-purpose#ad3b4e2f',
          at,
          '2',
        ]),
      ]);
      for (const r of runs) expect(r.stderr).toBe('');
      const counted = runs.flatMap((r) =>
        r.stdout
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { responses: number }).responses),
      );
      expect(counted.reduce((a, b) => a + b, 0)).toBe(4);
      const s = await new SessionManager({ store: new FileStore({ root }) }).get(id);
      expect(s.tokens.byAgent).toEqual({
        claude: { input: 2222, output: 88, cached: 666, cacheWrite: 444 },
        'claude/general-purpose#ad3b4e2f': { input: 2222, output: 88, cached: 666, cacheWrite: 444 },
      });
      // The journal folds to the same totals (nothing recorded twice by a lost race).
      const events = await new FileStore({ root }).readEvents(id);
      expect(fold(null, events, id)!.tokens.input).toBe(4444);
      expect(events.filter((e) => e.type === 'transcript.read')).toHaveLength(2);
    } finally {
      remove();
    }
  }, 60_000);
});

describe.skipIf(!PG_URL)('transcripts.ingest on PostgreSQL', () => {
  it('two managers (as two machines would) ingesting at once count each response once', async () => {
    const schema = freshSchema('ingest');
    const url = urlWith({ schema });
    const stores = [new PostgresStore({ url }), new PostgresStore({ url })];
    try {
      const [a, b] = stores.map((store, i) => new SessionManager({ store, pid: 100 + i, host: `h${i}` }));
      // Created without the workspace lock (which the embedded server's one session cannot share).
      const id = 'pg';
      const actor = { agent: null, pid: 1, host: 'h' };
      await a!.createFrom(id, [
        {
          type: 'session.created',
          time: new Date().toISOString(),
          actor,
          data: { title: id, idFormat: 'explicit', phases: [{ id: 'impl', name: 'Implement' }], budgetMax: null },
        },
      ]);
      await a!.phase(id, 'impl', 'start', { agent: 'claude' });
      const main = path.join(FIX, 'claude-main.jsonl');
      const results = await Promise.all(
        [a!, b!, a!, b!].map((m) => m.transcripts.ingest(id, { cli: 'claude', path: main, agent: 'claude' })),
      );
      expect(results.reduce((n, r) => n + r.responses, 0)).toBe(2);
      expect((await b!.get(id)).tokens.byAgent['claude']).toEqual({
        input: 2222,
        output: 88,
        cached: 666,
        cacheWrite: 444,
      });
    } finally {
      for (const s of stores) await s.close();
      await dropSchema(schema);
    }
  }, 60_000);
});
