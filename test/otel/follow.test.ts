/**
 * `baton otel follow` as a real process (dist/baton.cjs) on the file store and on PostgreSQL:
 * killed with SIGKILL and started again it sends every later span exactly once (its place
 * is in the store), and a collector that goes down and comes back loses nothing.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BATON, baseEnv, needBuiltCli, workspace } from '../cli/helpers.js';
import type { Workspace } from '../cli/helpers.js';
import { EMBEDDED, PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { Receiver } from './receiver.js';
import type { ReceivedSpan } from './receiver.js';

// A short back-off; the default request timeout (10 s): a request that timed out after the
// receiver took it would be sent again (at-least-once on that path), which is not the subject.
const QUICK = { BATON_OTEL_BACKOFF_MS: '50' };

/** A running `baton otel follow` and what it printed. */
class Follow {
  out = '';
  err = '';
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(ws: Workspace, endpoint: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [BATON, 'otel', 'follow', '--endpoint', endpoint, '--json'], {
      cwd: ws.dir,
      env: baseEnv({ ...QUICK, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (b: Buffer) => (this.out += b.toString('utf8')));
    this.child.stderr!.on('data', (b: Buffer) => (this.err += b.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Spans it says were delivered (each line is printed after its cursor was stored). */
  get reported(): number {
    return this.out
      .split('\n')
      .filter(Boolean)
      .reduce((n, l) => n + (JSON.parse(l) as { spans: number }).spans, 0);
  }

  async started(): Promise<void> {
    await until(
      () => this.err.includes('Ctrl+C to stop'),
      () => `follow did not start: ${this.err}`,
    );
  }
}

async function until(ok: () => boolean, what: () => string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(what());
    await new Promise((r) => setTimeout(r, 25));
  }
}

function countById(spans: ReceivedSpan[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of spans) m.set(s.spanId, (m.get(s.spanId) ?? 0) + 1);
  return m;
}

const stores: Array<[string, () => { env: Record<string, string>; cleanup: () => Promise<void> }]> = [
  ['file store', () => ({ env: {}, cleanup: async () => undefined })],
];
if (PG_URL && EMBEDDED) {
  // The follower holds a LISTEN connection while the test writes through others: the embedded
  // server runs one session for all connections, so the writers would wait forever.
  console.warn(
    'otel follow on PostgreSQL: SKIPPED on embedded PostgreSQL (a listening follower and writers in other processes need a real server; set BATON_TEST_PG_URL)',
  );
} else if (PG_URL) {
  stores.push([
    'PostgreSQL store',
    () => {
      const schema = freshSchema('otel');
      return { env: { BATON_STORE: urlWith({ schema }) }, cleanup: () => dropSchema(schema) };
    },
  ]);
} else console.warn('otel follow on PostgreSQL: SKIPPED (no BATON_TEST_PG_URL and no embedded server)');

const running: Follow[] = [];
afterAll(() => {
  for (const f of running) f.child.kill('SIGKILL');
});

describe.each(stores)('otel follow on the %s', (_name, makeStore) => {
  it('killed with SIGKILL and restarted: every later span sent exactly once, the trace complete', async () => {
    needBuiltCli();
    const store = makeStore();
    const receiver = await new Receiver().start();
    try {
      const ws = workspace();
      const b = (...args: string[]) => ws.ok([...args, '--session', 'f1'], { env: store.env });
      await ws.ok(['start', 'Follow me', '--id', 'f1', '--phases', 'a,b,c'], { env: store.env });
      const first = new Follow(ws, receiver.url, store.env);
      running.push(first);
      await first.started();
      await b('phase', 'start', 'a', '--agent', 'alice');
      await b('tokens', 'add', '--agent', 'alice', '--phase', 'a', '--input', '10', '--output', '2');
      await b('phase', 'complete', 'a');
      await until(
        () => receiver.spans.some((s) => s.name === 'phase a') && first.reported === receiver.spans.length,
        () => `first follower: ${first.out} ${first.err}`,
      );
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      const beforeKill = receiver.spans.length;
      // Work done while nobody follows, then more after the restart.
      await b('phase', 'start', 'b');
      await b('error', 'add', '--phase', 'b', '--type', 'runtime', '--message', 'crash');
      await b('phase', 'fail', 'b', '--reason', 'crash');
      await b('phase', 'retry', 'b');
      await b('tokens', 'add', '--agent', 'bob', '--phase', 'b', '--input', '7', '--output', '1', '--cached', '3');
      const second = new Follow(ws, receiver.url, store.env);
      running.push(second);
      await second.started();
      await b('phase', 'complete', 'b');
      await b('phase', 'start', 'c');
      await b('phase', 'complete', 'c');
      await b('complete');
      await until(
        () =>
          receiver.spans.some((s) => s.parentSpanId === null) && second.reported === receiver.spans.length - beforeKill,
        () => `second follower: ${second.out} ${second.err}`,
      );
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
      // Exactly once each, and exactly the spans a one-off export of the whole session sends.
      const counts = countById(receiver.spans);
      expect(
        [...counts.values()].every((n) => n === 1),
        JSON.stringify([...counts]),
      ).toBe(true);
      const check = await new Receiver().start();
      await ws.ok(['otel', 'export', '--session', 'f1', '--endpoint', check.url], { env: store.env });
      await check.stop();
      expect([...counts.keys()].sort()).toEqual(check.spans.map((s) => s.spanId).sort());
      expect(
        receiver.spans
          .filter((s) => s.name === 'phase b')
          .map((s) => s.status.code)
          .sort(),
      ).toEqual([0, 2]);
    } finally {
      await receiver.stop();
      await store.cleanup();
    }
  }, 60_000);

  it('the collector down, then up: a clear warning naming it while down, then nothing lost', async () => {
    needBuiltCli();
    const store = makeStore();
    const receiver = await new Receiver().start();
    const port = receiver.portNumber;
    try {
      const ws = workspace();
      const b = (...args: string[]) => ws.ok([...args, '--session', 'd1'], { env: store.env });
      await ws.ok(['start', 'Down and up', '--id', 'd1', '--phases', 'a'], { env: store.env });
      const f = new Follow(ws, receiver.url, store.env);
      running.push(f);
      await f.started();
      await receiver.stop();
      await b('phase', 'start', 'a');
      await b('tokens', 'add', '--agent', 'x', '--phase', 'a', '--input', '4', '--output', '1');
      await b('phase', 'complete', 'a');
      await b('complete');
      await until(
        () => f.err.includes(`to ${receiver.url}/v1/traces`) && f.err.includes('Keeping the place'),
        () => `no warning while down: ${f.err}`,
      );
      expect(f.err).toMatch(/warning: Could not send \d+ spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
      await receiver.start(port);
      await until(
        () => receiver.spans.some((s) => s.parentSpanId === null) && f.reported === receiver.spans.length,
        () => `not caught up: ${f.out} ${f.err}`,
      );
      f.child.kill('SIGTERM');
      expect((await f.exited).code).toBe(0);
      const counts = countById(receiver.spans);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect(receiver.spans.map((s) => s.name).sort()).toEqual(['chat x', 'invoke_workflow Down and up', 'phase a']);
      expect(f.err).toContain('takes spans again');
    } finally {
      await receiver.stop();
      await store.cleanup();
    }
  }, 60_000);
});
