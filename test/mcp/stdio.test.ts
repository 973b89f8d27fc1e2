/**
 * `baton mcp` as a real process on stdio: the SDK Client lists the tools and runs a workflow;
 * every stdout line is JSON-RPC; the CLI sees the result; two servers on one store lose no update.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT_CODES, baseEnv, phaseOf, runBaton, sha256, workspace } from '../cli/helpers.js';
import { spawnClient } from './spawn.js';
import type { SpawnedServer } from './spawn.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

async function good(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await tool(client, name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
  return r.structuredContent as Record<string, any>;
}

/** Checks that everything the server wrote to stdout is JSON-RPC, one message per line. */
function expectOnlyJsonRpc(server: SpawnedServer): number {
  const lines = server.lines();
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    let parsed: unknown;
    expect(() => (parsed = JSON.parse(line)), `stdout line is not JSON: ${line.slice(0, 200)}`).not.toThrow();
    // JSON-RPC answers a request whose id it cannot read with id null; the SDK's schema has no null id.
    const nullId = typeof parsed === 'object' && parsed !== null && (parsed as { id?: unknown }).id === null;
    const checked = nullId ? { ...(parsed as object), id: undefined } : parsed;
    expect(JSONRPCMessageSchema.safeParse(checked).success, `not JSON-RPC: ${line.slice(0, 200)}`).toBe(true);
  }
  // The last byte ends a line: no partial message, no trailing text.
  expect(Buffer.concat(server.stdout).toString('utf8').endsWith('\n')).toBe(true);
  return lines.length;
}

describe('baton mcp over stdio', () => {
  it('lists the tools, runs a 20-call workflow, writes only JSON-RPC to stdout, and the CLI sees the result', async () => {
    const ws = workspace();
    ws.write('src/parser.ts', 'export const parse = () => 1;\n');
    const { client, server } = await spawnClient('claude-code', ['--dir', ws.store], ws.dir);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(30);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['session_start', 'phase_start', 'tokens_add', 'resume_plan', 'handoff']),
    );

    const calls: Array<[string, Record<string, unknown>]> = [
      [
        'session_start',
        {
          title: 'Port the parser',
          id: 'port',
          phases: ['design', { id: 'build', name: 'Build', blockedBy: ['design'] }, 'test'],
          budget: 100000,
        },
      ],
      ['session_list', {}],
      ['phase_start', { phase: 'design' }],
      ['substep_reach', { phase: 'design', name: 'grammar drafted' }],
      ['decision_add', { title: 'parser kind', choice: 'recursive descent', rationale: 'small grammar' }],
      ['note_add', { text: 'grammar has 12 rules' }],
      ['tokens_add', { input: 1200, output: 300, phase: 'design' }],
      ['phase_complete', { phase: 'design' }],
      ['phase_start', { phase: 'build' }],
      ['file_record', { action: 'created', paths: ['src/parser.ts'] }],
      ['error_add', { phase: 'build', type: 'runtime', message: 'stack overflow on nested input' }],
      ['phase_fail', { phase: 'build', reason: 'stack overflow' }],
      ['phase_retry', { phase: 'build' }],
      ['error_resolve', { errorId: 'err-1', resolution: 'made recursion iterative' }],
      ['tokens_add', { input: 800, output: 200, cached: 100, phase: 'build', agent: 'coder' }],
      ['artifact_add', { path: 'src/parser.ts', kind: 'source' }],
      ['phase_complete', { phase: 'build' }],
      ['phase_skip', { phase: 'test', reason: 'covered by build' }],
      ['context_set', { summary: 'parser ported; tests skipped' }],
      ['session_complete', {}],
    ];
    expect(calls).toHaveLength(20);
    for (const [name, args] of calls) await good(client, name, args);
    // A refusal and a bad argument over the real transport too.
    expect((await tool(client, 'phase_start', { phase: 'design', session: 'port' })).isError).toBe(true);
    expect((await tool(client, 'note_add', { text: 'x'.repeat(1_000_000), session: 'port' })).isError).toBe(true);
    await client.close();
    const exit = await server.exited;
    expect(exit.code).toBe(0);
    const lines = expectOnlyJsonRpc(server);
    expect(lines).toBeGreaterThanOrEqual(calls.length + 4);

    const s = await ws.status('port');
    expect(s.status).toBe('completed');
    expect(s.phases.map((p) => [p.id, p.status])).toEqual([
      ['design', 'completed'],
      ['build', 'completed'],
      ['test', 'skipped'],
    ]);
    expect(phaseOf(s, 'build').retryCount).toBe(1);
    expect(phaseOf(s, 'build').errors[0]).toMatchObject({
      resolved: true,
      resolution: 'made recursion iterative',
      agent: 'claude-code',
    });
    expect(phaseOf(s, 'build').files[0]).toMatchObject({
      path: 'src/parser.ts',
      action: 'created',
      sha256: sha256(ws.path('src/parser.ts')),
      agent: 'claude-code',
    });
    expect(s.tokens).toMatchObject({ input: 2000, output: 500, cached: 100 });
    expect(Object.keys(s.tokens.byAgent).sort()).toEqual(['claude-code', 'coder']);
    expect(s.decisions).toHaveLength(1);
    expect(s.notes).toHaveLength(1);
    expect(s.contextSummary).toBe('parser ported; tests skipped');
    const log = await ws.log('port');
    expect(new Set(log.map((e) => e.actor.agent))).toEqual(new Set(['claude-code', 'coder']));
    // The CLI's handoff file is kept current by the server too.
    expect(fs.readFileSync(ws.path('.baton', 'sessions', 'port', 'handoff.md'), 'utf8')).toContain(
      'parser ported; tests skipped',
    );
  });

  it('malformed input lines do not stop the server; --agent attributes calls; stdout stays JSON-RPC', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Existing', '--id', 'e1', '--phases', 'a,b']);
    const { client, server } = await spawnClient('some-client', ['--agent', 'planner'], ws.dir);
    server.writeRaw('this is not json\n');
    server.writeRaw('{"jsonrpc":"2.0","id":"x","method":\n');
    server.writeRaw('{"hello":"world"}\n');
    server.writeRaw('{"jsonrpc":"2.0","id":"u1","method":"no/such/method"}\n');
    await good(client, 'phase_start', { phase: 'a' });
    // Each bad line is answered as JSON-RPC says: a parse error or an invalid request under id null, an unknown method under its id.
    const answers = server
      .lines()
      .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number } })
      .filter((m) => m.error);
    expect(answers.map((m) => [m.id, m.error!.code])).toEqual([
      [null, -32700],
      [null, -32700],
      [null, -32600],
      ['u1', -32601],
    ]);
    const bad = await tool(client, 'session_status', { session: '../../etc/passwd' });
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content[0] as { text: string }).text).error.code).toBe('BAD_INPUT');
    expect((await tool(client, 'session_status', { session: 12 })).isError).toBe(true);
    await good(client, 'note_add', { text: 'still alive' });
    await client.close();
    expect((await server.exited).code).toBe(0);
    expectOnlyJsonRpc(server);
    const log = await ws.log('e1');
    expect(log.slice(-2).map((e) => e.actor.agent)).toEqual(['planner', 'planner']);
    expect(fs.existsSync(ws.path('etc'))).toBe(false);
  });

  it('a message over 10 MiB gets an Invalid Request error naming the limit (its id when readable, else null); the server reads on', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Big', '--id', 'big', '--phases', 'a']);
    const { client, server } = await spawnClient('c', [], ws.dir);
    const huge = 'x'.repeat(11 * 1024 * 1024);
    // The SDK's Client sends the id last: it is read from the end of the line.
    const e = await client.callTool({ name: 'note_add', arguments: { text: huge } }).then(
      () => null,
      (x: unknown) => x as { code: number; message: string },
    );
    expect(e).toMatchObject({ code: -32600 });
    expect(e!.message).toMatch(/at most 10485760 bytes \(10 MiB\)/);
    await good(client, 'note_add', { text: 'after the big one' });
    // Not JSON at all: answered with id null.
    server.writeRaw(`${'y'.repeat(10 * 1024 * 1024 + 10)}\n`);
    await good(client, 'note_add', { text: 'still here' });
    const nullAnswer = server
      .lines()
      .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number; message: string } })
      .find((m) => m.id === null);
    expect(nullAnswer?.error).toMatchObject({ code: -32600, message: expect.stringContaining('10485760') });
    await client.close();
    expect((await server.exited).code).toBe(0);
    expectOnlyJsonRpc(server);
    expect(server.stderrText).toMatch(/dropped a \d+-byte message/);
    expect((await ws.status('big')).notes.map((n) => n['text'])).toEqual(['after the big one', 'still here']);
  });

  it('nothing but JSON-RPC reaches stdout while a library prints with console.dir, console.log or process.stdout.write during a call', async () => {
    const ws = workspace();
    ws.write('a.txt', 'hello\n');
    await ws.ok(['start', 'Noisy', '--id', 'noisy', '--phases', 'a']);
    await ws.ok(['phase', 'start', 'a']);
    // A preloaded "library" that prints whenever baton hashes a file (file_record does).
    const hook = ws.path('noisy-hook.cjs');
    fs.writeFileSync(
      hook,
      "const c = require('node:crypto'); const orig = c.createHash;\n" +
        "c.createHash = function (...a) { console.dir({ noisy: 'dir' }); console.log('noisy log'); console.table([{ noisy: 'table' }]); process.stdout.write('noisy write\\n'); return orig.apply(this, a); };\n",
    );
    const { client, server } = await spawnClient('c', [], ws.dir, { NODE_OPTIONS: `--require ${hook}` });
    await good(client, 'file_record', { action: 'created', paths: ['a.txt'] });
    await good(client, 'note_add', { text: 'after the noise' });
    await client.close();
    expect((await server.exited).code).toBe(0);
    expectOnlyJsonRpc(server);
    // The prints happened, on stderr.
    for (const noise of ["noisy: 'dir'", 'noisy log', 'noisy write', 'table'])
      expect(server.stderrText).toContain(noise);
  });

  it('a fresh folder without .baton: empty listings on connect, then session_start creates the store as `baton start` does', async () => {
    const ws = workspace();
    const { client, server } = await spawnClient('c', [], ws.dir);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['baton://sessions']);
    expect(await good(client, 'session_list', {})).toEqual({ sessions: [], active: null });
    const refusal = await tool(client, 'session_status', {});
    expect(JSON.parse((refusal.content[0] as { text: string }).text).error).toMatchObject({
      code: 'NO_STORE',
      hint: expect.stringContaining('`session_start`'),
    });
    expect(fs.existsSync(ws.path('.baton'))).toBe(false);
    await good(client, 'session_start', { title: 'First', id: 'first' });
    expect(fs.existsSync(path.join(ws.dir, '.baton', 'sessions'))).toBe(true);
    await client.close();
    expect((await server.exited).code).toBe(0);
    expectOnlyJsonRpc(server);
    expect((await ws.status('first')).title).toBe('First');
  });

  it('a start-up error goes to stderr, never stdout, with or without --json', async () => {
    const ws = workspace();
    // A bad BATON_LEASE_TOKEN is refused when the server starts; --json is not an option of
    // `baton mcp` (its stdout is JSON-RPC), and saying so goes to stderr too.
    for (const [args, error] of [
      [['mcp'], /^error\[BAD_INPUT\]: .*BATON_LEASE_TOKEN/],
      [['mcp', '--json'], /^error\[BAD_INPUT\]: Unknown option '--json'/],
      [['mcp', '--agent', 'x', '--json'], /^error\[BAD_INPUT\]: Unknown option '--json'/],
      // Before the command, a global option the command is not offered is refused by name.
      [['--json', 'mcp'], /^error\[BAD_INPUT\]: `baton mcp` does not take --json\./],
    ] as const) {
      const r = await runBaton([...args], ws.dir, baseEnv({ BATON_LEASE_TOKEN: 'not-a-number' }));
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(EXIT_CODES.BAD_INPUT);
      expect(r.stderr, args.join(' ')).toMatch(error);
    }
  });

  it('SIGTERM ends the server cleanly (exit 0) after what it acknowledged is stored', async () => {
    const ws = workspace();
    const { client, server } = await spawnClient('c', ['--dir', ws.store], ws.dir);
    await good(client, 'session_start', { title: 'Stop me', id: 'stop' });
    await good(client, 'note_add', { text: 'acknowledged' });
    server.child!.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expectOnlyJsonRpc(server);
    expect((await ws.status('stop')).notes.map((n) => n['text'])).toEqual(['acknowledged']);
  });

  it('a mirrored session gets its foreign file rewritten after each MCP call that changes it (after its response)', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Mirrored', '--id', 'mir', '--phases', 'plan,build']);
    await ws.ok(['mirror', 'maestro', '--out', 'm']);
    // The mirrored file read back by Maestro's rules (baton's reader), while the server runs.
    const phases = async (): Promise<string[][]> => {
      const r = await ws.json<{ sessions: Array<{ units: Array<{ name: string; status: string }> }> }>([
        'inspect',
        '--format',
        'maestro',
        'm',
      ]);
      return r.sessions[0]!.units.map((u) => [u.name, u.status]);
    };
    expect(await phases()).toEqual([
      ['plan', 'pending'],
      ['build', 'pending'],
    ]);
    // Derived files are refreshed once the response is sent (off the acknowledgement path), so
    // the file is read until it shows the change (the first rewrite also loads the format's code).
    const eventually = async (want: string[][]): Promise<void> => {
      const until = Date.now() + 20_000;
      let got = await phases();
      while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        got = await phases();
      }
      expect(got).toEqual(want);
    };
    const { client, server } = await spawnClient('gemini-cli', ['--dir', ws.store], ws.dir);
    await good(client, 'phase_start', { phase: 'plan' });
    await eventually([
      ['plan', 'in_progress'],
      ['build', 'pending'],
    ]);
    await good(client, 'phase_complete', { phase: 'plan' });
    await good(client, 'phase_start', { phase: 'build' });
    await eventually([
      ['plan', 'completed'],
      ['build', 'in_progress'],
    ]);
    await client.close();
    await server.exited;
    expectOnlyJsonRpc(server);
  });

  it('two MCP clients on one session at once lose no update', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Shared', '--id', 'shared', '--phases', 'work']);
    await ws.ok(['phase', 'start', 'work']);
    const a = await spawnClient('agent-a', [], ws.dir);
    const b = await spawnClient('agent-b', [], ws.dir);
    const N = 50;
    const burst = (client: Client, tag: string): Array<Promise<CallToolResult>> =>
      Array.from({ length: N }, (_, i) => [
        tool(client, 'tokens_add', { input: 1, output: 2, phase: 'work' }),
        tool(client, 'note_add', { text: `${tag}-${i}` }),
      ]).flat();
    const results = await Promise.all([...burst(a.client, 'a'), ...burst(b.client, 'b')]);
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    await a.client.close();
    await b.client.close();
    expect((await a.server.exited).code).toBe(0);
    expect((await b.server.exited).code).toBe(0);
    expectOnlyJsonRpc(a.server);
    expectOnlyJsonRpc(b.server);
    const s = await ws.status('shared');
    expect(s.tokens.input).toBe(2 * N);
    expect(s.tokens.output).toBe(4 * N);
    expect(s.tokens.byAgent['agent-a']).toMatchObject({ input: N, output: 2 * N });
    expect(s.tokens.byAgent['agent-b']).toMatchObject({ input: N, output: 2 * N });
    const notes = s.notes.map((n) => String(n['text'])).sort();
    expect(notes).toEqual(
      [...Array.from({ length: N }, (_, i) => `a-${i}`), ...Array.from({ length: N }, (_, i) => `b-${i}`)].sort(),
    );
    // session.created and phase.started, one event per call, and each connection's run:
    // started, ended by its disconnect; the last one leaves the phase in flight: interrupted.
    expect(s.revision).toBe(2 + 4 * N + 5);
    expect(s.status).toBe('interrupted');
    expect(s.cause).toMatchObject({ cause: 'disconnected' });
  });
});
