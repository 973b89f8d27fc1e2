// `npm run bench`: measures baton against baselines taken in the same run on the same disk,
// and rewrites BENCHMARKS.md. Every figure is a ratio, so the machine's speed cancels out.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { FileStore } from '../src/store/file/store.js';
import { HOOK_EXPLANATION, hookLatency } from './hooks.js';
import { OTEL_EXPLANATION, otelExportLatency } from './otel.js';
import { PG_EXPLANATION, pgAppends } from './postgres.js';
import type { PgRow as BenchRow } from './postgres.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const baton = path.join(root, 'dist/baton.cjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
const quick = process.argv.includes('--quick');
const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };

type Row = BenchRow;
const rows: Row[] = [];

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function timeSpawn(cmd: string, args: string[], cwd: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const t = ms(t0);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return t;
}

/** Alternates the two commands so that machine noise hits both alike. */
function compareSpawns(runs: number, a: () => number, b: () => number): { a: number; b: number } {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  for (let i = 0; i < runs; i++) {
    ta.push(a());
    tb.push(b());
  }
  return { a: p50(ta), b: p50(tb) };
}

function tokenEvent(i: number): NewEvent {
  return newEvent('tokens.recorded', { agent: `agent-${i % 4}`, phaseId: null, input: 10, output: 5, cached: 1 }, new Date().toISOString(), actor);
}

/** A store with one session of `n` events, built in bulk through the store, snapshotted as the manager would. */
async function sessionWith(dir: string, n: number): Promise<{ store: FileStore; manager: SessionManager; id: string }> {
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const manager = new SessionManager({ store, agent: 'bench' });
  const s = await manager.start({ title: `bench ${n}`, phases: [{ id: 'build', name: 'Build' }] });
  let rev = s.revision;
  const snapshotBefore = n >= 400 ? n - 50 : Number.POSITIVE_INFINITY;
  while (rev < n) {
    const k = Math.min(1000, n - rev, rev < snapshotBefore && snapshotBefore - rev < 1000 ? snapshotBefore - rev : 1000);
    rev = (await store.append(s.id, rev, Array.from({ length: k }, (_, i) => tokenEvent(rev + i)))).revision;
    if (rev === snapshotBefore) await store.writeSnapshot(s.id, { revision: rev, state: await manager.get(s.id) });
  }
  return { store, manager, id: s.id };
}

async function cliLatency(): Promise<void> {
  const dir = path.join(work, 'cli');
  fs.mkdirSync(dir);
  const { store, id } = await sessionWith(path.join(dir, '.baton'), 10_000);
  await store.close();
  const runs = quick ? 10 : 40;
  const r = compareSpawns(
    runs,
    () => timeSpawn(process.execPath, [baton, 'tokens', 'add', '--session', id, '--agent', 'cli', '--input', '1'], dir),
    () => timeSpawn(process.execPath, ['-e', '0'], dir),
  );
  rows.push({
    name: '`baton tokens add`, session of 10,000 events (p50 wall time)',
    baton: `${r.a.toFixed(1)} ms`,
    baseline: `${r.b.toFixed(1)} ms \`node -e 0\``,
    ratio: r.a / r.b,
    target: '≤ 1.5×',
    pass: r.a / r.b <= 1.5,
  });
}

async function durableAppends(): Promise<void> {
  const n = quick ? 1000 : 4000;
  const rounds = 20;
  const rawFile = path.join(work, 'raw.jsonl');
  const fd = fs.openSync(rawFile, 'a');
  const line = `${JSON.stringify({ v: 1, seq: 1, ...tokenEvent(1) })}\n`;
  const { store, manager, id } = await sessionWith(path.join(work, 'appends'), 10);
  let rev = (await manager.get(id)).revision;
  // Alternate rounds of the baseline (a raw write + fdatasync loop on the same disk) and of
  // baton's appends, so that disk and CPU noise hit both alike; report the median round.
  const ratios: number[] = [];
  let rawMs = 0;
  let oursMs = 0;
  for (let r = 0; r < rounds; r++) {
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < n / rounds; i++) {
      fs.writeSync(fd, line);
      fs.fdatasyncSync(fd);
    }
    const rawRound = ms(t0);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < n / rounds; i++) rev = (await store.append(id, rev, [tokenEvent(i)])).revision;
    const oursRound = ms(t0);
    rawMs += rawRound;
    oursMs += oursRound;
    ratios.push(rawRound / oursRound);
  }
  fs.closeSync(fd);
  const raw = n / (rawMs / 1000);
  const ours = n / (oursMs / 1000);
  const ratio = p50(ratios);
  rows.push({
    name: 'In-process durable appends (`store.append`, fsync each)',
    baton: `${ours.toFixed(0)} /s`,
    baseline: `${raw.toFixed(0)} /s raw write+fdatasync`,
    ratio,
    target: '≥ 0.8× (median of 20 alternating rounds)',
    pass: ratio >= 0.8,
  });

  // Against what the existing toolkits do: rewrite the whole JSON state per update.
  const state = { session_id: 'x', phases: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `phase ${i}`, status: 'pending', files_created: Array.from({ length: 4 }, (_, j) => `src/module-${i}/file-${j}.ts`), errors: [], retry_count: 0 })), token_usage: { total_input: 0, by_agent: {} as Record<string, { input: number }> } };
  let json = JSON.stringify(state, null, 2);
  while (json.length < 200 * 1024) {
    state.phases.push({ ...state.phases[0]!, id: state.phases.length });
    json = JSON.stringify(state, null, 2);
  }
  const stateFile = path.join(work, 'state.json');
  fs.writeFileSync(stateFile, json);
  const m = quick ? 200 : 600;
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < m; i++) {
    const s = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as typeof state;
    s.token_usage.total_input += 1;
    const tmp = `${stateFile}.tmp`;
    const f = fs.openSync(tmp, 'w');
    fs.writeSync(f, JSON.stringify(s, null, 2));
    fs.fsyncSync(f);
    fs.closeSync(f);
    fs.renameSync(tmp, stateFile);
  }
  const rewrite = m / (ms(t0) / 1000);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < m; i++) await manager.tokens(id, { agent: 'bench', input: 1 });
  const managed = m / (ms(t0) / 1000);
  rows.push({
    name: 'Token updates through `SessionManager` vs rewriting a 200 KB JSON state atomically per update',
    baton: `${managed.toFixed(0)} /s`,
    baseline: `${rewrite.toFixed(0)} /s (read, parse, write temp, fsync, rename)`,
    ratio: managed / rewrite,
    target: '≥ 5×',
    pass: managed / rewrite >= 5,
  });
  await store.close();
}

async function loadTime(): Promise<void> {
  const big = await sessionWith(path.join(work, 'load-big'), quick ? 20_000 : 100_000);
  const small = await sessionWith(path.join(work, 'load-small'), 100);
  await big.store.close();
  await small.store.close();
  const runs = quick ? 10 : 30;
  const time = async (dir: string, id: string): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const store = new FileStore({ root: dir });
    await new SessionManager({ store }).get(id);
    const t = ms(t0);
    await store.close();
    return t;
  };
  const tb: number[] = [];
  const ts: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const b = await time(path.join(work, 'load-big'), big.id);
    const s = await time(path.join(work, 'load-small'), small.id);
    if (i >= 3) {
      tb.push(b);
      ts.push(s);
    }
  }
  const b = p50(tb);
  const s = p50(ts);
  rows.push({
    name: `Loading a session of ${quick ? '20,000' : '100,000'} events vs one of 100 (open store + load, p50)`,
    baton: `${b.toFixed(2)} ms`,
    baseline: `${s.toFixed(2)} ms`,
    ratio: b / s,
    target: '≤ 2×',
    pass: b / s <= 2,
  });
}

async function listLatency(): Promise<void> {
  const dir = path.join(work, 'list');
  const storeDir = path.join(dir, '.baton');
  fs.mkdirSync(dir);
  FileStore.init(storeDir);
  const store = new FileStore({ root: storeDir });
  const manager = new SessionManager({ store, agent: 'bench' });
  const n = quick ? 2000 : 10_000;
  for (let i = 0; i < n; i++) await manager.start({ title: `session ${i}`, id: `s-${i}`, phases: [{ id: 'a', name: 'A' }], switch: true });
  await store.close();
  timeSpawn(process.execPath, [baton, 'list', '--json'], dir); // builds index.json once
  const r = compareSpawns(
    quick ? 10 : 30,
    () => timeSpawn(process.execPath, [baton, 'list', '--json', '--all'], dir),
    () => timeSpawn(process.execPath, ['-e', '0'], dir),
  );
  rows.push({
    name: `\`baton list --json\` over ${n.toLocaleString('en-US')} sessions (p50 wall time)`,
    baton: `${r.a.toFixed(1)} ms`,
    baseline: `${r.b.toFixed(1)} ms \`node -e 0\``,
    ratio: r.a / r.b,
    target: '≤ 2×',
    pass: r.a / r.b <= 2,
  });
}

const started = new Date();
await cliLatency();
await durableAppends();
await loadTime();
await listLatency();
rows.push(...hookLatency(quick, work));
rows.push(await otelExportLatency(quick, work));
const pgRow = await pgAppends(quick);
if (pgRow) rows.push(pgRow);
fs.rmSync(work, { recursive: true, force: true });

const table = [
  '| measurement | baton | baseline (same run) | ratio | target | |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.baton} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.pass ? 'pass' : '**FAIL**'} |`),
].join('\n');
console.log(table);
if (!quick) {
  const doc = `# Benchmarks

Produced by \`npm run bench\` (\`bench/run.ts\`) on ${started.toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${os.platform()}.
Every figure is a ratio to a baseline measured in the same run on the same disk, so it says
how baton compares, not how fast this machine is. Wall times are medians of alternating runs.

${table}

How each is measured:
- **CLI latency**: the bundled \`dist/baton.cjs tokens add --input 1\` against a session whose
  journal holds 10,000 events (snapshot near the end, as the manager keeps it), spawned
  alternately with \`node -e 0\`.
- **Durable appends**: \`FileStore.append\` of one event with its revision check, checksum,
  lock and \`fdatasync\`, against a loop of \`write\` + \`fdatasync\` of the same line to a plain file.
- **Against whole-file rewrites**: \`SessionManager.tokens()\` (validate, conditional append,
  fsync, snapshot every 200 events) against read–parse–modify–write-temp–fsync–rename of a
  200 KB JSON state, which is what the existing toolkits do on every update.
- **Load time**: a fresh \`FileStore\` + \`SessionManager.get()\` (newest snapshot plus the tail)
  of a 100,000-event session against a 100-event one.
- **List**: \`baton list --json --all\` over 10,000 sessions (registry cache warm) against \`node -e 0\`.
${HOOK_EXPLANATION}
${OTEL_EXPLANATION}
${pgRow ? PG_EXPLANATION : '- **PostgreSQL appends**: not measured in this run (`BATON_TEST_PG_URL` was not set).'}
`;
  fs.writeFileSync(path.join(root, 'BENCHMARKS.md'), doc);
  console.log('\nWrote BENCHMARKS.md');
}
if (rows.some((r) => !r.pass)) process.exitCode = 1;
