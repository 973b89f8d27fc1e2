// One worker process of bench/scale.ts (not run on its own). Modes:
//   append URL SESSION — PostgresStore.append, one event per commit (rounds, see below)
//   raw    URL TABLE   — one-row INSERT per transaction into a table of the same shape (rounds)
//   claim  URL -       — claims one session (its warm-up), then, from the start, sessions
//                        until none is left; prints each claim's latency
//   watch  URL SESSION N — N watchers of one session; prints each delivery's receive time
// Each mode says "ready" once set up. claim and watch start on a line on stdin and print one
// JSON line when done. append and raw run in rounds (bench/scale-appends.ts): each line
// "MS" on stdin runs one round of MS milliseconds and prints {"n": appends}; "quit" (or the
// end of stdin) closes the connection and exits, so the same processes and connections
// serve every round.
import { createRequire } from 'node:module';
import os from 'node:os';
import readline from 'node:readline';
import { newEvent } from '../src/domain/events.js';
import { SessionManager } from '../src/manager/manager.js';
import { PostgresStore } from '../src/store/postgres/store.js';

const require = createRequire(import.meta.url);
const [mode, url, target, startAt] = process.argv.slice(2) as [string, string, string, string];
const actor = { agent: 'bench', pid: process.pid, host: os.hostname() };
const event = (i: number) =>
  newEvent(
    'tokens.recorded',
    { agent: `agent-${i % 4}`, phaseId: null, input: 10, output: 5, cached: 1 },
    new Date().toISOString(),
    actor,
  );
/** Says "ready" and waits for the parent's "go" (all workers start together, whatever their start-up took). */
const untilStart = (): Promise<void> => {
  console.log('ready');
  return new Promise((r) => process.stdin.once('data', () => r()));
};

/** Says "ready", then runs `round(ms)` for each line on stdin until "quit" or its end; prints each round's count. */
async function rounds(round: (ms: number) => Promise<number>): Promise<void> {
  console.log('ready');
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === 'quit') break;
    console.log(JSON.stringify({ n: await round(Number(line)) }));
  }
  lines.close();
}

async function append(): Promise<void> {
  const store = new PostgresStore({ url });
  let rev = (await store.load(target)).revision;
  let i = 0;
  await rounds(async (ms) => {
    const end = Date.now() + ms;
    let n = 0;
    while (Date.now() < end) {
      rev = (await store.append(target, rev, [event(i++)])).revision;
      n++;
    }
    // The refreshes of this round's acknowledged appends are baton's work: inside its round.
    await store.settle();
    return n;
  });
  await store.close();
}

async function raw(): Promise<void> {
  const pg = require('pg') as typeof import('pg');
  const u = new URL(url);
  const schema = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  const body = JSON.stringify(event(1));
  const session = `raw-${process.pid}`;
  let seq = 0;
  await rounds(async (ms) => {
    const end = Date.now() + ms;
    let n = 0;
    while (Date.now() < end) {
      await c.query({
        name: 'raw',
        text: `INSERT INTO "${schema}".${target} (session_id, seq, type, body) VALUES ($1, $2, $3, $4)`,
        values: [session, ++seq, 'tokens.recorded', body],
      });
      n++;
    }
    return n;
  });
  await c.end();
}

async function claim(): Promise<void> {
  // A long-lived worker of a pool (issue 30): set up and warmed before the start. Its first
  // claim loads the modules of the claim path (the resume plan's among them) and compiles
  // them, opens its pool's connections and prepares their statements, once per process; so
  // it claims one session first (the parent left one lapsed per worker, the measured ones
  // still leased), as a pool's worker has long done before the claims measured here.
  const m = new SessionManager({ store: new PostgresStore({ url }) });
  if (!(await m.claims.claim({ owner: `warm:${process.pid}`, ttlMs: 600_000 })))
    throw new Error('no session to warm up on');
  await untilStart();
  const started = Date.now();
  const latencies: number[] = [];
  const ids: string[] = [];
  // When its last claim returned: the claims per second are counted up to the last claim of
  // any worker, not to the end of the look that finds nothing left (it is not a claim).
  let done = started;
  for (;;) {
    const t0 = performance.now();
    const c = await m.claims.claim({ owner: `claim:${process.pid}`, ttlMs: 600_000 });
    if (!c) break;
    latencies.push(performance.now() - t0);
    done = Date.now();
    ids.push(c.sessionId);
  }
  await m.store.close();
  console.log(JSON.stringify({ latencies, ids, started, done }));
}

async function watch(): Promise<void> {
  const n = Number(startAt);
  const received: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  const stops: Array<() => Promise<void>> = [];
  for (let i = 0; i < n; i++) {
    const m = new SessionManager({ store: new PostgresStore({ url }) });
    stops.push(await m.watch({ sessionId: target, onChange: (c) => received[i]!.push([c.revision, Date.now()]) }));
  }
  await untilStart();
  for (const s of stops) await s();
  console.log(JSON.stringify({ received }));
  process.exit(0);
}

const modes: Record<string, () => Promise<void>> = { append, raw, claim, watch };
await modes[mode]!();
