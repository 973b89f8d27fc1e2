/**
 * Shared set-up of the dashboard tests: a scripted workflow run through the CLI (in-process,
 * `baton run` spawned) on the file store or on PostgreSQL, a dashboard server over it
 * started in-process, and plain HTTP requests that can name any Host or Origin.
 */
import http from 'node:http';
import { expect } from 'vitest';
import { openManager } from '../../src/manager/index.js';
import type { SessionManager } from '../../src/manager/index.js';
import { startUiServer } from '../../src/ui/index.js';
import type { UiServer } from '../../src/ui/index.js';
import { workspace } from '../cli/helpers.js';
import type { Result, RunOptions, Workspace } from '../cli/helpers.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';

/** A store the tests run on: the file store of a workspace, or a fresh PostgreSQL schema. */
export interface StoreCase {
  name: 'file' | 'postgres';
  /** BATON_STORE for CLI runs (undefined: the workspace's .baton). */
  url: string | undefined;
  schema: string | null;
}

/** The stores of the tests: always the file store; PostgreSQL when a server is there. */
export function storeCases(): StoreCase[] {
  const out: StoreCase[] = [{ name: 'file', url: undefined, schema: null }];
  if (PG_URL) {
    const schema = freshSchema('ui');
    out.push({ name: 'postgres', url: urlWith({ schema }), schema });
  } else {
    console.warn(
      'SKIPPED: dashboard tests on PostgreSQL (BATON_TEST_PG_URL is not set and no embedded server was started).',
    );
  }
  return out;
}

/** A workspace bound to one store. */
export class StoreWorkspace {
  constructor(
    readonly ws: Workspace,
    readonly store: StoreCase,
  ) {}

  private env(o: RunOptions = {}): RunOptions {
    return { ...o, env: { ...(this.store.url ? { BATON_STORE: this.store.url } : {}), ...o.env } };
  }

  run(args: string[], o?: RunOptions): Promise<Result> {
    return this.ws.run(args, this.env(o));
  }

  ok(args: string[], o?: RunOptions): Promise<Result> {
    return this.ws.ok(args, this.env(o));
  }

  json<T>(args: string[], o?: RunOptions): Promise<T> {
    return this.ws.json<T>(args, this.env(o));
  }

  /** Environment for a spawned `dist/baton.cjs` working on this store. */
  get storeEnv(): Record<string, string> {
    return this.store.url ? { BATON_STORE: this.store.url } : {};
  }

  /** A manager over this store, as `baton ui` opens it. */
  manager(): SessionManager {
    return openManager({ url: this.store.url ?? null, dir: null, cwd: this.ws.dir, create: false });
  }

  async drop(): Promise<void> {
    if (this.store.schema) await dropSchema(this.store.schema);
  }
}

/**
 * The scripted workflow: `api` active with a phase failed then retried, tokens of two agents
 * (one with a priced model) against a budget, an error and its resolution, a decision, a
 * finding, a milestone, a recorded file; `done` completed; `later` paused; `gone` failed;
 * `crash` interrupted by a command that exited 3 under `baton run`.
 */
export async function scriptedWorkflow(store: StoreCase): Promise<StoreWorkspace> {
  const w = new StoreWorkspace(workspace(), store);
  if (!store.url) await w.ok(['init']);
  await w.ok(['start', 'Finished work', '--id', 'done', '--phases', 'only']);
  await w.ok(['phase', 'start', 'only', '--agent', 'carol']);
  await w.ok(['phase', 'complete', 'only', '--agent', 'carol']);
  await w.ok(['complete']);
  await w.ok(['start', 'Abandoned idea', '--id', 'gone', '--phases', 'x']);
  await w.ok(['fail']);
  await w.ok(['start', 'Crashing run', '--id', 'crash', '--phases', 'prepare,deploy']);
  await w.ok(['phase', 'start', 'prepare', '--agent', 'dave']);
  await w.ok(['substep', 'prepare', 'download']);
  const r = await w.run(['run', '--', 'sh', '-c', 'exit 3']);
  expect(r.code, r.stderr).toBe(3);
  await w.ok(['start', 'Later', '--id', 'later', '--phases', 'p']);
  await w.ok(['pause']);
  await w.ok(['start', 'Build the API', '--id', 'api', '--phases', 'design,build,test']);
  await w.ok(['budget', 'set', '5000']);
  await w.ok(['phase', 'start', 'design', '--agent', 'alice']);
  await w.ok(['substep', 'design', 'sketch']);
  await w.ok([
    'tokens',
    'add',
    '--agent',
    'alice',
    '--phase',
    'design',
    '--input',
    '1200',
    '--output',
    '300',
    '--model',
    'claude-sonnet-4-5',
  ]);
  await w.ok([
    'decision',
    'add',
    '--title',
    'Storage',
    '--choice',
    'PostgreSQL',
    '--rationale',
    'many workers share it',
  ]);
  await w.ok(['phase', 'complete', 'design', '--agent', 'alice']);
  await w.ok(['phase', 'start', 'build', '--agent', 'bob']);
  w.ws.write('src/app.ts', 'export const x = 1;\n');
  await w.ok(['file', 'created', 'src/app.ts']);
  await w.ok(['error', 'add', '--phase', 'build', '--type', 'runtime', '--message', 'tests failed']);
  // 86 % of the budget: a warning on stderr, on purpose (the chart's 80 % line is passed).
  const warned = await w.run([
    'tokens',
    'add',
    '--agent',
    'bob',
    '--phase',
    'build',
    '--input',
    '2000',
    '--output',
    '400',
  ]);
  expect(warned.code, warned.stderr).toBe(0);
  await w.ok(['phase', 'fail', 'build', '--reason', 'tests failed']);
  await w.ok(['error', 'resolve', 'err-1', '--resolution', 'fixed the import']);
  await w.ok(['phase', 'retry', 'build', '--agent', 'bob']);
  await w.ok(['substep', 'build', 'compile']);
  expect(
    (await w.run(['tokens', 'add', '--agent', 'bob', '--phase', 'build', '--input', '300', '--output', '100'])).code,
  ).toBe(0);
  await w.ok(['finding', 'add', 'The cache is never invalidated', '--severity', 'high']);
  await w.ok(['milestone', 'add', 'Beta']);
  return w;
}

/** Starts a dashboard over `w`'s store, in this process. */
export function serve(w: StoreWorkspace, o: { host?: string } = {}): Promise<UiServer & { manager: SessionManager }> {
  const manager = w.manager();
  return startUiServer({ manager, ...o }).then((s) => ({
    ...s,
    manager,
    close: async () => {
      await s.close();
      await manager.store.close();
    },
  }));
}

/** What one plain HTTP request got. */
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with exactly the headers given (Host included), read to the end. */
export function request(
  server: UiServer,
  path: string,
  o: { method?: string; headers?: Record<string, string>; token?: boolean } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { Host: `127.0.0.1:${server.port}`, ...o.headers };
  if (o.token) headers['Authorization'] = `Bearer ${server.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path, method: o.method ?? 'GET', headers },
      (res) => {
        const chunks: Buffer[] = [];
        // An event stream never ends: its first frame is enough.
        const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        res.on('data', (b: Buffer) => {
          chunks.push(b);
          if (stream) res.destroy();
        });
        const done = (): void =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
