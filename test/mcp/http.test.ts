/**
 * `baton mcp --http`: the same tools over MCP's Streamable HTTP transport, guarded by a bearer
 * token, a Host/Origin check and a loopback-only bind; one MCP session per client.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { checkBind, checkRemoteToken, isLoopback } from '../../src/mcp/http-guard.js';
import { startHttpServer } from '../../src/mcp/http.js';
import type { HttpMcp, HttpSettings } from '../../src/mcp/http.js';
import { MemoryStore } from '../../src/store/memory.js';
import { tickingClock } from '../support/clock.js';
import { BATON, EXIT_CODES, baseEnv, runBaton, workspace } from '../cli/helpers.js';
import { T0 } from './helpers.js';

const running: HttpMcp[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const s of running.splice(0)) await s.close();
});

async function serve(settings: HttpSettings = {}): Promise<{ served: HttpMcp; manager: SessionManager }> {
  const manager = new SessionManager({ store: new MemoryStore(), now: tickingClock(T0), pid: 1, host: 'h' });
  const served = await startHttpServer({ manager }, { port: 0, ...settings });
  running.push(served);
  return { served, manager };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

/** A raw initialize POST with the given extra headers. */
function post(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INIT),
  });
}

async function connectClient(
  served: HttpMcp,
  name: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(served.url), {
    requestInit: { headers: { authorization: `Bearer ${served.token}` } },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
}

describe('baton mcp --http: who may call', () => {
  it('a request without the bearer token, or with a wrong one, is 401 and opens no session; the right one is served', async () => {
    const { served } = await serve({ token: 'the-secret' });
    const none = await post(served.url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).toMatch(/bearer token is required/);
    const wrong = await post(served.url, { authorization: 'Bearer the-secreT' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/token is wrong: send the token baton printed when it started/);
    expect(served.sessions()).toBe(0);
    const right = await post(served.url, { authorization: 'Bearer the-secret' });
    expect(right.status).toBe(200);
    expect(right.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    await right.text();
    expect(served.sessions()).toBe(1);
  });

  it('without BATON_MCP_TOKEN a long random token is generated, different for each server', async () => {
    const a = (await serve()).served;
    const b = (await serve()).served;
    expect(a.generated).toBe(true);
    expect(a.token.length).toBeGreaterThanOrEqual(40);
    expect(a.token).not.toBe(b.token);
    expect((await post(a.url, { authorization: `Bearer ${b.token}` })).status).toBe(401);
  });

  it('a foreign Origin is 403 even with the token; a loopback or allowed origin is served', async () => {
    const { served } = await serve({ token: 't', allowedOrigins: ['https://app.example.com'] });
    const auth = { authorization: 'Bearer t' };
    const evil = await post(served.url, { ...auth, origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: string }).error).toBe(
      'Origin "http://evil.example.com" may not use this server (allowed: loopback origins, https://app.example.com). To let pages of that origin call it, start it with --allow-origin ORIGIN.',
    );
    expect((await post(served.url, { ...auth, origin: 'null' })).status).toBe(403);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1', 'https://app.example.com']) {
      const r = await post(served.url, { ...auth, origin });
      expect(r.status, origin).toBe(200);
      await r.text();
    }
  });

  it('a Host that is not loopback (DNS rebinding) is 403 on a loopback server; other paths are 404', async () => {
    const { served } = await serve({ token: 't' });
    // fetch sets Host from the URL; node:http lets a test send what a rebinding page would.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(served.url);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'evil.example.com', authorization: 'Bearer t' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
    expect(
      (await fetch(served.url.replace(/\/mcp$/, '/other'), { headers: { authorization: 'Bearer t' } })).status,
    ).toBe(404);
  });

  it('a non-loopback bind is refused without --allow-remote, by the library and by the CLI', async () => {
    expect(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('[::1]') && isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0') || isLoopback('192.168.1.4') || isLoopback('localhost.evil.com')).toBe(false);
    expect(() => checkBind('0.0.0.0', false)).toThrow(expect.objectContaining({ code: 'BAD_INPUT' }));
    expect(() => checkBind('0.0.0.0', true)).not.toThrow();
    await expect(serve({ host: '0.0.0.0' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    const ws = workspace();
    const r = await runBaton(['mcp', '--http', '--host', '0.0.0.0', '--port', '0'], ws.dir, baseEnv({}));
    expect(r.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error\[BAD_INPUT\]: --host 0\.0\.0\.0 would serve MCP beyond this machine/);
    expect(r.stderr).toMatch(/--allow-remote/);
    // With --allow-remote, a short token of one's own is refused: from the network it is the only guard.
    await expect(serve({ host: '0.0.0.0', allowRemote: true, token: 'short' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('is 5 characters; a server on --host 0.0.0.0'),
    });
    const weak = await runBaton(
      ['mcp', '--http', '--host', '0.0.0.0', '--allow-remote', '--port', '0'],
      ws.dir,
      baseEnv({ BATON_MCP_TOKEN: 'short' }),
    );
    expect(weak.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(weak.stderr).toMatch(/^error\[BAD_INPUT\]: The bearer token \(BATON_MCP_TOKEN\) is 5 characters/);
    expect(weak.stderr).toMatch(/hint: Set BATON_MCP_TOKEN to a long random secret/);
    expect(() => checkRemoteToken('127.0.0.1', 'short')).not.toThrow();
    expect(() => checkRemoteToken('0.0.0.0', 'x'.repeat(32))).not.toThrow();
    const stray = await runBaton(['mcp', '--port', '8000'], ws.dir, baseEnv({}));
    expect(stray.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(stray.stderr).toMatch(/apply only with --http/);
  });
});

describe('baton mcp --http: sessions and tools', () => {
  it("a tool call through the SDK's StreamableHTTPClientTransport changes the store as over stdio", async () => {
    const { served, manager } = await serve();
    const { client } = await connectClient(served, 'http-agent');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('tokens_add');
    await callOk(client, 'session_start', { title: 'Over HTTP', id: 'h1', phases: ['build'] });
    const r = await callOk(client, 'tokens_add', { input: 40, output: 2 });
    expect(r).toMatchObject({ session: 'h1', status: 'active' });
    const s = await manager.get('h1');
    expect(s.tokens.input).toBe(40);
    // Attributed to the client's name, as over stdio.
    expect(s.tokens.byAgent['http-agent']).toMatchObject({ input: 40, output: 2 });
  });

  it('arguments that are not a plain object get -32602 naming the problem; the MCP session goes on', async () => {
    const { served } = await serve();
    const auth = { authorization: `Bearer ${served.token}` };
    const init = await post(served.url, auth);
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await init.text();
    const call = async (id: number, method: string, params: unknown): Promise<Record<string, any>> => {
      const r = await fetch(served.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
          ...auth,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const text = await r.text();
      // The SDK answers over SSE (`data: {…}`); the guard answers plain JSON.
      return JSON.parse(text.startsWith('{') ? text : text.split('data: ')[1]!.split('\n')[0]!);
    };
    const bad = await call(2, 'tools/call', { name: 'session_status', arguments: { constructor: null } });
    expect(bad).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(bad['error'].message).toContain('"arguments" of tools/call "session_status" has the key "constructor"');
    const array = await call(3, 'tools/call', { name: 'session_status', arguments: [1] });
    expect(array['error'].message).toContain('is an array');
    const list = await call(4, 'tools/list', {});
    expect(list['result'].tools.length).toBeGreaterThan(5);
  });

  it('two clients get their own MCP sessions and runs; ending one leaves the other working', async () => {
    const { served, manager } = await serve();
    const a = await connectClient(served, 'agent-a');
    const b = await connectClient(served, 'agent-b');
    expect(a.transport.sessionId).toBeTruthy();
    expect(b.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    expect(served.sessions()).toBe(2);
    await callOk(a.client, 'session_start', { title: 'Shared', id: 's', phases: ['one', 'two'] });
    await callOk(a.client, 'note_add', { text: 'from a' });
    await callOk(b.client, 'note_add', { text: 'from b' });
    const runs = ((await manager.get('s')).runs ?? []).filter((r) => r.kind === 'mcp');
    expect(new Set(runs.map((r) => r.agent))).toEqual(new Set(['agent-a', 'agent-b']));
    await a.transport.terminateSession();
    await a.client.close();
    await expect.poll(() => served.sessions()).toBe(1);
    await callOk(b.client, 'note_add', { text: 'b goes on' });
    expect((await manager.get('s')).notes.map((n) => n.text)).toEqual(['from a', 'from b', 'b goes on']);
    // A request naming the ended session is 404: the client must initialize again.
    const stale = await fetch(served.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${served.token}`,
        'mcp-session-id': a.transport.sessionId ?? '',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
  });

  it('the CLI prints the URL and the generated token on stderr, nothing on stdout, and stops on SIGTERM', async () => {
    const ws = workspace();
    const child = spawn(process.execPath, [BATON, 'mcp', '--http', '--port', '0'], {
      cwd: ws.dir,
      env: baseEnv({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await expect.poll(() => /bearer token .*: (\S+)\n/.exec(stderr), { timeout: 15_000 }).toBeTruthy();
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr)![1]!;
    const token = /bearer token .*: (\S+)\n/.exec(stderr)![1]!;
    const client = new Client({ name: 'cli-check', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    await callOk(client, 'session_start', { title: 'From the CLI server', id: 'c1' });
    await client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toBe('');
    const list = await runBaton(['list', '--json'], ws.dir, baseEnv({}));
    expect(list.stdout).toContain('"c1"');
  });
});
