// The dashboard's API (`baton ui`) against reading the same data through the manager directly,
// in the same process and run: the sessions page over 10,000 sessions against
// `manager.list()` (the registry read `baton list` does), and a session's page and a filtered
// page of its event log over 100,000 events against `manager.get()` (its state, snapshot plus
// tail). Each API figure is a keep-alive HTTP GET through the token check to a JSON answer.
// Run by bench/run.ts; on its own: node --import tsx bench/ui.ts [--quick]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newEvent } from '../src/domain/events.js';
import type { NewEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { FileStore } from '../src/store/file/store.js';
import { startUiServer } from '../src/ui/index.js';
import type { PgRow as Row } from './postgres.js';

/** How the dashboard rows are measured, for BENCHMARKS.md. */
export const UI_EXPLANATION = `- **Dashboard API**: \`baton ui\`'s server (in process, keep-alive HTTP GETs with the token)
  over a file store: \`/api/sessions?limit=50\` (sorted, interrupted and active first, 50 rows
  with their agents and tokens) over 10,000 sessions against \`manager.list()\` of the same
  store; \`/api/sessions/{id}\` (status, attempts, token series sampled to 400 points, facets)
  and \`/api/sessions/{id}/events?type=tokens.recorded&agent=agent-1\` (a page of 100) of a
  session of 100,000 events against \`manager.get(id)\` (the filtered page reads the journal once
  and keeps it; the session page reads the snapshot and its tail, and its first request, made
  after the dashboard served its list page as a user reaches a session, is reported apart,
  against reading the journal and against a fresh manager's first \`manager.get(id)\`).
  The store is built by another manager, closed once its derived files are written; the
  dashboard's manager is opened on it afterwards, as \`baton ui\` opens it in a process of its own.`;

const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function timeIt(runs: number, f: () => Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < 3; i++) await f();
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await f();
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return p50(t);
}

/** Alternates `a` and `b` so machine noise hits both alike; returns both p50s in ms. */
async function compare(
  runs: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number; b: number }> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  for (let i = 0; i < runs; i++) {
    let t0 = process.hrtime.bigint();
    await a();
    ta.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    await b();
    tb.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { a: p50(ta), b: p50(tb) };
}

function created(title: string): NewEvent {
  return newEvent(
    'session.created',
    {
      title,
      idFormat: 'custom',
      phases: [
        { id: 'build', name: 'Build' },
        { id: 'test', name: 'Test' },
      ],
      budgetMax: 100_000,
    },
    new Date().toISOString(),
    actor,
  );
}

/** A store of `n` sessions (a seventh interrupted, a third of the rest paused) and one of `events` events. */
async function fixture(dir: string, n: number, events: number): Promise<{ manager: SessionManager; big: string }> {
  FileStore.init(dir);
  const store = new FileStore({ root: dir });
  const manager = new SessionManager({ store, agent: 'bench' });
  const now = (): string => new Date().toISOString();
  for (let i = 0; i < n; i++) {
    const journal: NewEvent[] = [
      created(`session ${i}`),
      newEvent('phase.started', { phaseId: 'build', agent: `agent-${i % 5}`, forced: false }, now(), actor),
    ];
    if (i % 7 === 0) journal.push(newEvent('session.interrupted', { cause: 'exit-1', detail: null }, now(), actor));
    else if (i % 3 === 0) journal.push(newEvent('session.paused', { cause: 'user', detail: null }, now(), actor));
    await manager.createFrom(`s-${i}`, journal);
  }
  const big = 'big';
  await manager.createFrom(big, [
    created('one long session'),
    newEvent('phase.started', { phaseId: 'build', agent: 'agent-0', forced: false }, now(), actor),
  ]);
  let rev = 2;
  while (rev < events) {
    const k = Math.min(1000, events - rev);
    const batch = Array.from({ length: k }, (_, j) => {
      const i = rev + j;
      if (i % 5000 === 0) return newEvent('substep.reached', { phaseId: 'build', name: `step ${i}` }, now(), actor);
      return newEvent(
        'tokens.recorded',
        { agent: `agent-${i % 4}`, phaseId: 'build', input: 10, output: 5, cached: 1, model: 'claude-sonnet-4-5' },
        now(),
        actor,
      );
    });
    rev = (await store.append(big, rev, batch)).revision;
    if (events - rev < 1000 && events - rev >= 50)
      await store.writeSnapshot(big, { revision: rev, state: await manager.get(big) });
  }
  // The dashboard is measured as `baton ui` runs it: a process of its own, opened on a store
  // whose writers are done. The builder's derived files (a handoff per session, written after
  // its changes) would otherwise be written during the first measurement.
  await manager.close();
  return { manager: new SessionManager({ store: new FileStore({ root: dir }), agent: 'bench' }), big };
}

/** Measures the dashboard rows in a fresh folder under `work`. */
export async function uiLatency(quick: boolean, work: string): Promise<Row[]> {
  const n = quick ? 2000 : 10_000;
  const events = quick ? 20_000 : 100_000;
  const runs = quick ? 15 : 40;
  const dir = path.join(work, 'ui', '.baton');
  const { manager, big } = await fixture(dir, n, events);
  const server = await startUiServer({ manager });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // A kept-alive socket the server closed while idle (its keep-alive timeout) is reset on reuse: ask again once.
  const get = (p: string): Promise<number> =>
    getOnce(p).catch((e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? getOnce(p) : Promise.reject(e)));
  const getOnce = (p: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: server.port, path: p, agent, headers: { Authorization: `Bearer ${server.token}` } },
        (res) => {
          let size = 0;
          res.on('data', (b: Buffer) => (size += b.length));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(size) : reject(new Error(`GET ${p}: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
    });
  try {
    await manager.list(); // the registry cache, as a running store has it
    // What the first view must match (issue 30): a fresh manager's first `get()` (store opened,
    // snapshot and tail read), as `baton status` pays it; measured before the first view, so
    // the code that reads a snapshot is compiled for both alike.
    const coldGet = await timeIt(3, async () => {
      const fresh = new SessionManager({ store: new FileStore({ root: dir }), agent: 'bench' });
      await fresh.get(big);
      await fresh.store.close();
    });
    // A user reaches a session page from the list: the dashboard has served it (its HTTP
    // stack is running), not yet this session, whose page code runs for the first time.
    await get('/api/sessions?limit=50');
    const t0 = process.hrtime.bigint();
    await get(`/api/sessions/${big}`);
    const cold = Number(process.hrtime.bigint() - t0) / 1e6;
    const coldBase = await timeIt(3, () => manager.log(big));
    const list = await compare(
      runs,
      () => get('/api/sessions?limit=50'),
      () => manager.list(),
    );
    const one = await compare(
      runs,
      () => get(`/api/sessions/${big}`),
      () => manager.get(big),
    );
    const page = await compare(
      runs,
      () => get(`/api/sessions/${big}/events?type=tokens.recorded&agent=agent-1&offset=100&limit=100`),
      () => manager.get(big),
    );
    const fmt = (x: number): string => `${x.toFixed(1)} ms`;
    const k = (x: number): string => x.toLocaleString('en-US');
    return [
      {
        name: `Dashboard \`/api/sessions\` over ${k(n)} sessions, page of 50 (p50)`,
        baton: fmt(list.a),
        baseline: `${fmt(list.b)} \`manager.list()\``,
        ratio: list.a / list.b,
        target: '≤ 2×',
        pass: list.a / list.b <= 2,
      },
      {
        name: `Dashboard \`/api/sessions/{id}\`, session of ${k(events)} events (p50)`,
        baton: fmt(one.a),
        baseline: `${fmt(one.b)} \`manager.get()\``,
        ratio: one.a / one.b,
        target: '≤ 3×',
        pass: one.a / one.b <= 3,
      },
      {
        name: `Dashboard event log page (type + agent filter), ${k(events)} events (p50)`,
        baton: fmt(page.a),
        baseline: `${fmt(page.b)} \`manager.get()\``,
        ratio: page.a / page.b,
        target: '≤ 3×',
        pass: page.a / page.b <= 3,
      },
      {
        name: `Dashboard first \`/api/sessions/{id}\` of ${k(events)} events vs reading the journal (one run)`,
        baton: fmt(cold),
        baseline: `${fmt(coldBase)} \`manager.log()\` (p50 of 3)`,
        ratio: cold / coldBase,
        target: '≤ 3×',
        pass: cold / coldBase <= 3,
      },
      {
        name: `Dashboard first \`/api/sessions/{id}\` of ${k(events)} events vs a fresh manager's first \`get()\` (one run)`,
        baton: fmt(cold),
        baseline: `${fmt(coldGet)} fresh \`manager.get()\` (p50 of 3)`,
        ratio: cold / coldGet,
        target: '≤ 3×',
        pass: cold / coldGet <= 3,
      },
    ];
  } finally {
    agent.destroy();
    await server.close();
    await manager.store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-ui-'));
  try {
    for (const r of await uiLatency(process.argv.includes('--quick'), work))
      console.log(
        `${r.name}: ${r.baton} vs ${r.baseline} = ${r.ratio.toFixed(2)}× (${r.target}) ${r.pass ? 'pass' : 'FAIL'}`,
      );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
