/**
 * What only the PostgreSQL store has to show, against the real server of BATON_TEST_PG_URL:
 * migrations applied once by racing processes, refusal of a newer schema, a lost connection
 * or an unreachable server as STORE_UNAVAILABLE, the change feed, and URL checks.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { parsePgUrl } from '../../src/store/postgres/url.js';
import { expectCode, noteEvent, rejection, seed } from '../../src/testing/conformance.js';
import { PG_URL, admin, backendsGone, dropSchema, freshSchema, needsRealServer, urlWith } from './pg-helpers.js';

const FIXTURE = path.resolve('test/fixtures/pg-open.ts');

/** One copy of the migration-race fixture: `ready` once connected, then `go` on its stdin. */
function startFixture(url: string): {
  ready: Promise<void>;
  go: () => void;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, url], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      if (stdout.startsWith('ready\n')) resolve();
    });
    child.once('close', (code) =>
      reject(new Error(`the fixture ended before it was ready (${code}): ${stdout}${stderr}`)),
    );
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe('PostgreSQL store URL', () => {
  it('reads schema, pool size and connect timeout, hides the password, passes other parameters on', () => {
    const t = parsePgUrl(
      'postgres://u:s3cret@db.example:6543/app?schema=team_a&pool=2&connect_timeout=3&sslmode=disable',
    );
    expect(t).toMatchObject({ schema: 'team_a', poolMax: 2, connectTimeoutMs: 3000 });
    expect(t.connectionString).toBe('postgres://u:s3cret@db.example:6543/app?sslmode=disable');
    expect(t.location).not.toContain('s3cret');
    expect(t.location).toContain('schema=team_a');
    expect(parsePgUrl('postgresql://h/db')).toMatchObject({ schema: 'baton', poolMax: 4, connectTimeoutMs: 5000 });
  });

  it('refuses a schema name that is not a plain identifier, and bad numbers, with BAD_INPUT and a hint', () => {
    for (const bad of ['x";drop table t;--', 'Upper', '1abc', '', 'a'.repeat(60), 'a b']) {
      expect(() => parsePgUrl(`postgres://h/db?schema=${encodeURIComponent(bad)}`)).toThrow(
        expect.objectContaining({ code: 'BAD_INPUT', hint: expect.stringContaining('schema') }),
      );
    }
    for (const bad of ['pool=1', 'pool=x', 'pool=1000', 'connect_timeout=-1']) {
      expect(() => parsePgUrl(`postgres://h/db?${bad}`)).toThrow(expect.objectContaining({ code: 'BAD_INPUT' }));
    }
  });
});

describe('PostgreSQL store: unreachable server', () => {
  it('answers STORE_UNAVAILABLE (retryable, with a hint) instead of hanging or crashing', async () => {
    const store = new PostgresStore({ url: 'postgres://postgres@127.0.0.1:1/test?connect_timeout=2' });
    const t0 = Date.now();
    const e = await rejection(store.list());
    expect(isBatonError(e, 'STORE_UNAVAILABLE')).toBe(true);
    expect(e).toMatchObject({ hint: expect.stringContaining('retry'), details: { retryable: true } });
    expect((e as Error).message).toContain('127.0.0.1:1');
    // Each call tries again (nothing is cached from the failure).
    await expectCode(store.load('x'), 'STORE_UNAVAILABLE');
    expect(Date.now() - t0).toBeLessThan(30_000);
    await store.close();
  });
});

describe('openStore and the environment', () => {
  it('without url and dir, BATON_STORE (then BATON_DIR) of the injected env names the store; explicit options win; lockTimeoutMs reaches the PostgreSQL store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-open-'));
    try {
      const pgUrl = 'postgres://u@db.example:5432/app?schema=team_a';
      const fromEnv = openStore({ cwd: dir, create: true, env: { BATON_STORE: pgUrl }, lockTimeoutMs: 1234 });
      expect(fromEnv).toBeInstanceOf(PostgresStore);
      expect(fromEnv.location).toContain('schema=team_a');
      expect((fromEnv as PostgresStore).lockTimeoutMs).toBe(1234);
      expect((openStore({ url: pgUrl, lockTimeoutMs: 777 }) as PostgresStore).lockTimeoutMs).toBe(777);
      expect(openStore({ cwd: dir, env: { BATON_STORE: 'memory:' } }).kind).toBe('memory');
      // An explicit url or dir beats the environment; an empty variable counts as unset.
      expect(openStore({ url: 'memory:', env: { BATON_STORE: pgUrl } }).kind).toBe('memory');
      const own = path.join(dir, 'own', '.baton');
      expect(openStore({ cwd: dir, dir: own, create: true, env: { BATON_STORE: pgUrl } }).location).toBe(own);
      const viaDir = path.join(dir, 'via-dir', '.baton');
      expect(openStore({ cwd: dir, create: true, env: { BATON_STORE: '', BATON_DIR: viaDir } }).location).toBe(viaDir);
      expect(openStore({ cwd: dir, create: true, env: {} }).location).toBe(path.join(dir, '.baton'));
      // The default is process.env: the library's entry point.
      const saved = process.env['BATON_STORE'];
      process.env['BATON_STORE'] = 'memory:';
      try {
        expect(openStore({ cwd: dir }).kind).toBe('memory');
      } finally {
        if (saved === undefined) delete process.env['BATON_STORE'];
        else process.env['BATON_STORE'] = saved;
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!PG_URL)('PostgreSQL store specifics', () => {
  needsRealServer({
    'four processes opening a new schema at once apply each migration exactly once, without error':
      'several sessions of the server at once (a transaction held open while others queue on it, watched in pg_locks / pg_stat_activity); the embedded server has one session',
    'a workspace lock held elsewhere: LOCKED after lockTimeoutMs (lock_timeout set as a parameter)':
      'a lock held in a transaction by another session while the store waits for it; the embedded server has one session',
    'a connection dropped by the server is STORE_UNAVAILABLE (retryable) at worst, and the next call works':
      'pg_terminate_backend of one connection; the embedded server has no backends to end',
    'appends in a stream keep a connection; when the server drops it, an append says to retry at worst, and the next works':
      "pg_terminate_backend of the store's connections; the embedded server has no backends to end",
    'every connection has a server-side statement_timeout below the client timeout, and TCP keepalive after 10 s idle':
      "settings sent at connection start-up; the embedded server keeps its one session's settings",
    'watch reports each committed create and append, by any handle, and nothing after it stops':
      'LISTEN/NOTIFY between connections; the embedded server delivers NOTIFY to its one session',
    'watch gets its connection back when the server drops it, and reports what was committed meanwhile':
      'LISTEN/NOTIFY between connections and pg_terminate_backend',
    'watch replaces a LISTEN connection that went silent (no close, no reply) and reports what was committed meanwhile':
      'LISTEN/NOTIFY between connections',
  });
  const schemas: string[] = [];
  const stores: PostgresStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const s of schemas.splice(0)) await dropSchema(s);
  });
  function open(params: Record<string, string> = {}): { store: PostgresStore; schema: string; url: string } {
    const schema = params['schema'] ?? freshSchema('pg');
    if (!schemas.includes(schema)) schemas.push(schema);
    const url = urlWith({ ...params, schema });
    const store = new PostgresStore({ url });
    stores.push(store);
    return { store, schema, url };
  }

  it('four processes opening a new schema at once apply each migration exactly once, without error', async () => {
    const schema = freshSchema('mig');
    schemas.push(schema);
    const app = `baton_mig_${process.pid}_${Date.now()}`;
    const url = urlWith({ schema, application_name: app });
    const c = await admin();
    const holder = await admin();
    try {
      // The test holds the migration lock, so every copy finds the schema missing and queues
      // on the lock: all four are inside the race before any of them may win it. (Watched
      // from another connection: pg_stat_activity stays frozen inside a transaction.)
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`baton.migrate.${schema}`]);
      const copies = Array.from({ length: 4 }, () => startFixture(url));
      await Promise.all(copies.map((x) => x.ready));
      for (const x of copies) x.go();
      for (;;) {
        const waiting = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1`,
          [app],
        );
        if (waiting.rows[0]!.n === 4) break;
        const ended = await Promise.race([
          Promise.all(copies.map((x) => x.done)).then(() => true),
          new Promise<false>((r) => setTimeout(() => r(false), 50)),
        ]);
        if (ended) throw new Error('the copies ended without queueing on the migration lock');
      }
      await holder.query('COMMIT');
      const results = await Promise.all(copies.map((x) => x.done));
      const applied: number[][] = [];
      for (const r of results) {
        expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
        const m = /^ready\nok (\{.*\})\n$/.exec(r.stdout);
        expect(m, `${r.stdout}${r.stderr}`).not.toBeNull();
        const out = JSON.parse(m![1]!) as { applied: number[]; sessions: number };
        expect(out.sessions).toBe(0);
        applied.push(out.applied);
      }
      // Exactly one copy applied the migrations; the three others found them done.
      const all = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1);
      expect(applied.filter((a) => a.length > 0)).toEqual([all]);
      expect(applied.filter((a) => a.length === 0)).toHaveLength(3);
      const rows = (await c.query<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`))
        .rows;
      expect(rows.map((r) => r.version)).toEqual(all);
    } finally {
      await holder.end();
      await c.end();
    }
  }, 120_000);

  it('close() racing the first call: the call fails with STORE_UNAVAILABLE (closed), never a TypeError', async () => {
    const { url } = open();
    // A schema new to this process (the call waits for the migration) and a current one.
    for (let round = 0; round < 2; round++) {
      const store = new PostgresStore({ url });
      const calls = [store.list(), store.exists('x'), store.withWorkspaceLock(async () => 1)].map((p) =>
        (p as Promise<unknown>).then(
          () => null,
          (e: unknown) => e,
        ),
      );
      const closing = store.close();
      for (const r of await Promise.all(calls)) {
        // A call may have got through before the pool ended; one that did not says why.
        if (r !== null) {
          expect(r, String(r)).toBeInstanceOf(Error);
          expect(r).toMatchObject({
            code: 'STORE_UNAVAILABLE',
            message: expect.stringContaining('closed'),
            details: { retryable: false },
          });
        }
      }
      await closing;
      await expectCode(store.list(), 'STORE_UNAVAILABLE');
    }
  });

  it('a workspace lock held elsewhere: LOCKED after lockTimeoutMs (lock_timeout set as a parameter)', async () => {
    const { url } = open();
    const holder = new PostgresStore({ url });
    const waiter = new PostgresStore({ url, lockTimeoutMs: 300 });
    stores.push(holder, waiter);
    await holder.list();
    let release!: () => void;
    let held!: () => void;
    const isHeld = new Promise<void>((r) => (held = r));
    const holding = holder.withWorkspaceLock(() => {
      held();
      return new Promise<void>((r) => (release = r));
    });
    await isHeld;
    const e = await rejection(waiter.withWorkspaceLock(async () => 'never'));
    expect(e).toMatchObject({ code: 'LOCKED', message: expect.stringContaining('300 ms') });
    release();
    await holding;
    expect(await waiter.withWorkspaceLock(async () => 'now')).toBe('now');
  });

  it('every connection has a server-side statement_timeout below the client timeout, and TCP keepalive after 10 s idle', async () => {
    const { clientConfig, QUERY_TIMEOUT_MS } = await import('../../src/store/postgres/pool.js');
    const cfg = clientConfig(parsePgUrl(urlWith({ schema: 'x' })));
    expect(cfg).toMatchObject({ keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    const app = `baton_st_${process.pid}_${Date.now()}`;
    const { store } = open({ application_name: app });
    await store.list();
    // The server's own limit, as the pooled connection sees it.
    const r = await (store as unknown as { q: (t: string) => Promise<{ rows: Array<{ t: string }> }> }).q(
      "SELECT current_setting('statement_timeout') AS t",
    );
    const ms = /^(\d+)s$/.test(r.rows[0]!.t)
      ? Number(r.rows[0]!.t.slice(0, -1)) * 1000
      : Number.parseInt(r.rows[0]!.t, 10);
    expect(ms).toBeGreaterThan(0);
    expect(ms).toBeLessThan(QUERY_TIMEOUT_MS);
  });

  it('refuses a schema migrated by a newer baton (UNSUPPORTED_VERSION with a hint) and leaves it alone', async () => {
    const schema = freshSchema('new');
    schemas.push(schema);
    const c = await admin();
    try {
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(
        `CREATE TABLE "${schema}".migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      await c.query(`INSERT INTO "${schema}".migrations (version, name) VALUES (1, 'one'), ($1, 'from the future')`, [
        SCHEMA_VERSION + 1,
      ]);
      const store = new PostgresStore({ url: urlWith({ schema }) });
      stores.push(store);
      const e = await rejection(store.list());
      expect(isBatonError(e, 'UNSUPPORTED_VERSION')).toBe(true);
      expect(e).toMatchObject({
        message: expect.stringContaining(`version ${SCHEMA_VERSION + 1}`),
        hint: expect.stringContaining('upgrade baton'),
      });
      const tables = (
        await c.query<{ n: string }>(
          'SELECT table_name AS n FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
          [schema],
        )
      ).rows.map((r) => r.n);
      expect(tables).toEqual(['migrations']);
    } finally {
      await c.end();
    }
  });

  it('keeps schemas apart: the same session id lives independently in two schemas', async () => {
    const a = open().store;
    const b = open().store;
    await seed(a, 'same', 2);
    await seed(b, 'same');
    expect((await a.load('same')).revision).toBe(3);
    expect((await b.load('same')).revision).toBe(1);
    await a.setActive('same');
    expect(await b.getActive()).toBeNull();
  });

  it('a connection dropped by the server is STORE_UNAVAILABLE (retryable) at worst, and the next call works', async () => {
    const app = `baton_test_${process.pid}_${Date.now()}`;
    const { store } = open({ application_name: app });
    await seed(store, 's');
    const c = await admin();
    try {
      // Killed in the middle of a call: the lock's transaction is cut.
      const inFlight = await rejection(
        store.withWorkspaceLock(async () => {
          const killed = await c.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'`,
            [app],
          );
          expect(killed.rowCount).toBe(1);
          await new Promise((r) => setTimeout(r, 100));
        }),
      );
      expect(isBatonError(inFlight, 'STORE_UNAVAILABLE')).toBe(true);
      expect(inFlight).toMatchObject({ details: { retryable: true } });
      // Idle connections killed: a call either works on a fresh connection or says to retry.
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);
      let revision: number | null = null;
      for (let attempt = 0; attempt < 3 && revision === null; attempt++) {
        try {
          revision = (await store.append('s', 1, [noteEvent(1)])).revision;
        } catch (e) {
          expect(e).toMatchObject({ code: 'STORE_UNAVAILABLE', details: { retryable: true } });
        }
      }
      expect(revision).toBe(2);
      expect((await store.readEvents('s')).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await c.end();
    }
  });

  it('appends in a stream keep a connection; when the server drops it, an append says to retry at worst, and the next works', async () => {
    const app = `baton_test_${process.pid}_${Date.now()}_k`;
    const { store } = open({ application_name: app });
    await seed(store, 's');
    const c = await admin();
    try {
      let revision = 1;
      for (let i = 0; i < 10; i++) revision = (await store.append('s', revision, [noteEvent(revision)])).revision;
      // At once, while the appends' connection is still kept: every connection of the store ends,
      // as in a server restart. pg_terminate_backend only signals: the test goes on once the
      // backends are gone, else an append could still be sent to one of them on its way out.
      const ended = await c.query<{ pid: number }>(
        'SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [app],
      );
      expect(ended.rowCount).toBeGreaterThan(0);
      await backendsGone(
        c,
        ended.rows.map((r) => r.pid),
      );
      let failures = 0;
      for (let attempt = 0; attempt < 3 && revision === 11; attempt++) {
        try {
          revision = (await store.append('s', 11, [noteEvent(11)])).revision;
        } catch (e) {
          failures++;
          expect(e).toMatchObject({ code: 'STORE_UNAVAILABLE', details: { retryable: true } });
        }
      }
      expect(failures).toBeLessThanOrEqual(1);
      expect(revision).toBe(12);
      expect((await store.append('s', 12, [noteEvent(12)])).revision).toBe(13);
      expect((await store.readEvents('s')).map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    } finally {
      await c.end();
    }
  });

  it('close() while an append waits on the server: reported done and stored, never reported failed but stored', async () => {
    const { store, schema, url } = open();
    await seed(store, 'c');
    let revision = 1;
    for (let i = 0; i < 5; i++) revision = (await store.append('c', revision, [noteEvent(revision)])).revision;
    const c = await admin();
    try {
      // The session's row locked elsewhere: the next append's insert waits for it on the server.
      await c.query('BEGIN');
      await c.query(`SELECT 1 FROM "${schema}".sessions WHERE id = 'c' FOR UPDATE`);
      const last = store.append('c', revision, [noteEvent(revision)]).then(
        () => 'done',
        (e: unknown) => `failed: ${(e as Error).message}`,
      );
      await new Promise((r) => setTimeout(r, 200));
      const closing = store.close();
      await new Promise((r) => setTimeout(r, 200));
      await c.query('COMMIT');
      await closing;
      const outcome = await last;
      const reader = new PostgresStore({ url });
      stores.push(reader);
      const stored = (await reader.readEvents('c')).length === revision + 1;
      expect({ outcome, stored }).toEqual({ outcome: 'done', stored: true });
    } finally {
      await c.end();
    }
  });

  it('a script that appends and never closes the store still exits (the kept connection goes back to the pool)', async () => {
    const { url } = open();
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-left-open-')), 'script.mts');
    fs.writeFileSync(
      script,
      `
      import { PostgresStore } from ${JSON.stringify(path.resolve('src/store/postgres/store.ts'))};
      import { SessionManager } from ${JSON.stringify(path.resolve('src/manager/manager.ts'))};
      const m = new SessionManager({ store: new PostgresStore({ url: ${JSON.stringify(url)} }), agent: 'script' });
      const s = await m.start({ title: 'left open' });
      for (let i = 0; i < 5; i++) await m.tokens(s.id, { input: 1 });
      console.log('appended');`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Hanging is the failure: a connection kept checked out would hold the event loop for ever.
    const code = await new Promise<number | string>((resolve) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 20 s');
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(t);
        resolve(c ?? -1);
      });
    });
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
    expect({ out: out.trim(), code }, err).toEqual({ out: 'appended', code: 0 });
  }, 30_000);

  it('watch reports each committed create and append, by any handle, and nothing after it stops', async () => {
    const { store, url } = open();
    const other = new PostgresStore({ url });
    stores.push(other);
    await store.list(); // schema ready before listening
    const seen: Array<{ sessionId: string; revision: number }> = [];
    const stop = await store.watch((c) => seen.push(c));
    await seed(other, 'w');
    await other.append('w', 1, [noteEvent(1), noteEvent(2)]);
    await expectCode(other.append('w', 1, [noteEvent(9)]), 'CONFLICT'); // refused: not announced
    await store.append('w', 3, [noteEvent(3)]);
    const until = Date.now() + 5000;
    while (seen.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([
      { sessionId: 'w', revision: 1 },
      { sessionId: 'w', revision: 3 },
      { sessionId: 'w', revision: 4 },
    ]);
    await stop();
    await other.append('w', 4, [noteEvent(4)]);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toHaveLength(3);
  });

  it('watch gets its connection back when the server drops it, and reports what was committed meanwhile', async () => {
    const app = `baton_watch_${process.pid}_${Date.now()}`;
    const { store, url } = open({ application_name: app });
    const writer = new PostgresStore({ url: url.replace(app, `${app}_w`) });
    stores.push(writer);
    await seed(writer, 'v');
    const seen: Array<{ sessionId: string; revision: number }> = [];
    const stop = await store.watch((c) => seen.push(c));
    const c = await admin();
    try {
      const killed = await c.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'SELECT now()%'`,
        [app],
      );
      expect(killed.rowCount).toBe(1);
      await writer.append('v', 1, [noteEvent(1)]);
      const until = Date.now() + 10_000;
      while (!seen.some((x) => x.revision === 2) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(seen).toContainEqual({ sessionId: 'v', revision: 2 });
      // Listening again: later changes arrive as they commit.
      await writer.append('v', 2, [noteEvent(2)]);
      while (!seen.some((x) => x.revision === 3) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toContainEqual({ sessionId: 'v', revision: 3 });
    } finally {
      await c.end();
      await stop();
    }
  }, 30_000);

  it('watch replaces a LISTEN connection that went silent (no close, no reply) and reports what was committed meanwhile', async () => {
    // A proxy that can stop forwarding without closing anything: a peer that vanished.
    const target = new URL(PG_URL!);
    const pairs: Array<{ frozen: boolean }> = [];
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      const pair = { frozen: false };
      pairs.push(pair);
      client.on('data', (d) => void (pair.frozen || upstream.write(d)));
      upstream.on('data', (d) => void (pair.frozen || client.write(d)));
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const schema = freshSchema('sil');
      schemas.push(schema);
      const via = new URL(urlWith({ schema }));
      via.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const store = new PostgresStore({ url: via.toString(), watchTiming: { pingMs: 200, pingTimeoutMs: 1000 } });
      const writer = new PostgresStore({ url: urlWith({ schema }) });
      stores.push(store, writer);
      await seed(writer, 'z');
      const seen: Array<{ sessionId: string; revision: number }> = [];
      const stop = await store.watch((c) => seen.push(c));
      try {
        const before = pairs.length;
        for (const p of pairs) p.frozen = true;
        await writer.append('z', 1, [noteEvent(1)]);
        // Waits as long as it takes (the test's own timeout is the limit): without the ping,
        // the frozen connection never reports anything.
        while (!seen.some((x) => x.revision === 2)) await new Promise((r) => setTimeout(r, 50));
        expect(pairs.length).toBeGreaterThan(before);
        expect(seen).toContainEqual({ sessionId: 'z', revision: 2 });
      } finally {
        await stop();
      }
    } finally {
      proxy.close();
    }
  }, 60_000);

  it('an append racing a deletion either lands before it (deletion refused) or is refused itself: never acknowledged and lost', async () => {
    const { store, url } = open();
    const other = new PostgresStore({ url });
    stores.push(other);
    for (let round = 0; round < 20; round++) {
      const id = `d${round}`;
      await seed(store, id, 1);
      const [appended, deleted] = await Promise.allSettled([
        other.append(id, 2, [noteEvent(2)]),
        store.delete(id, 2, { deletedAt: new Date().toISOString(), title: id, status: 'completed' }),
      ]);
      if (appended.status === 'fulfilled') {
        // The append committed first: the deletion saw revision 3, not 2.
        expect(deleted.status).toBe('rejected');
        expect((deleted as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
        expect((await store.load(id)).revision).toBe(3);
      } else {
        expect(deleted.status).toBe('fulfilled');
        expect(appended.reason).toMatchObject({ code: 'NOT_FOUND' });
        expect(await store.exists(id)).toBe(false);
      }
    }
  });

  it('a schema dropped behind a running store is STORE_UNAVAILABLE once, then created again', async () => {
    const { store, schema } = open();
    await seed(store, 'x');
    await dropSchema(schema);
    const e = await rejection(store.load('x'));
    expect(e).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      details: { retryable: true },
      hint: expect.stringContaining('Retry'),
    });
    expect((await store.list()).summaries).toEqual([]);
    await seed(store, 'x');
    expect((await store.load('x')).revision).toBe(1);
  });

  it('stores each checkpoint with its checksum and reports one changed behind its back as invalid', async () => {
    const { store, schema } = open();
    const events = await seed(store, 'cp', 1);
    const { checkpointOf } = await import('../../src/testing/conformance.js');
    await store.saveCheckpoint('cp', checkpointOf('cp', events, 'cp-1'));
    await store.saveCheckpoint('cp', checkpointOf('cp', events, 'cp-2'));
    const c = await admin();
    try {
      await c.query(
        `UPDATE "${schema}".checkpoints SET body = replace(body, '"name":"cp-1"', '"name":"forged"') WHERE id = 'cp-1'`,
      );
    } finally {
      await c.end();
    }
    const list = await store.listCheckpoints('cp');
    expect(list.map((r) => [r.id, r.valid])).toEqual([
      ['cp-1', false],
      ['cp-2', true],
    ]);
    expect(list[0]).toMatchObject({ problem: expect.stringContaining('checksum') });
  });
});
