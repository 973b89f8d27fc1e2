// Appends per second against worker processes (issue 30), part of bench/scale.ts: N baton
// workers, each appending to its own session (PostgresStore.append, one event per commit),
// against N raw one-row INSERT loops (same table shape, payload and durability), in
// alternating rounds with the same processes and connections throughout; every ratio is the
// median of the rounds' ratios.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Client } from 'pg';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import type { ScaleRow } from './scale-growth.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const workerFile = path.join(root, 'bench', 'scale-worker.ts');

/** The worker counts measured, and each count's target ratio (issue 30; none at 2 and 8). */
const TARGETS: Record<number, number | undefined> = { 1: 0.8, 2: undefined, 4: 0.8, 8: undefined, 16: 0.6 };

/** Median. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The first event of a bench session (scale.ts uses it too). */
export function created(id: string): NewEvent {
  return newEvent(
    'session.created',
    { title: id, idFormat: 'explicit', phases: [], budgetMax: null, contextSummary: null, metadata: {} },
    new Date().toISOString(),
    { agent: 'bench', pid: process.pid, host: os.hostname() },
  );
}

/** A worker process of scale-worker.ts in a rounds mode: `round(ms)` runs one round, its count. */
interface RoundWorker {
  round: (ms: number) => Promise<number>;
  quit: () => Promise<void>;
}

/** Starts a rounds-mode worker; resolves once it says ready. */
async function roundWorker(args: string[]): Promise<RoundWorker> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', workerFile, ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  const lines = readline.createInterface({ input: child.stdout });
  const queue: string[] = [];
  let waiter: ((l: string) => void) | null = null;
  lines.on('line', (l) => {
    if (waiter) {
      const w = waiter;
      waiter = null;
      w(l);
    } else queue.push(l);
  });
  const next = (): Promise<string> =>
    queue.length
      ? Promise.resolve(queue.shift()!)
      : Promise.race([
          new Promise<string>((r) => (waiter = r)),
          exited.then((code) => {
            throw new Error(`scale worker ${args[0]} exited (${code}): ${err}`);
          }),
        ]);
  if ((await next()) !== 'ready') throw new Error(`scale worker ${args[0]} did not start: ${err}`);
  return {
    round: async (ms) => {
      child.stdin.write(`${ms}\n`);
      return (JSON.parse(await next()) as { n: number }).n;
    },
    quit: async () => {
      child.stdin.end('quit\n');
      await exited;
    },
  };
}

/** One round of every worker of a group together; appends per second of the group. */
async function groupRound(ws: RoundWorker[], ms: number): Promise<number> {
  const ns = await Promise.all(ws.map((w) => w.round(ms)));
  return ns.reduce((a, b) => a + b, 0) / (ms / 1000);
}

/**
 * Appends/s with N worker processes on distinct sessions against N raw INSERT loops, at each
 * worker count, in `rounds` alternating rounds of `ms` (which group goes first alternates
 * too). Rates are medians of the rounds; each ratio is the median of the rounds' ratios.
 */
export async function appendCurve(
  url: string,
  admin: Client,
  schema: string,
  quick: boolean,
): Promise<{ rows: ScaleRow[]; curve: string }> {
  const { SessionManager } = await import('../src/manager/manager.js');
  const { PostgresStore } = await import('../src/store/postgres/store.js');
  const m = new SessionManager({ store: new PostgresStore({ url, workspace: 'bench' }) });
  await m.store.list();
  await admin.query(
    `CREATE TABLE IF NOT EXISTS "${schema}".raw (session_id text NOT NULL, seq integer NOT NULL, type text NOT NULL, body text NOT NULL, PRIMARY KEY (session_id, seq))`,
  );
  const counts = quick ? [1, 2, 4] : [1, 2, 4, 8, 16];
  const rounds = quick ? 3 : 7;
  const ms = quick ? 1_000 : 2_000;
  const lines: string[] = [
    '| workers | baton appends/s | raw INSERTs/s | baton ÷ raw (median of rounds) | ratio range | baton vs 1 worker | raw vs 1 worker | target |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const rows: ScaleRow[] = [];
  let base: { ours: number; raw: number } | null = null;
  let prev: { ours: number; raw: number } | null = null;
  let grows = true;
  let fellAt: number | null = null;
  for (const n of counts) {
    const ids = Array.from({ length: n }, (_, i) => `a${n}-${i}`);
    for (const id of ids) await m.createFrom(id, [created(id)]);
    const ours = await Promise.all(ids.map((id) => roundWorker(['append', url, id])));
    const raw = await Promise.all(ids.map(() => roundWorker(['raw', url, 'raw'])));
    // A short round of each first: statements prepared, connections warm, JIT done.
    await groupRound(ours, 300);
    await groupRound(raw, 300);
    const oursRates: number[] = [];
    const rawRates: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let o = 0;
      let w = 0;
      if (r % 2 === 0) {
        o = await groupRound(ours, ms);
        w = await groupRound(raw, ms);
      } else {
        w = await groupRound(raw, ms);
        o = await groupRound(ours, ms);
      }
      oursRates.push(o);
      rawRates.push(w);
      ratios.push(o / w);
    }
    await Promise.all([...ours, ...raw].map((w) => w.quit()));
    const res = { ours: median(oursRates), raw: median(rawRates) };
    const ratio = median(ratios);
    base ??= res;
    // Growth: while raw INSERTs grow with workers, baton's appends must grow too.
    if (prev && res.raw > prev.raw && res.ours <= prev.ours) {
      grows = false;
      fellAt ??= n;
    }
    prev = res;
    const target = TARGETS[n];
    const range = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
    lines.push(
      `| ${n} | ${res.ours.toFixed(0)} | ${res.raw.toFixed(0)} | ${ratio.toFixed(2)}× | ${range} | ${(res.ours / base.ours).toFixed(2)}× | ${(res.raw / base.raw).toFixed(2)}× | ${target === undefined ? '—' : `≥ ${target}× ${ratio >= target ? 'pass' : '**FAIL**'}`} |`,
    );
    rows.push({
      name: `PostgreSQL appends, ${n} worker process${n > 1 ? 'es' : ''} on distinct sessions`,
      baton: `${res.ours.toFixed(0)} /s`,
      baseline: `${res.raw.toFixed(0)} /s raw one-row INSERT loops, same concurrency`,
      ratio,
      target: target === undefined ? 'reference (no target)' : `≥ ${target}× (median of ${rounds} alternating rounds)`,
      pass: target === undefined || ratio >= target,
    });
  }
  rows.push({
    name: 'PostgreSQL appends grow with workers while raw INSERTs do',
    baton: grows ? 'grows' : 'falls back',
    baseline: 'raw INSERT loops',
    ratio: grows ? 1 : 0,
    target: 'grows',
    pass: grows,
  });
  lines.push(
    '',
    grows
      ? "baton's appends grew with the workers wherever the raw INSERTs did."
      : `**baton's appends did not grow from ${counts[counts.indexOf(fellAt!) - 1]} to ${fellAt} workers while the raw INSERTs did.**`,
  );
  await m.store.close();
  return { rows, curve: lines.join('\n') };
}

// On its own (the append curve alone, printed; bench/scale.ts writes BENCHMARKS.md):
//   BATON_SCALE_PG_URL=postgres://… node --import tsx bench/scale-appends.ts [--quick]
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const base = process.env['BATON_SCALE_PG_URL'];
  if (!base) throw new Error('Set BATON_SCALE_PG_URL=postgres://… (a database you own).');
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const schema = `scale_appends_${process.pid}`;
  const u = new URL(base);
  u.searchParams.set('schema', schema);
  try {
    const r = await appendCurve(u.toString(), admin, schema, process.argv.includes('--quick'));
    console.log(r.curve);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
