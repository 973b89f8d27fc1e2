// `baton otel export` of a long session (phases, retries, token records: thousands of spans)
// to an OTLP/HTTP receiver in this process, against `baton log --json` of the same session
// (which reads and prints the same journal), spawned alternately in the same run. Run by
// bench/run.ts; on its own: node --import tsx bench/otel.ts [--quick]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { FileStore } from '../src/store/file/store.js';
import type { PgRow as Row } from './postgres.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const baton = path.join(root, 'dist/baton.cjs');
const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };

/** How the row is measured, for BENCHMARKS.md. */
export const OTEL_EXPLANATION = `- **Telemetry export**: \`baton otel export\` (http/protobuf) of one session of 500 phases,
  each started, given 8 token records and completed (about 4,500 spans, sent in batches of
  256), to an OTLP/HTTP receiver that reads each request and answers 200, alternately with
  \`baton log --json\` of the same session (the same journal read and printed).`;

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Spawns baton without blocking this process's event loop (the receiver runs in it). */
function timed(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [baton, ...args], {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
        : reject(new Error(`baton ${args.join(' ')}: exit ${code}: ${err}`)),
    );
  });
}

async function longSession(dir: string, phases: number): Promise<string> {
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const m = new SessionManager({ store, agent: 'bench' });
  const s = await m.start({
    title: 'otel bench',
    id: 'otel-bench',
    phases: Array.from({ length: phases }, (_, i) => ({ id: `p${i}`, name: `Phase ${i}` })),
  });
  let rev = s.revision;
  const at = (): string => new Date().toISOString();
  for (let i = 0; i < phases; i++) {
    const events: NewEvent[] = [
      newEvent('phase.started', { phaseId: `p${i}`, agent: 'bench', forced: false }, at(), actor),
    ];
    for (let k = 0; k < 8; k++)
      events.push(
        newEvent(
          'tokens.recorded',
          { agent: 'bench', phaseId: `p${i}`, input: 100, output: 20, cached: 50, model: 'claude-sonnet-4' },
          at(),
          actor,
        ),
      );
    events.push(newEvent('phase.completed', { phaseId: `p${i}`, agent: 'bench' }, at(), actor));
    rev = (await store.append(s.id, rev, events)).revision;
  }
  rev = (await store.append(s.id, rev, [newEvent('session.completed', { detail: null }, at(), actor)])).revision;
  await store.writeSnapshot(s.id, { revision: rev, state: await m.get(s.id) });
  await store.close();
  return s.id;
}

/** The export row. */
export async function otelExportLatency(quick: boolean, work: string): Promise<Row> {
  const dir = path.join(work, 'otel');
  fs.mkdirSync(dir, { recursive: true });
  const id = await longSession(path.join(dir, '.baton'), 500);
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const runs = quick ? 5 : 15;
  const ta: number[] = [];
  const tb: number[] = [];
  try {
    for (let i = 0; i < runs + 2; i++) {
      const a = await timed(['otel', 'export', '--session', id, '--endpoint', endpoint], dir);
      const b = await timed(['log', '--json', '--session', id], dir);
      if (i >= 2) {
        ta.push(a);
        tb.push(b);
      }
    }
  } finally {
    server.close();
  }
  const a = p50(ta);
  const b = p50(tb);
  return {
    name: `\`baton otel export\` of a session of ${(500 * 10 + 2).toLocaleString('en-US')} events (≈4,500 spans, p50 wall time)`,
    baton: `${a.toFixed(1)} ms (${Math.round(bytes / (runs + 2) / 1024)} KiB sent)`,
    baseline: `${b.toFixed(1)} ms \`baton log --json\``,
    ratio: a / b,
    target: '≤ 4×',
    pass: a / b <= 4,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-otel-'));
  try {
    const r = await otelExportLatency(process.argv.includes('--quick'), work);
    console.log(
      `| ${r.name} | ${r.baton} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.pass ? 'pass' : '**FAIL**'} |`,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
