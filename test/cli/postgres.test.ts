/**
 * The CLI over the PostgreSQL store (BATON_STORE=postgres://…?schema=…), with real processes:
 * no lost update among 8 concurrent writers, a zombie writer fenced off after a takeover, and
 * an unreachable server reported as STORE_UNAVAILABLE. Each test has a schema of its own.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { BATON, ROOT, baseEnv, expectError, expectJsonError, workspace } from './helpers.js';
import type { Result, RunOptions, StatusJson, Workspace } from './helpers.js';

const WRITERS = 8;
const RUNS = 40;
const later = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** A workspace whose every run goes to the PostgreSQL store in a fresh schema. */
class PgWorkspace {
  constructor(
    readonly ws: Workspace,
    readonly url: string,
  ) {}

  private opts(o: RunOptions = {}): RunOptions {
    return { ...o, env: { BATON_STORE: this.url, ...o.env } };
  }

  run(args: string[], o?: RunOptions): Promise<Result> {
    return this.ws.run(args, this.opts(o));
  }

  ok(args: string[], o?: RunOptions): Promise<Result> {
    return this.ws.ok(args, this.opts(o));
  }

  json<T>(args: string[], o?: RunOptions): Promise<T> {
    return this.ws.json<T>(args, this.opts(o));
  }

  /** `baton run …` in the background. */
  start(args: string[]): { child: ChildProcess; done: Promise<unknown> } {
    const child = spawn(process.execPath, [BATON, 'run', ...args], { cwd: this.ws.dir, env: baseEnv({ BATON_STORE: this.url }), stdio: 'ignore' });
    return { child, done: new Promise((r) => child.on('exit', r)) };
  }
}

describe.skipIf(!PG_URL)('CLI on the PostgreSQL store', () => {
  const schemas: string[] = [];
  afterEach(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });
  function pgWorkspace(): PgWorkspace {
    const schema = freshSchema('cli');
    schemas.push(schema);
    return new PgWorkspace(workspace(), urlWith({ schema }));
  }

  it(`${WRITERS} processes × ${RUNS} \`baton tokens add --input 1\` → exactly ${WRITERS * RUNS} input tokens, contiguous seq`, async () => {
    const pw = pgWorkspace();
    await pw.ok(['start', 'Race', '--id', 'race']);
    const failures: string[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < RUNS; i++) {
        const r = await pw.run(['tokens', 'add', '--agent', `w${w}`, '--input', '1']);
        if (r.code !== 0) failures.push(`w${w}#${i}: exit ${r.code}: ${r.stderr}`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    expect(failures).toEqual([]);
    const s = await pw.json<StatusJson>(['status']);
    expect(s.tokens.input).toBe(WRITERS * RUNS);
    expect(s.tokens.byAgent).toEqual(Object.fromEntries(Array.from({ length: WRITERS }, (_, w) => [`w${w}`, { input: RUNS, output: 0, cached: 0 }])));
    expect(s.revision).toBe(1 + WRITERS * RUNS);
    const log = await pw.json<Array<{ seq: number; type: string }>>(['log']);
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 1 + WRITERS * RUNS }, (_, i) => i + 1));
    expect(log.filter((e) => e.type !== 'tokens.recorded').map((e) => e.type)).toEqual(['session.created']);
    // The registry row lists it, from the table every worker shares.
    const rows = await pw.json<Array<{ id: string; revision: number }>>(['list']);
    expect(rows.map((r) => r.id)).toEqual(['race']);
  }, 600_000);

  it('a second run is refused while the lease is valid, takes over after expiry with a higher token, and the zombie is FENCED', async () => {
    const pw = pgWorkspace();
    await pw.ok(['start', 'Lease', '--id', 'lf', '--phases', 'build']);
    const first = pw.start(['--agent', 'w1', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
    const until = Date.now() + 15_000;
    while (!((await pw.json<{ lease: unknown }>(['status'])).lease)) {
      if (Date.now() > until) throw new Error('the run never took the lease');
      await new Promise((r) => setTimeout(r, 50));
    }
    expectError(await pw.run(['run', '--agent', 'w2', '--', 'true']), 'LOCKED');
    first.child.kill('SIGKILL');
    await first.done;

    const second = await pw.run(['run', '--agent', 'w2', '--', process.execPath, '-e', 'console.log(process.env.BATON_LEASE_TOKEN, process.env.BATON_STORE === undefined)'], { env: { BATON_NOW: later(120_000) } });
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('2 false');
    const before = (await pw.json<unknown[]>(['log'])).length;
    const zombie = await pw.run(['tokens', 'add', '--agent', 'w1', '--input', '5'], { env: { BATON_LEASE_TOKEN: '1', BATON_NOW: later(130_000) } });
    expectError(zombie, 'FENCED');
    expect((await pw.json<unknown[]>(['log'])).length).toBe(before);
    // The registry row was written with the events: it agrees with the session, lease included.
    const rows = await pw.json<Array<{ id: string; status: string; leaseToken: number | null }>>(['list']);
    const s = await pw.json<StatusJson & { lease: unknown }>(['status']);
    expect(rows.find((r) => r.id === 'lf')).toMatchObject({ status: s.status, leaseToken: null });
    expect(s.lease).toBeNull();
  }, 60_000);

  it('--store names the store like BATON_STORE does', async () => {
    const pw = pgWorkspace();
    const ws = pw.ws;
    await ws.ok(['start', 'Flag', '--id', 'flag', '--store', pw.url]);
    await ws.ok(['note', 'add', 'hello', '--store', pw.url]);
    expect((await pw.json<StatusJson>(['status'])).notes).toHaveLength(1);
  });

  it('an unreachable server is STORE_UNAVAILABLE (exit 15) with a hint, in text and JSON', async () => {
    const ws = workspace();
    const env = { BATON_STORE: 'postgres://postgres@127.0.0.1:1/test?schema=nowhere&connect_timeout=2' };
    const { message, hint } = expectError(await ws.run(['status', '--session', 'x'], { env }), 'STORE_UNAVAILABLE');
    expect(message).toContain('127.0.0.1:1');
    expect(hint).toMatch(/retry/);
    expectJsonError(await ws.run(['list', '--json'], { env }), 'STORE_UNAVAILABLE');
  });

  it('`baton init` with a store URL creates the schema once, then finds it ready', async () => {
    const pw = pgWorkspace();
    expect(await pw.json(['init'])).toEqual({ ok: true, store: expect.stringContaining(`schema=${pw.url.split('schema=')[1]}`), created: true });
    expect(await pw.json(['init'])).toMatchObject({ ok: true, created: false });
  });
});
