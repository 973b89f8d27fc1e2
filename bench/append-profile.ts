// Where an append's CPU goes (issue 30): client CPU (process.cpuUsage) and server CPU (the
// backends' /proc/PID/schedstat: the server must run on this machine) per append, in
// alternating rounds in one process, for:
//   raw          one-row prepared INSERT into a plain table (bench/scale-worker.ts's baseline)
//   raw+latency  the same INSERT made to wait on the server (pg_sleep of SLEEP_MS; about 1.3 ms
//                more in all): what a longer round trip alone costs the client
//   statement    baton's append statement (sql.ts), prepared, on the same kind of client
//   statement, store settings  the same on a client with the store's settings (timeouts, keepalive)
//   pool         the same statement through a pool set up as the store's (pool.ts)
//   store        PostgresStore.append (the statement through the store's pool, the refreshes)
// With --tables, the statement also runs against copies of the events table without one of
// its features each (foreign key, partitions) and with the foreign key's lock taken by the
// statement itself: what each feature costs the server.
//   BATON_PROFILE_PG_URL=postgres://… node --import tsx bench/append-profile.ts [N] [ROUNDS] [--tables]
// Use a database nobody else uses: the store's server CPU is that of every other baton backend of it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { summarize } from '../src/domain/summary.js';
import { fold } from '../src/domain/apply.js';
import type { StoredEvent } from '../src/domain/events.js';
import { PostgresStore } from '../src/store/postgres/store.js';
import { statements } from '../src/store/postgres/sql.js';
import { clientConfig, createPool } from '../src/store/postgres/pool.js';
import { parsePgUrl } from '../src/store/postgres/url.js';
import { tokenEvent } from './common.js';
import { created } from './scale-appends.js';

const require = createRequire(import.meta.url);
const pg = require('pg') as typeof import('pg');
const base = process.env['BATON_PROFILE_PG_URL'] ?? process.env['BATON_TEST_PG_URL'];
if (!base) throw new Error('Set BATON_PROFILE_PG_URL=postgres://… (a database you own).');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const n = Number(args[0] ?? 300);
const rounds = Number(args[1] ?? 16);
const tables = process.argv.includes('--tables');
const SLEEP_MS = 0.3;
const schema = `appendprof_${process.pid}`;
const S = `"${schema}"`;
const u = new URL(base);
u.searchParams.set('schema', schema);
const store = new PostgresStore({ url: u.toString() });
await store.prepare();
const connect = async (): Promise<import('pg').Client> => {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  return c;
};
const admin = await connect();
const client = await connect();
const pidOf = async (c: import('pg').Client): Promise<number> =>
  (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
const configured = new pg.Client(clientConfig(parsePgUrl(base)));
await configured.connect();
const configuredPid = await pidOf(configured);
const pool = createPool({ ...parsePgUrl(base), poolMax: 2 });
const poolPid = (await pool.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
const ids = ['store', 'stmt', 'pool', 'cfg', 'nofk', 'plain', 'lock'];
for (const id of ids) {
  const e = created(id);
  await store.create(id, [e], summarize(fold(null, [{ ...e, seq: 1 } as StoredEvent], id)!));
}
await admin.query(`
  CREATE TABLE ${S}.raw (session_id text NOT NULL, seq integer NOT NULL, type text NOT NULL, body text NOT NULL, PRIMARY KEY (session_id, seq));
  CREATE TABLE ${S}.plain (LIKE ${S}.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (session_id, seq),
    FOREIGN KEY (session_id) REFERENCES ${S}.sessions (id) ON DELETE CASCADE);
  CREATE INDEX ON ${S}.plain USING brin (at);
  CREATE INDEX ON ${S}.plain (session_id, seq) WHERE row_changed;
  CREATE TABLE ${S}.nofk (LIKE ${S}.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (session_id, seq)) PARTITION BY HASH (session_id);
  ${Array.from({ length: 16 }, (_, i) => `CREATE TABLE ${S}.nofk_p${i} PARTITION OF ${S}.nofk FOR VALUES WITH (MODULUS 16, REMAINDER ${i});`).join('\n')}
  CREATE INDEX ON ${S}.nofk USING brin (at);
  CREATE INDEX ON ${S}.nofk (session_id, seq) WHERE row_changed;
  INSERT INTO ${S}.plain SELECT * FROM ${S}.events;
  INSERT INTO ${S}.nofk SELECT * FROM ${S}.events;`);

const body = (i: number): string => JSON.stringify(tokenEvent(i));
const rev: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 1]));
let seq = 0;
const appendTo = (table: string, lock = false): string =>
  `${lock ? `WITH k AS (SELECT 1 FROM ${S}.sessions WHERE id = $1 FOR KEY SHARE) ` : ''}INSERT INTO ${table} (session_id, seq, type, body, row_changed)
   SELECT $1, $2 + 1, $3, $4, $5::boolean${lock ? ' FROM k' : ''} WHERE EXISTS (SELECT 1 FROM ${table} WHERE session_id = $1 AND seq = $2)`;
/** `n` conditional appends of session `id` with statement `text` on the plain client. */
const statement =
  (name: string, id: string, text: string, on: Pick<import('pg').Client, 'query'> = client) =>
  async (): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const r = await on.query({ name, text, values: [id, rev[id], 'tokens.recorded', body(i), null] });
      if (r.rowCount !== 1) throw new Error(`${name}: not appended`);
      rev[id]!++;
    }
  };
const rawInsert = (name: string, from: string) => async (): Promise<void> => {
  const text = `INSERT INTO ${S}.raw (session_id, seq, type, body) SELECT $1, $2, $3, $4${from}`;
  for (let i = 0; i < n; i++) await client.query({ name, text, values: ['raw', ++seq, 'tokens.recorded', body(i)] });
};
const variants: Record<string, () => Promise<void>> = {
  raw: rawInsert('raw', ''),
  'raw+latency': rawInsert('raw_sleep', ` FROM pg_sleep(${SLEEP_MS / 1000})`),
  statement: statement('stmt', 'stmt', statements(S).append),
  'statement, store settings': statement('stmt', 'cfg', statements(S).append, configured),
  pool: statement('stmt', 'pool', statements(S).append, pool),
  store: async () => {
    for (let i = 0; i < n; i++) rev['store'] = (await store.append('store', rev['store']!, [tokenEvent(i)])).revision;
    await store.settle();
  },
  ...(tables
    ? {
        'statement, no foreign key': statement('nofk', 'nofk', appendTo(`${S}.nofk`)),
        'statement, lock instead of foreign key': statement('lock', 'lock', appendTo(`${S}.nofk`, true)),
        'statement, unpartitioned': statement('plain', 'plain', appendTo(`${S}.plain`)),
      }
    : {}),
};

// Warm-up (statements prepared, JIT), then the store's backends are every baton connection
// to this database but the pool's and the configured client's.
for (const f of Object.values(variants)) await f();
const clientPid = await pidOf(client);
const storePids = (
  await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'baton' AND NOT pid = ANY($1)",
    [[clientPid, poolPid, configuredPid]],
  )
).rows.map((r) => r.pid);
const runNs = (pids: number[]): number =>
  pids.reduce((a, p) => {
    try {
      return a + Number(fs.readFileSync(`/proc/${p}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return a; // a backend that ended (an idle connection closed)
    }
  }, 0);
const names = Object.keys(variants);
const got: Record<string, Array<{ client: number; server: number; wall: number }>> = Object.fromEntries(
  names.map((k) => [k, []]),
);
for (let r = 0; r < rounds; r++) {
  for (const k of r % 2 ? [...names].reverse() : names) {
    const pids =
      k === 'store'
        ? storePids
        : k === 'pool'
          ? [poolPid]
          : k === 'statement, store settings'
            ? [configuredPid]
            : [clientPid];
    const s0 = runNs(pids);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await variants[k]!();
    const c = process.cpuUsage(c0);
    got[k]!.push({
      client: (c.user + c.system) / 1000 / n,
      server: (runNs(pids) - s0) / 1e6 / n,
      wall: (performance.now() - t0) / n,
    });
  }
}
const quartile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const cell = (xs: number[]): string => `${quartile(xs, 0.5).toFixed(3)} (${quartile(xs, 0.25).toFixed(3)})`;
console.log(`${rounds} alternating rounds of ${n} appends; median (first quartile) per append, ms`);
console.log('| variant | client CPU | server CPU | client + server | wall |');
console.log('|---|---|---|---|---|');
for (const k of names) {
  const g = got[k]!;
  console.log(
    `| ${k} | ${cell(g.map((x) => x.client))} | ${cell(g.map((x) => x.server))} | ${cell(g.map((x) => x.client + x.server))} | ${quartile(
      g.map((x) => x.wall),
      0.5,
    ).toFixed(3)} |`,
  );
}
await store.close();
await pool.end();
await configured.end();
await client.end();
await admin.query(`DROP SCHEMA ${S} CASCADE`);
await admin.end();
