// Many workers on one PostgreSQL (issue 17): scale curves and growth, as ratios to baselines
// measured in the same run on the same server. Run by bench/run.ts; on its own:
//   node --import tsx bench/scale.ts [--quick] [--no-growth] [--only claims]
// It starts a PRIVATE PostgreSQL (initdb into a temporary folder; test/support/private-pg.ts)
// so hundreds of connections and 10 million rows never load the machine's shared server;
// BATON_SCALE_PG_URL=postgres://… measures an existing server instead (a database you own).
// On its own it rewrites the scale section of BENCHMARKS.md (between its markers).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrivatePg, privatePgUnavailable } from '../test/support/private-pg.js';
import { appendCurve, created } from './scale-appends.js';
import { growth } from './scale-growth.js';
import type { ScaleRow } from './scale-growth.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const worker = path.join(root, 'bench', 'scale-worker.ts');
const BEGIN = '<!-- scale:begin -->';
const END = '<!-- scale:end -->';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
}

/** Starts `bench/scale-worker.ts mode …args`; `ready` resolves once it is set up, `go()` starts it. */
function startWorker<T>(args: string[]): { ready: Promise<void>; go: () => void; result: Promise<T> } {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const result = new Promise<T>((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`scale worker ${args[0]} failed (${code}): ${err}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T);
    });
  });
  // The pipe is closed with the word: 'close' waits for every stdio stream, stdin included.
  return { ready, go: () => child.stdin.end('go\n'), result };
}

/** Starts workers, waits until every one is set up (then runs `beforeGo`), starts them together; their results. */
async function together<T>(argsList: string[][], beforeGo?: () => Promise<void>): Promise<T[]> {
  const ws = argsList.map((a) => startWorker<T>(a));
  await Promise.all(ws.map((w) => w.ready));
  await beforeGo?.();
  for (const w of ws) w.go();
  return Promise.all(ws.map((w) => w.result));
}

/**
 * Claims after expiry (issue 30): 100 sessions whose leases lapsed, claimed by a pool of 16
 * long-lived claimer workers (processes), each started, connected and warmed up before the
 * start (scale-worker.ts), then claiming in a loop (`manager.claims.claim`, plan included)
 * until none is left: what a user's worker pool sees, not the start-up of a `node` process
 * per claim (`baton claim` on the command line pays that, see the CLI rows).
 */
async function claimCurve(url: string, quick: boolean): Promise<{ rows: ScaleRow[]; text: string }> {
  const { SessionManager } = await import('../src/manager/manager.js');
  const { PostgresStore } = await import('../src/store/postgres/store.js');
  const m = new SessionManager({ store: new PostgresStore({ url, workspace: 'bench-claims' }) });
  const sessions = quick ? 30 : 100;
  const claimers = quick ? 4 : 16;
  // A session each for the workers to warm up on (scale-worker.ts): lapsed now. The measured
  // ones under a lease of 10 minutes until every worker is warm, then of a second.
  for (let i = 0; i < claimers; i++) {
    await m.createFrom(`w-${i}`, [created(`w-${i}`)]);
    await m.leases.acquire(`w-${i}`, { owner: 'gone', ttlMs: 1_000 });
  }
  const tokens: number[] = [];
  for (let i = 0; i < sessions; i++) {
    const id = `c-${i}`;
    await m.createFrom(id, [created(id)]);
    tokens.push((await m.leases.acquire(id, { owner: 'gone', ttlMs: 600_000 })).result.token);
  }
  // One plain conditional append, for scale: what a claim costs beyond a write.
  const one: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await m.note('c-0', { text: `n${i}` });
    one.push(performance.now() - t0);
  }
  await new Promise((r) => setTimeout(r, 1_200)); // the warm-up sessions' leases have expired
  const results = await together<{ latencies: number[]; ids: string[]; started: number; done: number }>(
    Array.from({ length: claimers }, () => ['claim', url]),
    async () => {
      // Every worker is warm: the measured sessions' leases shortened to a second, then lapse.
      for (let i = 0; i < sessions; i++) await m.leases.renew(`c-${i}`, tokens[i]!, 1_000);
      await new Promise((r) => setTimeout(r, 1_200));
    },
  );
  const at = Math.min(...results.map((r) => r.started));
  const ids = results.flatMap((r) => r.ids);
  const unique = new Set(ids).size;
  const latencies = results.flatMap((r) => r.latencies);
  const seconds = (Math.max(...results.map((r) => r.done)) - at) / 1000;
  const perSecond = ids.length / seconds;
  const p50 = pct(latencies, 50);
  const p99 = pct(latencies, 99);
  const append50 = pct(one, 50);
  await m.store.close();
  const text = `${ids.length} claims of ${sessions} expired sessions by a pool of ${claimers} long-lived claimer workers (processes, each warmed up by a claim of its own before the start, on the same store handle: modules loaded, connections open, statements prepared; then claiming in a loop with \`manager.claims.claim\`, its resume plan included) in ${seconds.toFixed(2)} s to the last claim (${perSecond.toFixed(1)} claims/s); each session claimed ${ids.length === unique && unique === sessions ? 'exactly once' : `**${ids.length} claims for ${unique} sessions**`}. Claim latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, against ${append50.toFixed(1)} ms for one conditional append (p50) on the same server.`;
  return {
    text,
    rows: [
      {
        // Issue 30's target, as it states it: p50 under 50 ms, each session claimed exactly once
        // (the ratio to one append is shown, not judged: 16 claimers share 2 cores with the server).
        name: `Claim latency after expiry, ${sessions} sessions, a pool of ${claimers} long-lived claimer workers (p50; target: under 50 ms, each claimed once)`,
        baton: `${p50.toFixed(1)} ms`,
        baseline: `${append50.toFixed(1)} ms one conditional append`,
        ratio: p50 / append50,
        target: '< 50 ms, each once',
        pass: p50 < 50 && unique === sessions && ids.length === sessions,
      },
      {
        name: `Claim latency after expiry, ${sessions} sessions, ${claimers} claimers (p99)`,
        baton: `${p99.toFixed(1)} ms`,
        baseline: `${append50.toFixed(1)} ms one conditional append`,
        ratio: p99 / append50,
        target: 'reference (no target)',
        pass: true,
      },
    ],
  };
}

/** `watch` fan-out: 50 watchers of one session (5 processes × 10), delivery latency after each append. */
async function watchFanout(url: string, quick: boolean): Promise<{ rows: ScaleRow[]; text: string }> {
  const { SessionManager } = await import('../src/manager/manager.js');
  const { PostgresStore } = await import('../src/store/postgres/store.js');
  const m = new SessionManager({ store: new PostgresStore({ url, workspace: 'bench-watch' }) });
  await m.createFrom('watched', [created('watched')]);
  const procs = quick ? 2 : 5;
  const per = 10;
  const watchers = Array.from({ length: procs }, () =>
    startWorker<{ received: Array<Array<[number, number]>> }>(['watch', url, 'watched', String(per)]),
  );
  await Promise.all(watchers.map((w) => w.ready));
  const appends = quick ? 20 : 60;
  const acked = new Map<number, { sent: number; acked: number }>();
  for (let i = 0; i < appends; i++) {
    const sent = Date.now();
    const r = await m.note('watched', { text: `w${i}` });
    acked.set(r.state.revision, { sent, acked: Date.now() });
    await new Promise((res) => setTimeout(res, 100));
  }
  // Time for the last deliveries on a loaded machine, then stop (a delivery later than this counts as missing).
  await new Promise((r) => setTimeout(r, 5_000));
  for (const w of watchers) w.go();
  const results = await Promise.all(watchers.map((w) => w.result));
  const delays: number[] = [];
  let missing = 0;
  for (const r of results) {
    for (const w of r.received) {
      // watch reports a batch of events by its last revision: an append is delivered by the
      // first report at or past its revision.
      const byTime = [...w].sort((x, y) => x[1] - y[1]);
      for (const [rev, a] of acked) {
        const hit = byTime.find(([got]) => got >= rev);
        if (hit === undefined) missing++;
        else delays.push(hit[1] - a.sent);
      }
    }
  }
  const writes = [...acked.values()].map((a) => a.acked - a.sent);
  await m.store.close();
  const p50 = pct(delays, 50);
  const p99 = pct(delays, 99);
  const w50 = pct(writes, 50);
  const text = `${procs * per} watchers (${procs} processes × ${per}), ${appends} appends 100 ms apart: delivery latency from the start of the append to the watcher holding the new event, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, against the writer's own append (p50 ${w50.toFixed(1)} ms); ${missing === 0 ? 'every watcher got every append' : `**${missing} deliveries missing**`}.`;
  return {
    text,
    rows: [
      {
        name: `\`watch\` fan-out to ${procs * per} watchers, delivery latency p50`,
        baton: `${p50.toFixed(1)} ms`,
        baseline: `${w50.toFixed(1)} ms the append itself`,
        ratio: p50 / w50,
        target: '≤ 10×',
        pass: p50 / w50 <= 10 && missing === 0,
      },
      {
        name: `\`watch\` fan-out to ${procs * per} watchers, delivery latency p99`,
        baton: `${p99.toFixed(1)} ms`,
        baseline: `${w50.toFixed(1)} ms the append itself`,
        ratio: p99 / w50,
        target: '≤ 50×',
        pass: p99 / w50 <= 50,
      },
    ],
  };
}

/** Everything above plus growth; the BENCHMARKS.md section and the table rows. */
export async function scaleCurves(
  quick: boolean,
  o: { growth?: boolean; claimsOnly?: boolean } = {},
): Promise<{ rows: ScaleRow[]; section: string } | null> {
  const given = process.env['BATON_SCALE_PG_URL'];
  const why = given ? null : privatePgUnavailable();
  if (why) {
    console.log(`Scale curves: skipped (${why}; or set BATON_SCALE_PG_URL=postgres://… to a database you own).`);
    return null;
  }
  const server = given ? null : await PrivatePg.start({ conf: ['max_connections = 300', 'shared_buffers = 256MB'] });
  try {
    const base = given ?? server!.url('postgres');
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const url = (schema: string): string => {
      const u = new URL(base);
      u.searchParams.set('schema', schema);
      return u.toString();
    };
    const admin = await (server
      ? server.client()
      : (async () => {
          const pg = (await import('pg')).default;
          const c = new pg.Client({ connectionString: base });
          await c.connect();
          return c;
        })());
    const version = (await admin.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v.split(',')[0];
    const sync = (await admin.query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s")).rows[0]!.s;
    const appends = o.claimsOnly ? null : await appendCurve(url('scale_appends'), admin, 'scale_appends', quick);
    const claims = await claimCurve(url('scale_claims'), quick);
    if (!appends) {
      await admin.end();
      const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      return { rows: claims.rows, section: claimsLine(claims.text, load, loadAfter) };
    }
    const watch = await watchFanout(url('scale_watch'), quick);
    const grown = o.growth === false ? null : await growth(admin, url, quick);
    await admin.end();
    const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const section = `${BEGIN}
## Many workers on one PostgreSQL

From \`node --import tsx bench/scale.ts\` (also run by \`npm run bench\`) on ${new Date().toISOString().slice(0, 16)}Z:
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ${version} (${server ? 'a private server started for the run' : 'BATON_SCALE_PG_URL'}, fsync on, synchronous_commit=${sync}), Node ${process.version}.
Load average before: ${load}; after: ${loadAfter}. The machine was shared with other work while
this ran, and every worker, claimer, watcher and the server share its ${os.cpus().length} cores: read
the ratios (baton against the raw baseline at the same concurrency), not the absolute rates.

**Appends per second** with N worker processes, each on its own session (\`PostgresStore.append\`,
one event per commit, the refresh of the registry row and the notification to watchers
included), against N processes running one-row \`INSERT\` loops (one transaction each, same
table shape and payload, same durability) on the same server, in ${quick ? 3 : 7} alternating
rounds of ${quick ? 1 : 2} s with the same processes and connections throughout (which side goes
first alternates too). Rates are the medians of the rounds; **baton ÷ raw is the median of the
rounds' ratios**, with their range. Where the time goes: docs/scale.md (*Where an append's
cost goes*).

${appends.curve}

**Claims after expiry**: ${claims.text}

**Watch fan-out**: ${watch.text}
${grown ? `\n**Growth**: ${grown.text}\n` : ''}${END}`;
    return { rows: [...appends.rows, ...claims.rows, ...watch.rows, ...(grown?.rows ?? [])], section };
  } finally {
    server?.stop();
  }
}

/** The claims paragraph of the scale section, measured alone (`--only claims`): says when and under what load. */
function claimsLine(text: string, before: string, after: string): string {
  return `**Claims after expiry**: ${text} (Measured alone by \`node --import tsx bench/scale.ts --only claims\` on ${new Date().toISOString().slice(0, 16)}Z, load average before ${before}, after ${after}; the rest of this section is from the run above.)`;
}

/** Replaces the claims paragraph of the scale section in a BENCHMARKS.md text (`--only claims`). */
function writeClaimsLine(doc: string, line: string): string {
  const re = /\n\*\*Claims after expiry\*\*: [^\n]*\n/;
  if (!re.test(doc)) throw new Error('BENCHMARKS.md has no claims paragraph to replace: run bench/scale.ts in full');
  return doc.replace(re, `\n${line}\n`);
}

/** The scale section of a BENCHMARKS.md text, or null. */
export function existingScaleSection(doc: string): string | null {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  return a !== -1 && b > a ? doc.slice(a, b + END.length) : null;
}

/** Replaces (or adds) the scale section of BENCHMARKS.md. */
export function writeScaleSection(doc: string, section: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a !== -1 && b > a) return `${doc.slice(0, a)}${section}${doc.slice(b + END.length)}`;
  return `${doc.trimEnd()}\n\n${section}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const quick = process.argv.includes('--quick');
  const noGrowth = process.argv.includes('--no-growth');
  const at = process.argv.indexOf('--only');
  const claimsOnly = at >= 0 && process.argv[at + 1] === 'claims';
  if (at >= 0 && !claimsOnly) throw new Error('--only takes one section: claims');
  const r = await scaleCurves(quick, { growth: !noGrowth, claimsOnly });
  if (r && claimsOnly) {
    console.log(r.section);
    for (const row of r.rows) console.log(`${row.name}: ${row.baton} (${row.pass ? 'pass' : 'FAIL'})`);
    const file = path.join(root, 'BENCHMARKS.md');
    if (!quick) fs.writeFileSync(file, writeClaimsLine(fs.readFileSync(file, 'utf8'), r.section));
  } else if (r) {
    console.log(r.section);
    if (!quick) {
      const file = path.join(root, 'BENCHMARKS.md');
      const doc = fs.readFileSync(file, 'utf8');
      // --no-growth keeps the growth figures of the run that measured them (said so).
      const kept = noGrowth ? /\n\*\*Growth\*\*: [^\n]*\n/.exec(doc)?.[0] : undefined;
      const NOTE = ' (From an earlier full run of bench/scale.ts; this run was given --no-growth.)';
      // The kept line may carry the note already (from an earlier --no-growth run): once only.
      const section = kept
        ? r.section.replace(END, `${kept.trimEnd().split(NOTE).join('')}${NOTE}\n${END}`)
        : r.section;
      fs.writeFileSync(file, writeScaleSection(doc, section));
      console.log('\nWrote the scale section of BENCHMARKS.md');
    }
  }
}
