/**
 * Fuzz trials. MCP: tool calls with arguments built from each tool's schema, mixed with junk
 * (wrong types, huge and odd strings, non-objects, prototype keys), through the SDK client
 * over an in-memory transport: every answer is a result or a coded refusal (never INTERNAL, never
 * a -32603), and the server keeps answering. CLI: invocations built from the real commands and
 * options with odd values, run in-process: every exit is 0 or a coded error (never INTERNAL), a
 * --json failure prints a coded error body (or, from doctor, inspect and import, its report), a
 * human one an `error[CODE]:` line. Paths given are relative to a temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from 'commander';
import { buildProgram, run } from '../../src/cli/main.js';
import { SessionManager } from '../../src/manager/manager.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Sizes, Target, TrialResult } from './common.js';
import { timed } from './common.js';

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

const STRINGS = [
  's1',
  'plan',
  'build',
  '',
  ' ',
  'x'.repeat(5000),
  'ünï©ødé ✓',
  '../../etc/passwd',
  'null',
  '-1',
  '1e309',
  '\u0000',
  'a\nb',
  'cp-1',
  'note-1',
  'err-1',
  '--json',
  '$(rm -rf /)',
  '{"a":1}',
];
const JUNK: unknown[] = [
  null,
  0,
  -1,
  3.5,
  1e308,
  true,
  false,
  [],
  [1, 'a'],
  {},
  { constructor: null },
  { __proto__: { x: 1 } },
  'x'.repeat(20_000),
  ...STRINGS,
];

/** A value for a property of JSON-schema type `type`: mostly fitting, sometimes junk. */
function value(schema: Record<string, unknown> | undefined): unknown {
  if (Math.random() < 0.3 || !schema) return pick(JUNK);
  const en = schema['enum'] as unknown[] | undefined;
  if (en?.length) return pick(en);
  switch (schema['type']) {
    case 'string':
      return pick(STRINGS);
    case 'number':
    case 'integer':
      return pick([0, 1, 2, 10, -5, 1_000_000, 2.5]);
    case 'boolean':
      return Math.random() < 0.5;
    case 'array':
      return Array.from({ length: Math.floor(Math.random() * 3) }, () =>
        value(schema['items'] as Record<string, unknown> | undefined),
      );
    default:
      return pick(JUNK);
  }
}

function argsFor(schema: Record<string, unknown>): unknown {
  const r = Math.random();
  if (r < 0.05) return pick([42, [1, 2], 'text', null, { constructor: null }]);
  const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(props)) if (Math.random() < 0.7) out[k] = value(s);
  if (r > 0.9) out[pick(['__proto__', 'constructor', 'extra', 'toString'])] = pick(JUNK);
  return out;
}

/** The MCP fuzz trial on `target`. */
export function mcpFuzzTrial(target: Target, sizes: Sizes, deadline: number): Promise<TrialResult> {
  return timed('fuzz: MCP tool calls', target.kind, sizes.mcpCalls, 'calls', async (r) => {
    const store = target.open(target.fresh());
    const manager = new SessionManager({ store, agent: 'fuzz' });
    await manager.start({
      title: 'fuzz',
      id: 's1',
      phases: [
        { id: 'plan', name: 'plan' },
        { id: 'build', name: 'build' },
      ] as never,
    });
    const server = createMcpServer({ manager });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'fuzz', version: '1' });
    await server.connect(b);
    await client.connect(a);
    const tools = (await client.listTools()).tools;
    const outcomes = { ok: 0, refused: 0, invalid: 0 };
    try {
      for (let i = 0; i < sizes.mcpCalls && Date.now() < deadline && r.problems.length < 10; i++) {
        const tool = Math.random() < 0.02 ? { name: 'no_such_tool', inputSchema: {} } : pick(tools);
        const args = argsFor(tool.inputSchema as Record<string, unknown>);
        try {
          const res = await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> });
          const text = (res.content as Array<{ text?: string }>)[0]?.text ?? '';
          // The MCP SDK answers schema failures and unknown tools itself, as an error result
          // worded `MCP error -32602: …`: invalid params, as a thrown -32602 would be.
          if (res.isError && /^MCP error -32602: (Input validation error|Tool .* not found)/.test(text)) {
            outcomes.invalid += 1;
          } else if (res.isError) {
            outcomes.refused += 1;
            if (/"code":"INTERNAL"/.test(text) || !/"code":"[A-Z_]+"/.test(text))
              r.problems.push(`${tool.name} ${JSON.stringify(args).slice(0, 200)} → ${text.slice(0, 300)}`);
          } else outcomes.ok += 1;
        } catch (e) {
          // Invalid params / unknown tool are protocol answers; anything else is a failure.
          // The SDK's own check of `arguments` throws -32603 when they are not a plain object (a
          // number, an array, null, an object whose `__proto__` was set) or carry a `constructor`
          // key its record parsing trips on: still a refusal before any tool runs, as
          // test/cli/mcp-arguments.test.ts shows over stdio, where baton's guard answers first.
          const notRecord =
            typeof args !== 'object' ||
            args === null ||
            Object.getPrototypeOf(args) !== Object.prototype ||
            Object.hasOwn(args, 'constructor');
          const sdkRefusal = e instanceof McpError && e.code === -32603 && notRecord;
          if (e instanceof McpError && (e.code === -32602 || e.code === -32601 || sdkRefusal)) outcomes.invalid += 1;
          else
            r.problems.push(
              `${tool.name} ${JSON.stringify(args).slice(0, 200)} threw ${e instanceof McpError ? `JSON-RPC ${e.code}` : ''} ${(e as Error).message.slice(0, 300)}`,
            );
        }
        r.done = i + 1;
        if (i % 500 === 499)
          await client
            .callTool({ name: 'session_list', arguments: {} })
            .catch((e: unknown) => r.problems.push(`the server stopped answering: ${(e as Error).message}`));
      }
    } finally {
      await client.close();
      await server.close();
      await store.close();
    }
    r.detail = `${outcomes.ok} ok, ${outcomes.refused} coded refusals, ${outcomes.invalid} invalid params`;
  });
}

/** Every command path (`['phase', 'start']`) and its long options, from the real program. */
function commands(): Array<{ path: string[]; options: Array<{ flag: string; takesValue: boolean }>; args: number }> {
  const io = {
    argv: [],
    env: {},
    cwd: os.tmpdir(),
    stdout: () => undefined,
    stderr: () => undefined,
    isTTY: false,
    now: () => new Date(),
  };
  const out: Array<{ path: string[]; options: Array<{ flag: string; takesValue: boolean }>; args: number }> = [];
  const walk = (c: Command, at: string[]): void => {
    for (const sub of c.commands) {
      const p = [...at, sub.name()];
      // Never run: long-running (watch, mcp, ui, otel follow, and otel export's retries with
      // back-off against a collector that is not there), taking over the terminal or a process
      // (run, claim), or writing outside the folder (hooks install writes the user's agent settings).
      if (['watch', 'mcp', 'run', 'claim', 'hooks', 'hook', 'help', 'ui', 'otel'].includes(p[0]!)) continue;
      out.push({
        path: p,
        // `log --follow` runs until interrupted.
        options: sub.options
          .filter((o) => o.long && o.long !== '--follow')
          .map((o) => ({ flag: o.long!, takesValue: o.required || o.optional })),
        args: (sub as unknown as { registeredArguments?: unknown[] }).registeredArguments?.length ?? 0,
      });
      walk(sub, p);
    }
  };
  walk(buildProgram(io, { ctx: null }), []);
  return out;
}

const VALUES = [
  's1',
  'plan',
  'build',
  '',
  '0',
  '-1',
  '3.5',
  '1e9',
  'abc',
  'x'.repeat(3000),
  'ünï©ødé',
  '.',
  'plain',
  'out.md',
  'missing/dir/file',
  'cp-1',
  'note-1',
  '2026-01-01',
  '10m',
  'bmad',
  'json',
  'a,b,c',
  '--',
  '-x',
];

/** The CLI fuzz trial on `target` (its store named by BATON_STORE for PostgreSQL, by the folder otherwise). */
export function cliFuzzTrial(target: Target, sizes: Sizes, deadline: number): Promise<TrialResult> {
  return timed('fuzz: CLI invocations', target.kind, sizes.cliCalls, 'runs', async (r) => {
    const spec = target.fresh();
    const cwd = target.kind === 'file' ? path.dirname(spec) : fs.mkdtempSync(path.join(os.tmpdir(), 'baton-fuzz-'));
    fs.mkdirSync(path.join(cwd, 'plain'), { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'],
      HOME: cwd,
      NO_COLOR: '1',
      ...(target.kind === 'postgres' ? { BATON_STORE: spec } : {}),
    };
    const cli = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
      let stdout = '';
      let stderr = '';
      const code = await run({
        argv,
        env,
        cwd,
        stdout: (s) => void (stdout += s),
        stderr: (s) => void (stderr += s),
        isTTY: false,
        now: () => new Date(),
      });
      return { code, stdout, stderr };
    };
    await cli(['start', 'fuzz', '--id', 's1', '--phases', 'plan,build']);
    const all = commands();
    const codes = new Map<number, number>();
    for (let i = 0; i < sizes.cliCalls && Date.now() < deadline && r.problems.length < 10; i++) {
      const c = pick(all);
      const argv = [...c.path];
      for (let k = 0; k < c.args + (Math.random() < 0.2 ? 1 : 0); k++) argv.push(pick(VALUES));
      for (const o of c.options) {
        if (Math.random() < 0.3) argv.push(o.flag, ...(o.takesValue ? [pick(VALUES)] : []));
      }
      if (Math.random() < 0.1) argv.push(pick(['--bogus', '-z', '--json', '--session', '--dir']));
      const res = await cli(argv);
      codes.set(res.code, (codes.get(res.code) ?? 0) + 1);
      const where = `baton ${argv.map((a) => (a.length > 40 ? `${a.slice(0, 40)}…` : a)).join(' ')}`;
      if (res.code === 1 || /error\[INTERNAL\]|"INTERNAL"/.test(res.stderr + res.stdout))
        r.problems.push(`${where} → INTERNAL: ${(res.stderr + res.stdout).slice(0, 300)}`);
      // A failure is a coded error (a --json body on stdout, or an `error[CODE]:` line on
      // stderr); doctor, inspect and import print their report and exit 10 when it holds an
      // error (docs/cli.md). Whether --json applied is not guessed (`--` may be an option's value).
      // A command group named without its sub-command shows its usage (exit 2); --verbose adds
      // lines around the error.
      else if (
        res.code !== 0 &&
        !codedJson(res.stdout) &&
        !/^error\[[A-Z_]+\]: /m.test(res.stderr) &&
        !(REPORTS.includes(c.path[0]!) && res.code === 10) &&
        !(res.code === 2 && /^Usage: baton /m.test(res.stdout + res.stderr))
      )
        r.problems.push(
          `${where} → exit ${res.code} without a coded error: ${(res.stdout + res.stderr).slice(0, 300)}`,
        );
      r.done = i + 1;
    }
    if (target.kind === 'postgres') fs.rmSync(cwd, { recursive: true, force: true });
    r.detail = `exit codes ${[...codes]
      .sort((x, y) => x[0] - y[0])
      .map(([c, n]) => `${c}:${n}`)
      .join(' ')}`;
  });
}

/** True when `stdout` is a coded --json error body. */
function codedJson(stdout: string): boolean {
  try {
    return /^[A-Z_]+$/.test((JSON.parse(stdout) as { error?: { code?: string } }).error?.code ?? '');
  } catch {
    return false;
  }
}

const REPORTS = ['doctor', 'inspect', 'import'];
