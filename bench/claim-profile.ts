// Profile of one claimer (issue 30): statements and round trips per claim, client CPU per
// claim, wall time per claim, with one process claiming N lapsed sessions in a loop.
//   BATON_PROFILE_PG_URL=postgres://… node --import tsx bench/claim-profile.ts [N]
import { createRequire } from 'node:module';
import { SessionManager } from '../src/manager/manager.js';
import { PostgresStore } from '../src/store/postgres/store.js';
import { created } from './scale-appends.js';

const require = createRequire(import.meta.url);
const pg = require('pg') as typeof import('pg');
const base = process.env['BATON_PROFILE_PG_URL']!;
const n = Number(process.argv[2] ?? 50);
const schema = `claimprof_${process.pid}`;
const u = new URL(base);
u.searchParams.set('schema', schema);
const url = u.toString();

const counts = new Map<string, number>();
let total = 0;
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const a = args[0] as string | { text: string };
  const text = (typeof a === 'string' ? a : (a?.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 90);
  counts.set(text, (counts.get(text) ?? 0) + 1);
  total++;
  return (origQuery as (...x: unknown[]) => unknown).apply(this, args);
} as typeof origQuery;

const m = new SessionManager({ store: new PostgresStore({ url, workspace: 'prof' }) });
for (let i = 0; i < n; i++) {
  const id = `c-${i}`;
  await m.createFrom(id, [created(id)]);
  await m.leases.acquire(id, { owner: 'gone', ttlMs: 1_000 });
}
await (m.store as { settle?: () => Promise<void> }).settle?.();
await new Promise((r) => setTimeout(r, 1_200));
const w = new SessionManager({ store: new PostgresStore({ url }) });
await w.store.list();
counts.clear();
total = 0;
const lat: number[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (;;) {
  const t = performance.now();
  const c = await w.claims.claim({ owner: 'prof', ttlMs: 600_000 });
  if (!c) break;
  lat.push(performance.now() - t);
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const claims = lat.length;
lat.sort((a, b) => a - b);
console.log(
  `${claims} claims; wall ${(wall / claims).toFixed(2)} ms/claim; p50 ${lat[Math.floor(claims / 2)]!.toFixed(2)} ms; client CPU ${((cpu.user + cpu.system) / 1000 / claims).toFixed(2)} ms/claim; ${(total / claims).toFixed(2)} statements/claim (incl. BEGIN/COMMIT)`,
);
for (const [t, k] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${(k / claims).toFixed(2)}  ${t}`);
await w.store.close();
await m.store.close();
const c = new pg.Client({ connectionString: base });
await c.connect();
await c.query(`DROP SCHEMA ${schema} CASCADE`);
await c.end();
