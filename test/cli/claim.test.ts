/**
 * `baton claim` with real processes: a pool of 4 workers claiming at once while the runs
 * that held the sessions were killed with SIGKILL, over several rounds; each session is
 * taken over by exactly one worker each round, with a new fencing token. Also: the worker
 * goes on under the claimed lease with `baton run`; `--wait` picks up a lease as it expires;
 * an idle pool gives exit 3 and `{"claimed": null}`. On the file store always, and on
 * PostgreSQL when BATON_TEST_PG_URL is set (see claim-pg below).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { BATON, EXIT_CODES, baseEnv, expectError, runBaton, workspace } from './helpers.js';
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

const later = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** A store the CLI is pointed at: the workspace's own `.baton`, or extra environment (a server URL). */
export interface StoreTarget {
  env: Record<string, string>;
}

/** Runs baton in `ws` against `target`. */
function bat(ws: Workspace, target: StoreTarget, args: string[], env: Record<string, string> = {}): Promise<Result> {
  return runBaton(args, ws.dir, baseEnv({ ...target.env, ...env }));
}

async function okJson<T>(ws: Workspace, target: StoreTarget, args: string[], env: Record<string, string> = {}): Promise<T> {
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

/** One worker: `baton claim --json` until nothing is left (exit 3); the claims it got. */
async function worker(ws: Workspace, target: StoreTarget, name: string, env: Record<string, string>): Promise<Array<{ sessionId: string; token: number; worker: string }>> {
  const got: Array<{ sessionId: string; token: number; worker: string }> = [];
  for (;;) {
    const r = await bat(ws, target, ['claim', '--json', '--agent', name, '--ttl', '60s'], env);
    if (r.code === EXIT_CODES.NOT_FOUND) {
      expect(JSON.parse(r.stdout)).toEqual({ claimed: null });
      return got;
    }
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const c = (JSON.parse(r.stdout) as ClaimJson).claimed!;
    expect(c.lease.owner).toBe(`claim:${name}`);
    got.push({ sessionId: c.sessionId, token: c.token, worker: name });
  }
}

/**
 * `baton run` under a claimed lease (BATON_LEASE_TOKEN), in its own process group so that
 * SIGKILL takes the run and its command down together, like a machine that died.
 */
function holder(ws: Workspace, target: StoreTarget, sessionId: string, token: number): { child: ChildProcess; started: Promise<void>; done: Promise<void> } {
  const child = spawn(process.execPath, [BATON, 'run', '--', process.execPath, '-e', 'setTimeout(() => {}, 100000)'], {
    cwd: ws.dir,
    env: baseEnv({ ...target.env, BATON_SESSION: sessionId, BATON_LEASE_TOKEN: String(token), BATON_HEARTBEAT: '1s', BATON_LEASE_TTL: '60s' }),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      if (err.includes('baton: running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the run of ${sessionId} ended early (${code}): ${err}`)));
  });
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, started, done };
}

/** The claim race over `rounds` rounds with 4 workers; used for every store. */
export async function claimRace(ws: Workspace, target: StoreTarget, sessions = 6, rounds = 3): Promise<void> {
  const ids = await interruptedSessions(ws, target, sessions);
  const tokens = new Map<string, number[]>(ids.map((id) => [id, [1]]));
  for (let round = 0; round < rounds; round++) {
    // Round 0 claims runs that exited 3; later rounds claim runs killed with SIGKILL, their
    // leases seen expired through a clock moved past them (BATON_NOW).
    const env: Record<string, string> = round === 0 ? {} : { BATON_NOW: later(round * 10 * 60_000) };
    const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => worker(ws, target, w, env)));
    const claims = results.flat();
    const claimed = claims.map((c) => c.sessionId).sort();
    // Exactly one worker took each session over.
    expect(claimed, JSON.stringify(claims)).toEqual([...ids].sort());
    for (const c of claims) {
      const before = tokens.get(c.sessionId)!;
      expect(c.token).toBe(before[before.length - 1]! + 1);
      before.push(c.token);
    }
    if (round === rounds - 1) break;
    // Each worker goes on under its lease with `baton run`, and dies.
    const holders = claims.map((c) => holder(ws, target, c.sessionId, c.token));
    await Promise.all(holders.map((h) => h.started));
    for (const h of holders) process.kill(-h.child.pid!, 'SIGKILL');
    await Promise.all(holders.map((h) => h.done));
  }
  for (const id of ids) {
    const log = await okJson<EventJson[]>(ws, target, ['log', '--session', id]);
    const acquired = log.filter((e) => e.type === 'lease.acquired');
    const byClaim = acquired.filter((e) => String(e.data['owner']).startsWith('claim:'));
    // One takeover per session per round, each with the next token; the runs adopted those
    // leases instead of taking new ones.
    expect(byClaim.map((e) => e.data['token'])).toEqual(tokens.get(id)!.slice(1));
    expect(acquired.length).toBe(1 + rounds);
    expect(log.filter((e) => e.type === 'run.started').map((e) => e.data['token'])).toEqual([1, ...tokens.get(id)!.slice(1, rounds)]);
  }
}

const FILE: StoreTarget = { env: {} };

describe('baton claim on the file store', () => {
  it('4 workers claiming at once while the lease holders are SIGKILLed: each session is taken over by exactly one worker, every round', async () => {
    const ws = workspace();
    await claimRace(ws, FILE, 6, 3);
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
    expectError(await ws.run(['run', '--session', id!, '--', 'true']), 'LOCKED');
    const r = await ws.run(['run', '--', process.execPath, '-e', 'console.log(process.env.BATON_LEASE_TOKEN)'], { env: { BATON_SESSION: id!, BATON_LEASE_TOKEN: '2' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('2');
    const types = (await ws.log(id)).map((e) => e.type);
    expect(types.slice(-7)).toEqual(['session.resumed', 'lease.acquired', 'lease.renewed', 'run.started', 'run.ended', 'session.paused', 'lease.released']);
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
    const run = spawn(process.execPath, [BATON, 'run', '--heartbeat', '200ms', '--ttl', '1500ms', '--', process.execPath, '-e', 'setTimeout(() => {}, 100000)'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let err = '';
    await new Promise<void>((resolve) => run.stderr!.setEncoding('utf8').on('data', (c: string) => ((err += c), err.includes('baton: running') && resolve())));
    const waiting = ws.run(['claim', '--wait', '--timeout', '20s', '--poll', '5s', '--json', '--agent', 'pool']);
    await new Promise((r) => setTimeout(r, 700));
    process.kill(-run.pid!, 'SIGKILL');
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    const c = (JSON.parse(r.stdout) as ClaimJson).claimed!;
    expect(c.sessionId).toBe('long');
    expect(c.token).toBe(2);
    expect(c.cause?.cause).toBe('lease-expired');
    const types = (await ws.log('long')).map((e) => e.type);
    expect(types.slice(-4)).toEqual(['lease.expired', 'session.interrupted', 'session.resumed', 'lease.acquired']);
  }, 60_000);

  it('a run nested inside a run does not take over its parent lease (LOCKED, as before)', async () => {
    const ws = workspace();
    await ws.ok(['start', 'nest', '--id', 'n1']);
    const r = await ws.run(['run', '--', process.execPath, BATON, 'run', '--', 'true']);
    expect(r.code).toBe(EXIT_CODES.LOCKED);
    expect(r.stderr).toContain('error[LOCKED]');
  }, 30_000);
});

describe.skipIf(!PG_URL)('baton claim on the PostgreSQL store', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  it('4 workers claiming at once while the lease holders are SIGKILLed: each session is taken over by exactly one worker, every round', async () => {
    const schema = freshSchema('claim');
    schemas.push(schema);
    await claimRace(workspace(), { env: { BATON_STORE: urlWith({ schema }) } }, 6, 3);
  }, 240_000);
});
