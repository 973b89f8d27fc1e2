/**
 * The fast path of `tools/call` (src/mcp/fast-calls.ts) and the checks it relies on: the
 * hand-written envelope checks accept only what the SDK's schemas accept, the compiled argument
 * checks only what zod accepts (and parses to the same value), a call answered on the fast
 * path gets the same response as through the SDK, a cancelled call gets none, and the response
 * is sent before the derived files are refreshed.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { JSONRPCNotificationSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ZodTypeAny } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { isPlainNotification, isPlainRequest } from '../../src/mcp/envelope.js';
import { compileCheck } from '../../src/mcp/fast-check.js';
import { createMcpServer, serverSettled } from '../../src/mcp/server.js';
import type { ServerOptions } from '../../src/mcp/server.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SessionStore } from '../../src/store/types.js';
import { tickingClock } from '../support/clock.js';
import { T0 } from './helpers.js';

/** A server on a raw in-memory link: messages in, every message the server sends collected. */
interface Raw {
  server: McpServer;
  manager: SessionManager;
  got: JSONRPCMessage[];
  send: (m: Record<string, unknown>) => Promise<void>;
  /** Sends a request and resolves with the response under its id. */
  request: (id: number | string, method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** How many tools/call requests reached the SDK's handler. */
  sdkCalls: () => number;
}

const open: Raw[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.server.close();
});

function freshManager(store: SessionStore = new MemoryStore()): SessionManager {
  return new SessionManager({ store, now: tickingClock(T0), pid: 1, host: 'h' });
}

async function raw(o: Partial<ServerOptions> & { manager?: SessionManager } = {}): Promise<Raw> {
  const manager = o.manager ?? freshManager();
  const server = createMcpServer({ ...o, manager });
  let sdk = 0;
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (...a: unknown[]) => unknown> })
    ._requestHandlers;
  const inner = handlers.get('tools/call')!;
  handlers.set('tools/call', (...a: unknown[]) => {
    sdk += 1;
    return inner(...a);
  });
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  const got: JSONRPCMessage[] = [];
  const waiting = new Map<unknown, (m: Record<string, unknown>) => void>();
  mine.onmessage = (m) => {
    got.push(m);
    const id = (m as { id?: unknown }).id;
    waiting.get(id)?.(m as Record<string, unknown>);
    waiting.delete(id);
  };
  await server.connect(theirs);
  await mine.start();
  const send = (m: Record<string, unknown>): Promise<void> => mine.send(m as JSONRPCMessage);
  const r: Raw = {
    server,
    manager,
    got,
    send,
    request: (id, method, params) =>
      new Promise((resolve) => {
        waiting.set(id, resolve);
        void send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      }),
    sdkCalls: () => sdk,
  };
  open.push(r);
  await r.request('init', 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return r;
}

const callParams = (name: string, args?: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  ...(args === undefined ? {} : { arguments: args }),
  ...extra,
});

/** A sequence of calls covering every family, successes and refusals (arguments the SDK refuses included). */
const SCRIPT: Array<[string, unknown]> = [
  [
    'session_start',
    {
      title: 'Ship it',
      id: 's1',
      phases: [{ id: 'design', name: 'Design' }, { id: 'build', name: 'Build', blockedBy: ['design'] }, 'test'],
    },
  ],
  ['session_status', {}],
  ['session_list', {}],
  ['phase_start', { phase: 'build' }],
  ['phase_start', { phase: 'design' }],
  ['substep_reach', { phase: 'design', name: 'sketch' }],
  ['tokens_record', { input: 10, output: 5 }],
  ['tokens_record', { input: 10, output: 5, model: 'claude-sonnet-4-5', cacheWrite: 3, phase: 'design', agent: 'a1' }],
  ['tokens_record', { input: -1 }],
  ['tokens_record', { input: '12' }],
  ['tokens_record', { input: 1, ifRevision: 1 }],
  ['note_add', { text: 'hello' }],
  ['note_add', { text: 'x', sesion: 's1' }],
  ['note_add', undefined],
  ['decision_record', { title: 'db', choice: 'sqlite', rationale: 'small' }],
  ['error_record', { phase: 'design', type: 'runtime', message: 'boom' }],
  ['error_resolve', { errorId: 'err-1', resolution: 'fixed' }],
  ['file_record', { action: 'created', paths: ['a.txt'] }],
  ['milestone_add', { title: 'beta' }],
  ['milestone_done', { milestone: 'beta' }],
  ['context_set', { summary: 'where we are' }],
  ['checkpoint_create', {}],
  ['checkpoint_list', {}],
  ['resume_plan', {}],
  ['handoff', {}],
  ['phase_complete', { phase: 'design' }],
  ['session_status', { session: '../etc' }],
  ['session_status', { session: 'nope' }],
  ['no_such_tool', {}],
  ['session_pause', {}],
];

describe('tools/call on the fast path', () => {
  it('answers exactly as the SDK path does, call for call, and takes the fast path for well-formed calls', async () => {
    const fast = await raw();
    const slow = await raw();
    for (const [i, [name, args]] of SCRIPT.entries()) {
      const a = await fast.request(i, 'tools/call', callParams(name, args));
      // An extra params member is dropped by the SDK's schema but sends the call down its path.
      const b = await slow.request(i, 'tools/call', callParams(name, args, { 'x-baton-test': true }));
      expect(a, `${name} ${JSON.stringify(args)}`).toEqual(b);
    }
    expect(slow.sdkCalls()).toBe(SCRIPT.length);
    // Only the calls the SDK refuses before running the tool went to it: bad arguments and the unknown tool.
    expect(fast.sdkCalls()).toBe(5);
    expect(await fast.manager.get('s1')).toEqual(await slow.manager.get('s1'));
  });

  it('a call with a progress token in _meta takes the fast path; task augmentation and odd params go to the SDK', async () => {
    const r = await raw();
    await r.request(1, 'tools/call', callParams('session_start', { title: 't', id: 's1' }));
    const withToken = await r.request(
      2,
      'tools/call',
      callParams('note_add', { text: 'a' }, { _meta: { progressToken: 'p1' } }),
    );
    expect((withToken['result'] as { isError?: boolean }).isError).toBeFalsy();
    expect(r.sdkCalls()).toBe(0);
    await r.request(
      3,
      'tools/call',
      callParams('note_add', { text: 'b' }, { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }),
    );
    const five = await r.request(5, 'tools/call', callParams('note_add', [1, 2]));
    const six = await r.request(6, 'tools/call', callParams('note_add', { text: 'd', constructor: 'x' }));
    expect(r.sdkCalls()).toBe(3);
    // The SDK's answers for those: a JSON-RPC error for arguments that are not an object of named values.
    expect((five['error'] as { code: number }).code).toBe(-32602);
    expect((six['error'] as { code: number }).code).toBe(-32602);
    // A request the SDK does not take as one (a fractional progress token) is not run at all, as before.
    await r.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: callParams('note_add', { text: 'c' }, { _meta: { progressToken: 1.5 } }),
    });
    await r.request(8, 'ping');
    expect(r.sdkCalls()).toBe(3);
    expect(r.got.some((m) => (m as { id?: unknown }).id === 7)).toBe(false);
    expect((await r.manager.get('s1')).notes.map((n) => n.text)).toEqual(['a', 'b']);
  });

  it('a call the client cancels while it runs gets no response; the change it made stays; the server goes on', async () => {
    let release: (() => void) | null = null;
    const store = new MemoryStore();
    const slowStore = new Proxy(store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'append' && release === null) {
          return async (...a: unknown[]) => {
            await new Promise<void>((r) => (release = r));
            return (v as (...x: unknown[]) => unknown).apply(target, a);
          };
        }
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const manager = freshManager(slowStore as SessionStore);
    await freshManager(store).start({ title: 't', id: 's1' });
    const r = await raw({ manager });
    void r.send({
      jsonrpc: '2.0',
      id: 'c1',
      method: 'tools/call',
      params: callParams('note_add', { text: 'cancelled', session: 's1' }),
    });
    while (!release) await new Promise((x) => setImmediate(x));
    await r.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user' } });
    (release as () => void)();
    const next = await r.request('c2', 'tools/call', callParams('note_add', { text: 'after', session: 's1' }));
    expect((next['result'] as { isError?: boolean }).isError).toBeFalsy();
    expect(r.got.some((m) => (m as { id?: unknown }).id === 'c1')).toBe(false);
    expect((await manager.get('s1')).notes.map((n) => n.text)).toEqual(['cancelled', 'after']);
    expect(r.sdkCalls()).toBe(0);
  });

  it('sends the response before the derived files are refreshed, and refreshes them after every change', async () => {
    // As the CLI opens it: derived files only when asked (the server asks after each change).
    const r = await raw({
      manager: new SessionManager({
        store: new MemoryStore(),
        now: tickingClock(T0),
        pid: 1,
        host: 'h',
        derivedFiles: { refresh: 'flush' },
      }),
    });
    await r.request(1, 'tools/call', callParams('session_start', { title: 't', id: 's1' }));
    await serverSettled(r.server);
    const order: string[] = [];
    const flush = r.manager.derivedFiles.flush.bind(r.manager.derivedFiles);
    r.manager.derivedFiles.flush = async () => {
      order.push('refresh');
      return flush();
    };
    const seen = r.got.length;
    await r.request(2, 'tools/call', callParams('note_add', { text: 'a' }));
    order.push('response');
    await serverSettled(r.server);
    expect(order).toEqual(['response', 'refresh']);
    // A burst shares a refresh; none is lost.
    order.length = 0;
    await Promise.all([3, 4, 5].map((id) => r.request(id, 'tools/call', callParams('note_add', { text: `n${id}` }))));
    await serverSettled(r.server);
    expect(order.filter((o) => o === 'refresh').length).toBeGreaterThanOrEqual(1);
    expect(order.filter((o) => o === 'refresh').length).toBeLessThanOrEqual(2);
    // A read-only call refreshes nothing.
    order.length = 0;
    await r.request(6, 'tools/call', callParams('session_status', {}));
    await serverSettled(r.server);
    expect(order).toEqual([]);
    expect(r.got.length).toBe(seen + 5);
  });
});

describe('envelope checks (src/mcp/envelope.ts)', () => {
  const base = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } };
  const variants: unknown[] = [
    base,
    { ...base, id: 'a' },
    { ...base, id: 1.5 },
    { ...base, id: 2 ** 60 },
    { ...base, id: null },
    { ...base, id: true },
    { ...base, jsonrpc: '1.0' },
    { ...base, method: 5 },
    { ...base, extra: 1 },
    { ...base, params: [] },
    { ...base, params: null },
    { ...base, params: 'x' },
    { ...base, params: { _meta: { progressToken: 'p' } } },
    { ...base, params: { _meta: { progressToken: 1.5 } } },
    { ...base, params: { _meta: { progressToken: null } } },
    { ...base, params: { _meta: [] } },
    { ...base, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } } },
    { ...base, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', method: 'n', params: { _meta: 5 } },
    { jsonrpc: '2.0', method: 'n', extra: true },
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } },
    JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{}}'),
    [base],
    null,
    'text',
    Object.assign(Object.create({ inherited: 1 }), base),
  ];

  it('accept only what the SDK schemas accept, and the plain requests and notifications clients send', () => {
    for (const v of variants) {
      if (isPlainRequest(v)) expect(JSONRPCRequestSchema.safeParse(v).success, JSON.stringify(v)).toBe(true);
      if (isPlainNotification(v)) expect(JSONRPCNotificationSchema.safeParse(v).success, JSON.stringify(v)).toBe(true);
      expect(isPlainRequest(v) && isPlainNotification(v)).toBe(false);
    }
    expect(isPlainRequest(base)).toBe(true);
    expect(isPlainRequest({ ...base, params: { name: 'x', _meta: { progressToken: 7 } } })).toBe(true);
    expect(isPlainNotification({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true);
  });
});

describe('compiled argument checks (src/mcp/fast-check.ts)', () => {
  /** The input and output schemas of every tool, as registered with the SDK. */
  function schemas(): Array<{ name: string; input: ZodTypeAny; output: ZodTypeAny }> {
    const server = createMcpServer({ manager: freshManager() });
    const tools = (
      server as unknown as { _registeredTools: Record<string, { inputSchema: ZodTypeAny; outputSchema: ZodTypeAny }> }
    )._registeredTools;
    return Object.entries(tools).map(([name, t]) => ({ name, input: t.inputSchema, output: t.outputSchema }));
  }

  const VALUES: unknown[] = [
    undefined,
    null,
    0,
    -1,
    1.5,
    2 ** 53,
    NaN,
    '',
    'x',
    'y'.repeat(5000),
    true,
    [],
    ['a'],
    [1],
    {},
    { a: 1 },
    'created',
    's1',
  ];

  /** Argument objects from every tool's fields: each field alone with each value, and the valid sample. */
  function candidates(schema: ZodTypeAny): unknown[] {
    const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
    const out: unknown[] = [{}, [], null, 'x', { unknown: 1 }];
    for (const key of Object.keys(shape)) for (const v of VALUES) out.push({ [key]: v });
    return out;
  }

  it('true only for what zod accepts and parses to an equal value, for every tool', () => {
    let fast = 0;
    for (const { name, input, output } of schemas()) {
      const check = compileCheck(input);
      for (const c of candidates(input)) {
        if (check?.(c)) {
          fast += 1;
          const parsed = input.safeParse(c);
          expect(parsed.success, `${name} ${JSON.stringify(c)}`).toBe(true);
          expect(parsed.data, `${name} ${JSON.stringify(c)}`).toEqual(c);
        }
      }
      const out = compileCheck(output);
      for (const c of candidates(output))
        if (out?.(c)) expect(output.safeParse(c).success, `${name} output ${JSON.stringify(c)}`).toBe(true);
    }
    // The checks do take the common calls.
    expect(fast).toBeGreaterThan(100);
  });

  it('compiles every tool input schema but session_start (its phases are a union)', () => {
    const none = schemas()
      .filter((s) => !compileCheck(s.input))
      .map((s) => s.name);
    expect(none).toEqual(['session_start']);
    expect(
      compileCheck(schemas().find((s) => s.name === 'tokens_record')!.input)?.({ input: 10, output: 5, session: 's1' }),
    ).toBe(true);
  });
});
