/**
 * `baton claim` with real processes, in real time: a pool of 4 `claim --wait` workers waits
 * while runs hold the sessions, the runs are killed with SIGKILL, and each session is taken
 * over by exactly one worker each round, with a new fencing token, over several rounds. Also: the worker
 * goes on under the claimed lease with `baton run`; `--wait` picks up a lease as it expires;
 * an idle pool gives exit 3 and `{"claimed": null}`. On the file store always, and on
 * PostgreSQL when BATON_TEST_PG_URL is set (see claim-pg below).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, freshSchema, needsRealServer, urlWith } from '../store/pg-helpers.js';
import { BATON, EXIT_CODES, baseEnv, expectError, expectRunError, runBaton, workspace } from './helpers.js';
import type { Result, Workspace } from './helpers.js';

interface ClaimJson {
  claimed: null | {
    sessionId: string;
    title: string;
    token: number;
    lease: { owner: string; token: number; expiresAt: string; pid: number };
    revision: number;
    cause: { cause: string } | null;
    plan: { sessionId: string; status: string; next: { steps: Array<{ phaseId: string; action: string }> } };
  };
}

interface EventJson {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** A store the CLI is pointed at: the workspace's own `.baton`, or extra environment (a server URL). */
export interface StoreTarget {
  env: Record<string, string>;
}

/** Runs baton in `ws` against `target`. */
function bat(ws: Workspace, target: StoreTarget, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return runBaton(args, ws.dir, baseEnv({ ...target.env, ...env }));
}

async function okJson<T>(
  ws: Workspace,
  target: StoreTarget,
  args: string[],
  env: Record<string, string> = {},
): Promise<T> {
  const r = await bat(ws, target, [...args, '--json'], env);
  if (r.code !== 0) throw new Error(`baton ${args.join(' ')} → ${r.code}\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Creates `n` sessions, each interrupted by a run whose command exited 3 (phase `work` in flight). */
async function interruptedSessions(ws: Workspace, target: StoreTarget, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `job-${i + 1}`);
  for (const id of ids) {
    const s = await bat(ws, target, ['start', `Job ${id}`, '--id', id, '--phases', 'work,check', '--switch']);
    expect(s.code, s.stderr).toBe(0);
    expect((await bat(ws, target, ['phase', 'start', 'work', '--session', id])).code).toBe(0);
    const r = await bat(ws, target, ['run', '--session', id, '--', process.execPath, '-e', 'process.exit(3)']);
    expect(r.code, r.stderr).toBe(3);
  }
  return ids;
}

/** A baton process in the background, in a process group of its own (SIGKILL takes it and, by its pid on stderr, its command's group down together). */
interface Bg {
  child: ChildProcess;
  /** Resolves when stderr shows `marker`; rejects at once, with its output, if the process ends first. */
  started: Promise<void>;
  /** Resolves when `marker` shows on stderr or the process ended, whichever comes first. */
  settled: Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** SIGKILL to the whole group (a no-op when it is gone already). */
  kill: () => void;
}

function background(ws: Workspace, args: string[], env: NodeJS.ProcessEnv, marker: string): Bg {
  const child = spawn(process.execPath, [BATON, ...args], {
    cwd: ws.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err })),
  );
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      if (err.includes(marker)) resolve();
    });
    void done.then((r) =>
      reject(
        new Error(
          `baton ${args.join(' ')} ended (exit ${r.code}, ${r.signal}) before "${marker}":\n${r.stdout}\n${r.stderr}`,
        ),
      ),
    );
  });
  const settled = Promise.race([started.catch(() => undefined), done.then(() => undefined)]);
  // baton run starts its command in a group of its own ("pid N" on stderr): both groups go, as in a crash of the lot.
  const kill = (): void => {
    const command = /baton: running .*, pid (\d+)\)/.exec(err)?.[1];
    for (const g of [child.pid!, ...(command ? [Number(command)] : [])]) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      }
    }
  };
  return { child, started, settled, done, kill };
}

/** Lease lifetime of the runs killed in the race: short, so that the test runs in real time. */
const RACE_TTL = '2s';

/**
 * `baton run` working under the lease a worker claimed (`token`), renewing it every 250 ms
 * with a short lifetime.
 */
function holder(ws: Workspace, target: StoreTarget, id: string, token: number): Bg {
  const env = baseEnv({ ...target.env, BATON_SESSION: id, BATON_LEASE_TOKEN: String(token) });
  return background(
    ws,
    ['run', '--ttl', RACE_TTL, '--heartbeat', '250ms', '--', process.execPath, '-e', 'setTimeout(() => {}, 600000)'],
    env,
    'baton: running',
  );
}

/** `baton claim --wait --json` as worker `name`: claims at most one session, then exits. */
function waiter(ws: Workspace, target: StoreTarget, name: string): Bg {
  return background(
    ws,
    ['claim', '--wait', '--json', '--agent', name, '--ttl', '60s', '--poll', '500ms'],
    baseEnv(target.env),
    'baton: waiting for a session',
  );
}

/**
 * The claim race, in real time: `sessions` sessions held by live `baton run`s with a 2 s
 * lease; 4 `baton claim --wait` workers are started and waiting BEFORE the runs are killed
 * with SIGKILL (run and command together); each session must be taken over by exactly one
 * worker, with the next fencing token, and the other workers must claim nothing (they exit
 * 3 with `{"claimed": null}` when stopped with SIGTERM). The winners' leases are then worked
 * under by new runs, which are killed in the next round, `rounds` times.
 */
export async function claimRace(ws: Workspace, target: StoreTarget, sessions = 2, rounds = 3): Promise<void> {
  // Sessions interrupted by a run that exited 3, each claimed once (no race yet): the runs
  // of round 0 then work under those leases, like the runs of every later round.
  const ids = await interruptedSessions(ws, target, sessions);
  /** The token each session's current lease has: the one its next run works under. */
  const held = new Map<string, number>();
  const claimedTokens = new Map<string, number[]>(ids.map((id) => [id, []]));
  for (const _id of ids) {
    const c = (await okJson<ClaimJson>(ws, target, ['claim', '--agent', 'setup', '--ttl', '60s'])).claimed!;
    expect(c.token).toBe(2);
    held.set(c.sessionId, c.token);
    claimedTokens.get(c.sessionId)!.push(c.token);
  }
  expect([...held.keys()].sort()).toEqual([...ids].sort());
  for (let round = 0; round < rounds; round++) {
    const holders = ids.map((id) => holder(ws, target, id, held.get(id)!));
    const workers = ['w1', 'w2', 'w3', 'w4'].map((w) => waiter(ws, target, `${w}r${round}`));
    try {
      await Promise.all(holders.map((h) => h.started));
      // Every worker is waiting (or, on a machine so loaded that a heartbeat came late, has
      // already claimed) before anything is killed.
      await Promise.all(workers.map((w) => w.settled));
      for (const h of holders) h.kill();
      await Promise.all(holders.map((h) => h.done));
      // As many workers as sessions end with a claim; then the rest are stopped.
      let ended = 0;
      const remaining = new Set(workers);
      while (ended < sessions && remaining.size) {
        const w = await Promise.race([...remaining].map((x) => x.done.then(() => x)));
        remaining.delete(w);
        ended++;
      }
      for (const w of remaining) w.child.kill('SIGTERM');
      const results = await Promise.all(workers.map((w) => w.done));
      const winners = results.filter((r) => r.code === 0);
      const losers = results.filter((r) => r.code !== 0);
      const all = JSON.stringify(results, null, 1);
      // Exactly one worker took each session over, with the next token, from an expired lease.
      const claims = winners.map((r) => (JSON.parse(r.stdout) as ClaimJson).claimed!);
      expect(claims.map((c) => c.sessionId).sort(), all).toEqual([...ids].sort());
      for (const c of claims) {
        const prev = held.get(c.sessionId)!;
        expect(c.token, all).toBe(prev + 1);
        // The lease lapsed, or (on this host) the run was found dead first and written down so.
        expect(['lease-expired', 'run-died'], all).toContain(c.cause?.cause);
        held.set(c.sessionId, c.token);
        claimedTokens.get(c.sessionId)!.push(c.token);
      }
      // The other workers claimed nothing and said so: exit 3, `{"claimed": null}`.
      expect(losers, all).toHaveLength(4 - sessions);
      for (const r of losers) {
        expect(r.code, all).toBe(EXIT_CODES.NOT_FOUND);
        expect(JSON.parse(r.stdout), all).toEqual({ claimed: null });
      }
    } finally {
      for (const h of holders) h.kill();
      for (const w of workers) w.kill();
    }
  }
  for (const id of ids) {
    const log = await okJson<EventJson[]>(ws, target, ['log', '--session', id]);
    const acquired = log.filter((e) => e.type === 'lease.acquired');
    // One takeover per session per round, each with the next token; the runs adopted those
    // leases instead of taking new ones.
    expect(acquired.filter((e) => String(e.data['owner']).startsWith('claim:')).map((e) => e.data['token'])).toEqual(
      claimedTokens.get(id),
    );
    expect(claimedTokens.get(id)).toEqual(Array.from({ length: rounds + 1 }, (_, i) => i + 2));
    expect(acquired.length).toBe(2 + rounds);
    expect(log.filter((e) => e.type === 'run.started').map((e) => e.data['token'])).toEqual(
      Array.from({ length: rounds + 1 }, (_, i) => i + 1),
    );
    // Each round's takeover found the killed run's lease expired and wrote that down.
    expect(log.filter((e) => e.type === 'lease.expired')).toHaveLength(rounds);
  }
}

const FILE: StoreTarget = { env: {} };

describe('baton claim on the file store', () => {
  it('4 workers claiming at once while the lease holders are SIGKILLed: each session is taken over by exactly one worker, every round', async () => {
    const ws = workspace();
    await claimRace(ws, FILE, 2, 3);
  }, 180_000);

  it('hands over the session, the token and the resume plan; `baton run` then works under that lease', async () => {
    const ws = workspace();
    const [id] = await interruptedSessions(ws, FILE, 1);
    await ws.ok(['substep', 'work', 'compile', '--session', id!]);
    const c = (await ws.json<ClaimJson>(['claim', '--agent', 'w'])).claimed!;
    expect(c.sessionId).toBe(id);
    expect(c.token).toBe(2);
    expect(c.cause?.cause).toBe('exit-3');
    expect(c.plan.next.steps[0]).toMatchObject({ phaseId: 'work', action: 'resume' });
    const status = await ws.status(id);
    expect(status.status).toBe('active');
    // Claimed: another worker finds nothing.
    const none = await ws.run(['claim', '--json']);
    expect(none.code).toBe(EXIT_CODES.NOT_FOUND);
    expect(JSON.parse(none.stdout)).toEqual({ claimed: null });
    // A person's `run` without the token is refused while the claim's lease is valid.
    expectRunError(await ws.run(['run', '--session', id!, '--', 'true']), 'LOCKED');
    const r = await ws.run(['run', '--', process.execPath, '-e', 'console.log(process.env.BATON_LEASE_TOKEN)'], {
      env: { BATON_SESSION: id!, BATON_LEASE_TOKEN: '2' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('2');
    const types = (await ws.log(id)).map((e) => e.type);
    // The run adopts the lease (renewed with its start), then records its command's process group.
    expect(types.slice(-9)).toEqual([
      'session.resumed',
      'lease.acquired',
      'lease.renewed',
      'run.started',
      'lease.renewed',
      'run.renewed',
      'run.ended',
      'session.paused',
      'lease.released',
    ]);
    // The human form names the token and how to work under it.
    const ws2 = workspace();
    await interruptedSessions(ws2, FILE, 1);
    const human = await ws2.ok(['claim']);
    expect(human.stdout).toContain('Claimed job-1 ("Job job-1"): lease token 2');
    expect(human.stdout).toContain('BATON_SESSION=job-1 BATON_LEASE_TOKEN=2 baton run');
  }, 60_000);

  it('nothing to claim: exit 3, `{"claimed": null}` with --json, a message on stderr without; paused and completed sessions are left alone', async () => {
    const ws = workspace();
    await ws.ok(['start', 'paused one', '--id', 'p1']);
    await ws.ok(['pause']);
    await ws.ok(['start', 'done one', '--id', 'd1', '--switch']);
    await ws.ok(['complete']);
    const j = await ws.run(['claim', '--json']);
    expect(j.code).toBe(3);
    expect(j.stderr).toBe('');
    expect(JSON.parse(j.stdout)).toEqual({ claimed: null });
    const h = await ws.run(['claim']);
    expect(h.code).toBe(3);
    expect(h.stdout).toBe('');
    expect(h.stderr).toContain('no session needs a worker');
    const w = await ws.run(['claim', '--wait', '--timeout', '300ms', '--json']);
    expect(w.code).toBe(3);
    expect(JSON.parse(w.stdout)).toEqual({ claimed: null });
    expectError(await ws.run(['claim', '--timeout', '1s']), 'BAD_INPUT');
    expectError(await ws.run(['claim', '--session', 'p1']), 'BAD_INPUT');
    expectError(await ws.run(['claim', '--wait', '--poll', 'soon']), 'BAD_INPUT');
  }, 60_000);

  it('--wait takes over a run killed with SIGKILL as soon as its lease expires (real time)', async () => {
    const ws = workspace();
    await ws.ok(['start', 'long job', '--id', 'long', '--phases', 'work']);
    const run = background(
      ws,
      ['run', '--heartbeat', '200ms', '--ttl', '1500ms', '--', process.execPath, '-e', 'setTimeout(() => {}, 100000)'],
      baseEnv(),
      'baton: running',
    );
    const waiting = background(
      ws,
      ['claim', '--wait', '--timeout', '120s', '--poll', '5s', '--json', '--agent', 'pool'],
      baseEnv(),
      'baton: waiting for a session',
    );
    let r: { code: number | null; stdout: string; stderr: string };
    try {
      // Fails at once, with the run's output, if the run ends before it is running.
      await run.started;
      // The worker waits while the run is alive; then the run dies.
      await waiting.started;
      run.kill();
      r = await waiting.done;
    } finally {
      run.kill();
      waiting.kill();
    }
    expect(r.code, r.stderr).toBe(0);
    const c = (JSON.parse(r.stdout) as ClaimJson).claimed!;
    expect(c.sessionId).toBe('long');
    expect(c.token).toBe(2);
    // Woken by the lease's expiry, or earlier by the feed, when the dead holder is seen from this machine.
    expect(['lease-expired', 'holder-gone']).toContain(c.cause?.cause);
    const types = (await ws.log('long')).map((e) => e.type);
    // The dead run's end is written down with the takeover.
    expect(types.slice(-5)).toEqual([
      'lease.expired',
      'session.interrupted',
      'run.ended',
      'session.resumed',
      'lease.acquired',
    ]);
  }, 60_000);

  it('a run nested inside a run does not take over its parent lease (LOCKED, as before)', async () => {
    const ws = workspace();
    await ws.ok(['start', 'nest', '--id', 'n1']);
    const r = await ws.run(['run', '--', process.execPath, BATON, 'run', '--', 'true']);
    // The inner run's own failure (125), passed through by the outer run as its child's status.
    expect(r.code).toBe(125);
    expect(r.stderr).toContain('error[LOCKED]');
  }, 30_000);
});

describe.skipIf(!PG_URL)('baton claim on the PostgreSQL store', () => {
  needsRealServer({
    '4 workers claiming at once while the lease holders are SIGKILLed: each session is taken over by exactly one worker, every round':
      "`baton start` switches sessions under the workspace lock: a transaction held on one connection while the store writes through another, which the embedded server's one session cannot run at once",
  });
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  it('4 workers claiming at once while the lease holders are SIGKILLed: each session is taken over by exactly one worker, every round', async () => {
    const schema = freshSchema('claim');
    schemas.push(schema);
    await claimRace(workspace(), { env: { BATON_STORE: urlWith({ schema }) } }, 2, 3);
  }, 240_000);
});
