/**
 * `baton run --phase P` holds a lease on phase P only (real processes, the built CLI): two
 * `baton run`s on different phases of one session work at once, each recording on its own
 * phase under its own agent; a second run on the same phase is refused (LOCKED naming the
 * holder); a run without --phase (the whole session's lease) is refused while phase runs are
 * live, and a phase run while a whole-session run is. One of two phase runs SIGKILLed: the
 * other goes on, the session stays active, the dead one's phase is taken over at once (the
 * death check on this host), and the dead run's token is FENCED while the live one's writes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BATON, baseEnv, expectError, expectRunError, needBuiltCli, withSession } from './helpers.js';
import type { Workspace } from './helpers.js';

interface RunJson {
  id: string;
  agent: string | null;
  state: 'live' | 'ended' | 'dead' | 'orphaned';
  phases: string[];
  label: string;
  ended: { how: string; cause: string } | null;
}
interface Ev {
  type: string;
  data: { runId?: string; token?: number | null; pgid?: number; leasedPhase?: string };
}

const started: ChildProcess[] = [];
const groups: number[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const g of groups.splice(0))
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // already gone
    }
});

const sh = (...a: string[]): string => a.map((x) => `'${x.replace(/'/g, "'\\''")}'`).join(' ');
const baton = (...a: string[]): string => sh(process.execPath, BATON, ...a);
/** Waits for file `f` to exist, as a shell loop. */
const until = (f: string): string => `while [ ! -f ${f} ]; do sleep 0.05; done`;

/** `baton run ARGS` in the background, as its own process. */
function startRun(ws: Workspace, args: string[]): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(process.execPath, [BATON, 'run', ...args], {
    cwd: ws.dir,
    env: baseEnv(),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  started.push(child);
  return { child, done: new Promise((r) => child.once('exit', (code) => r(code))) };
}

async function poll<T>(what: string, f: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function runs(ws: Workspace): Promise<RunJson[]> {
  return (await ws.json<{ runs?: RunJson[] }>(['status'])).runs ?? [];
}

/** The run of phase `phase`'s lease, its token and its command's process group, once it recorded the group. */
async function leaseOf(
  ws: Workspace,
  phase: string,
  session?: string,
): Promise<{ runId: string; token: number; pgid: number }> {
  return poll(`the run on ${phase}`, async () => {
    const log = await ws.json<Ev[]>(['log', ...(session ? ['--session', session] : [])]);
    const start = log.find((e) => e.type === 'run.started' && e.data.leasedPhase === phase);
    const pgid = log.find((e) => e.type === 'run.renewed' && e.data.runId === start?.data.runId && e.data.pgid)?.data
      .pgid;
    if (!start || !pgid) return undefined;
    groups.push(pgid);
    return { runId: start.data.runId!, token: start.data.token!, pgid };
  });
}

describe('baton run --phase: a lease per phase', () => {
  it('two runs on two phases at once, each on its own phase; same phase and whole session refused; one SIGKILLed: the other goes on, its phase is taken over, its token FENCED', async () => {
    needBuiltCli();
    const ws = await withSession('pp', 'build,docs,test');
    const work = (name: string): string =>
      `${until('go')}; echo ${name} > ${name}.txt; ${baton('file', 'created', `${name}.txt`)}; ${until(`more-${name}`)}; echo more > ${name}2.txt; ${baton('file', 'created', `${name}2.txt`)}; ${until(`stop-${name}`)}`;
    const opts = ['--ttl', '3s', '--heartbeat', '300ms'];
    const a = startRun(ws, ['--phase', 'build', '--agent', 'alice', ...opts, '--', 'sh', '-c', work('a')]);
    const b = startRun(ws, ['--phase', 'docs', '--agent', 'bob', ...opts, '--', 'sh', '-c', work('b')]);
    const la = await leaseOf(ws, 'build');
    const lb = await leaseOf(ws, 'docs');
    // Both started at once: whichever appended first got the lower token; never the same one.
    expect(lb.token).not.toBe(la.token);
    // Both live at once, each owning its phase.
    const both = await runs(ws);
    expect(
      both
        .filter((r) => r.state === 'live')
        .map((r) => [r.agent, r.phases])
        .sort(),
    ).toEqual([
      ['alice', ['build']],
      ['bob', ['docs']],
    ]);
    fs.writeFileSync(ws.path('go'), '');
    await poll('both files', async () => {
      const s = await ws.status();
      return s.phases.every((p) => p.id === 'test' || p.files.length === 1) && s;
    });
    const s1 = await ws.status();
    const files = (id: string): Array<[string, string | null]> =>
      s1.phases.find((p) => p.id === id)!.files.map((f) => [f.path, f.agent ?? null]);
    expect(files('build')).toEqual([['a.txt', 'alice']]);
    expect(files('docs')).toEqual([['b.txt', 'bob']]);

    // A second run on a phase held: LOCKED naming the holder; a whole-session run: LOCKED naming both.
    const same = expectRunError(await ws.run(['run', '--phase', 'build', '--', 'true']), 'LOCKED');
    expect(same.message).toContain('Phase build cannot be claimed');
    expect(same.message).toContain(`(${la.runId}, pid `);
    expect(same.hint).toContain('baton phase claim test');
    const whole = expectRunError(await ws.run(['run', '--', 'true']), 'LOCKED');
    expect(whole.message).toMatch(
      /cannot be held whole: 2 runs hold a lease on phase (build .*; phase docs|docs .*; phase build)/,
    );

    // The run on build dies with its command (SIGKILL to baton and to the group): bob goes on.
    a.child.kill('SIGKILL');
    process.kill(-la.pgid, 'SIGKILL');
    await a.done;
    fs.writeFileSync(ws.path('more-b'), '');
    await poll("bob's second file", async () =>
      (await ws.status()).phases.find((p) => p.id === 'docs')!.files.some((f) => f.path === 'b2.txt'),
    );
    const after = await ws.status();
    expect(after.status).toBe('active');
    expect((await runs(ws)).find((r) => r.id === lb.runId)?.state).toBe('live');

    // The dead run's phase is taken over at once (its process is gone here), by a new run of carol.
    const c = await ws.run(
      ['run', '--phase', 'build', '--agent', 'carol', '--', 'sh', '-c', baton('file', 'created', 'c.txt')],
      {
        env: {},
      },
    );
    expect(c.code, c.stderr).toBe(0);
    const s2 = await ws.status();
    expect(s2.phases.find((p) => p.id === 'build')!.files.map((f) => [f.path, f.agent])).toEqual([
      ['a.txt', 'alice'],
      ['c.txt', 'carol'],
    ]);
    expect((await runs(ws)).find((r) => r.id === la.runId)?.ended).toMatchObject({
      how: 'died',
      cause: 'process-gone',
    });
    expect(s2.status).toBe('active');

    // Fenced per phase: the dead run's token is refused, the live run's on docs is not.
    const env = (t: number): Record<string, string> => ({ BATON_SESSION: 'pp', BATON_LEASE_TOKEN: String(t) });
    const late = expectError(await ws.run(['note', 'add', 'zombie'], { env: env(la.token) }), 'FENCED');
    expect(late.message).toContain('phase build');
    expect((await ws.run(['note', 'add', 'from bob'], { env: env(lb.token) })).code).toBe(0);

    fs.writeFileSync(ws.path('stop-b'), '');
    expect(await b.done).toBe(0);
    const end = await ws.status();
    expect(end.status).toBe('paused');
    expect(end.phases.find((p) => p.id === 'docs')!.files.map((f) => f.path)).toEqual(['b.txt', 'b2.txt']);
  }, 90_000);

  it('a whole-session run refuses phase runs while it lives; an orphan on one phase blocks that phase only', async () => {
    needBuiltCli();
    const ws = await withSession('pw', 'build,docs');
    const whole = startRun(ws, ['--agent', 'w', '--', 'sh', '-c', until('stop')]);
    await poll('the whole-session run', async () => (await runs(ws)).some((r) => r.state === 'live'));
    const e = expectRunError(await ws.run(['run', '--phase', 'docs', '--', 'true']), 'LOCKED');
    expect(e.message).toMatch(/is held whole by w \(pid \d+ on .*\).*no run may lease one of its phases/);
    fs.writeFileSync(ws.path('stop'), '');
    await whole.done;

    // A phase run whose baton is SIGKILLed leaves its command running (an orphan) on build.
    const a = startRun(ws, ['--phase', 'build', '--', 'sleep', '600']);
    const la = await leaseOf(ws, 'build');
    a.child.kill('SIGKILL');
    await a.done;
    const refused = expectRunError(await ws.run(['run', '--phase', 'build', '--', 'true']), 'LOCKED');
    expect(refused.message).toContain(`pid ${la.pgid} (\`sleep 600\`)`);
    expectRunError(await ws.run(['run', '--', 'true']), 'LOCKED');
    // docs is another phase: the orphan on build is not in its way.
    const docs = await ws.run(['run', '--phase', 'docs', '--', 'true']);
    expect(docs.code, docs.stderr).toBe(0);
  }, 60_000);

  it('a phase run SIGKILLed with its command (TTL 10 min): claim and resume --apply take the session over at once, not after the TTL', async () => {
    needBuiltCli();
    const ws = await withSession('pk', 'build,docs');
    const killed = async (session: string): Promise<number> => {
      const a = startRun(ws, ['--session', session, '--phase', 'build', '--ttl', '10m', '--', 'sleep', '600']);
      const la = await leaseOf(ws, 'build', session);
      a.child.kill('SIGKILL');
      process.kill(-la.pgid, 'SIGKILL');
      await a.done;
      return la.token;
    };
    const t1 = await killed('pk');
    const at = Date.now();
    const c = await ws.run(['claim', '--json']);
    expect(c.code, c.stderr).toBe(0);
    const claimed = (
      JSON.parse(c.stdout) as { claimed: { sessionId: string; token: number; cause: { cause: string } } }
    ).claimed;
    expect(claimed).toMatchObject({ sessionId: 'pk', cause: { cause: 'run-died' } });
    expect(claimed.token).toBeGreaterThan(t1);
    expect(Date.now() - at).toBeLessThan(30_000);

    expect((await ws.run(['start', 'second', '--id', 'pk2', '--phases', 'build,docs', '--switch'])).code).toBe(0);
    await killed('pk2');
    const r = await ws.run(['resume', '--apply', '--session', 'pk2']);
    expect(r.code, r.stderr).toBe(0);
    const s = await ws.json<{ status: string; runs?: RunJson[] }>(['status', '--session', 'pk2']);
    expect(s.status).toBe('active');
    expect(s.runs?.[0]?.ended).toMatchObject({ how: 'died', cause: 'process-gone' });
  }, 60_000);
});
