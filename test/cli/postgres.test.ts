/**
 * The CLI over the PostgreSQL store (BATON_STORE=postgres://…?schema=…), with real processes:
 * no lost update among 8 concurrent writers, a zombie writer fenced off after a takeover, and
 * an unreachable server reported as STORE_UNAVAILABLE. Each test has a schema of its own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { DEFAULT_SNAPSHOT_EVERY } from '../../src/manager/types.js';
import { noteEvent } from '../../src/testing/fixtures.js';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';
import { BATON, ROOT, baseEnv, expectError, expectJsonError, expectRunError, workspace } from './helpers.js';
import type { Result, RunOptions, StatusJson, Workspace } from './helpers.js';

const WRITERS = 8;
// Enough separate processes racing to prove no lost update; more only costs time.
const RUNS = 12;
const LOCK =
  "`baton start` switches sessions under the workspace lock: a transaction held on one connection while the store writes through another, which the embedded server's one session cannot run at once";
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

  /**
   * `baton run …` in the background, in a process group of its own: `kill()` sends SIGKILL to
   * the run and its command together (a machine that died), leaving no orphan behind.
   */
  start(args: string[]): { child: ChildProcess; done: Promise<unknown>; kill: () => void } {
    const child = spawn(process.execPath, [BATON, 'run', ...args], {
      cwd: this.ws.dir,
      env: baseEnv({ BATON_STORE: this.url }),
      stdio: 'ignore',
      detached: true,
    });
    const done = new Promise((r) => child.on('exit', r));
    return { child, done, kill: () => process.kill(-child.pid!, 'SIGKILL') };
  }
}

describe.skipIf(!PG_URL)('CLI on the PostgreSQL store', () => {
  needsRealServer({
    [`${WRITERS} processes × ${RUNS} \`baton tokens add --input 1\` → exactly ${WRITERS * RUNS} input tokens, contiguous seq`]:
      LOCK,
    'a second run is refused while the lease is valid, takes over after expiry with a higher token, and the zombie is FENCED':
      LOCK,
    'a zombie that loaded the session under its valid lease, paused, and appends after a takeover is FENCED; nothing of it lands':
      LOCK,
    "a library child of `baton run` (openStore({ create: true }) as in the README) opens the run's store from BATON_STORE":
      LOCK,
    '--store names the store like BATON_STORE does': LOCK,
  });
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
        const r = await pw.run(['tokens', 'add', '--agent', `w${w}`, '--input', '1'], { spawn: true });
        if (r.code !== 0) failures.push(`w${w}#${i}: exit ${r.code}: ${r.stderr}`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    expect(failures).toEqual([]);
    const s = await pw.json<StatusJson>(['status']);
    expect(s.tokens.input).toBe(WRITERS * RUNS);
    expect(s.tokens.byAgent).toEqual(
      Object.fromEntries(Array.from({ length: WRITERS }, (_, w) => [`w${w}`, { input: RUNS, output: 0, cached: 0 }])),
    );
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
    // A short lease in real time: a run judges expiry by the server's clock, which BATON_NOW does not move.
    const first = pw.start([
      '--agent',
      'w1',
      '--ttl',
      '2s',
      '--heartbeat',
      '500ms',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 60000)',
    ]);
    const until = Date.now() + 15_000;
    while (!(await pw.json<{ lease: unknown }>(['status'])).lease) {
      if (Date.now() > until) throw new Error('the run never took the lease');
      await new Promise((r) => setTimeout(r, 50));
    }
    expectRunError(await pw.run(['run', '--agent', 'w2', '--', 'true']), 'LOCKED');
    first.kill();
    await first.done;
    await new Promise((r) => setTimeout(r, 2_500));

    // --end-orphans: the first run's command (a group of its own) outlived it.
    const second = await pw.run([
      'run',
      '--agent',
      'w2',
      '--end-orphans',
      '--',
      process.execPath,
      '-e',
      'console.log(process.env.BATON_LEASE_TOKEN, process.env.BATON_STORE === undefined)',
    ]);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('2 false');
    const before = (await pw.json<unknown[]>(['log'])).length;
    const zombie = await pw.run(['tokens', 'add', '--agent', 'w1', '--input', '5'], {
      env: { BATON_LEASE_TOKEN: '1', BATON_NOW: later(130_000) },
    });
    expectError(zombie, 'FENCED');
    expect((await pw.json<unknown[]>(['log'])).length).toBe(before);
    // The registry row was written with the events: it agrees with the session, lease included.
    const rows = await pw.json<Array<{ id: string; status: string; leaseToken: number | null }>>(['list']);
    const s = await pw.json<StatusJson & { lease: unknown }>(['status']);
    expect(rows.find((r) => r.id === 'lf')).toMatchObject({ status: s.status, leaseToken: null });
    expect(s.lease).toBeNull();
  }, 60_000);

  it('a zombie that loaded the session under its valid lease, paused, and appends after a takeover is FENCED; nothing of it lands', async () => {
    const pw = pgWorkspace();
    await pw.ok(['start', 'Zombie', '--id', 'zz', '--phases', 'build']);
    // The zombie: a worker in this process, on a store handle of its own.
    const store = new PostgresStore({ url: pw.url });
    try {
      const zombie = new SessionManager({ store, agent: 'w1' });
      const { result: lease } = await zombie.leases.acquire('zz', { owner: 'w1', ttlMs: 600_000, agent: 'w1' });
      expect(lease.token).toBe(1);
      // Its next write is held between load (fence checked: the lease is valid) and append.
      let reached!: () => void;
      const atAppend = new Promise<void>((r) => (reached = r));
      let resume!: () => void;
      const gate = new Promise<void>((r) => (resume = r));
      const append = store.append.bind(store);
      let held = false;
      store.append = async (...args: Parameters<PostgresStore['append']>) => {
        if (!held) {
          held = true;
          reached();
          await gate;
        }
        return append(...args);
      };
      await zombie.get('zz');
      const write = zombie.tokens('zz', { input: 5 }, { fencingToken: lease.token }).then(
        () => null,
        (e: unknown) => e,
      );
      await Promise.race([
        atAppend,
        write.then((e) => Promise.reject(new Error(`the zombie's write ended before its append: ${String(e)}`))),
      ]);
      // Meanwhile another worker, a real process, takes the session over.
      const taker = await pw.run([
        'run',
        '--force',
        '--agent',
        'w2',
        '--',
        process.execPath,
        '-e',
        'console.log(process.env.BATON_LEASE_TOKEN)',
      ]);
      expect(taker.code, taker.stderr).toBe(0);
      expect(taker.stdout.trim()).toBe('2');
      const before = await pw.json<Array<{ type: string; actor?: { agent?: string } }>>(['log']);
      resume();
      const e = await write;
      expect(e).toMatchObject({ code: 'FENCED', details: { sessionId: 'zz', token: 1 } });
      const after = await pw.json<Array<{ type: string }>>(['log']);
      expect(after).toEqual(before);
      expect(after.filter((x) => x.type === 'tokens.recorded')).toEqual([]);
      expect((await pw.json<StatusJson>(['status'])).tokens.input).toBe(0);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("a library child of `baton run` (openManager with BATON_STORE, as in the README) opens the run's store", async () => {
    const pw = pgWorkspace();
    await pw.ok(['start', 'Lib', '--id', 'lib']);
    const tsx = pathToFileURL(createRequire(path.join(ROOT, 'package.json')).resolve('tsx')).href;
    fs.writeFileSync(
      path.join(pw.ws.dir, 'child.mjs'),
      [
        'const { openManager } = await import(process.argv[2]);',
        'const m = openManager({ cwd: process.cwd(), url: process.env.BATON_STORE, dir: process.env.BATON_DIR, create: true });',
        'const ids = (await m.list()).map((s) => s.id);',
        'console.log(JSON.stringify({ kind: m.store.kind, ids }));',
        'await m.close();',
      ].join('\n'),
    );
    const r = await pw.run([
      'run',
      '--',
      process.execPath,
      '--import',
      tsx,
      'child.mjs',
      path.join(ROOT, 'src', 'index.ts'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ kind: 'postgres', ids: ['lib'] });
    // No file store was made up next to it.
    expect(fs.existsSync(path.join(pw.ws.dir, '.baton'))).toBe(false);
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
    expect(await pw.json(['init'])).toEqual({
      store: expect.stringContaining(`schema=${pw.url.split('schema=')[1]}`),
      created: true,
    });
    expect(await pw.json(['init'])).toMatchObject({ created: false });
  });

  it('a command whose change makes a snapshot due leaves the snapshot written when it exits', async () => {
    const pw = pgWorkspace();
    await pw.ok(['start', 'Long', '--id', 'long']);
    // 200 events appended behind the manager's back: no snapshot yet, and the next change makes one due.
    const store = new PostgresStore({ url: pw.url });
    try {
      const from = (await store.load('long')).revision;
      await store.append(
        'long',
        from,
        Array.from({ length: DEFAULT_SNAPSHOT_EVERY }, (_, i) => noteEvent(i + 1)),
      );
      expect((await store.load('long')).snapshot).toBeNull();
      await pw.ok(['note', 'add', 'the one that makes it due', '--session', 'long']);
      const loaded = await store.load('long');
      expect(loaded.snapshot?.revision).toBe(from + DEFAULT_SNAPSHOT_EVERY + 1);
      expect(loaded.events).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
