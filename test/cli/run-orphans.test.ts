/**
 * `baton run` and the processes it leaves (real processes, the built CLI): its command runs in
 * a process group of its own, so a `baton run` SIGKILLed while its command runs leaves an
 * orphan that blocks every takeover (LOCKED naming its pid and command) until it is ended,
 * which `--end-orphans` does before the new run starts; the orphan's late writes are FENCED.
 * Also: `--phase` and BATON_RUN send the command's records to the run's phase; `switch`,
 * `pause` and `start --switch` are refused under a live run unless `--force`; `phase claim`
 * raced by two processes is won by one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BATON, baseEnv, expectError, expectRunError, withSession } from './helpers.js';
import type { Result, Workspace } from './helpers.js';

const later = (ms: number): string => new Date(Date.now() + ms).toISOString();
const groups: number[] = [];
afterEach(() => {
  for (const g of groups.splice(0)) if (groupAlive(g)) process.kill(-g, 'SIGKILL');
  // (a group of zombies only is gone: its members exited, their reaper has yet to collect them)
});

/** Source of a check whether group `pgid` still has a running process (zombies, exited but not reaped yet, do not count). */
const RUNNING = (pgid: number): string =>
  `require('node:fs').readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).some((n) => { try { const s = require('node:fs').readFileSync('/proc/' + n + '/stat', 'utf8'); const [st, , pg] = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(pg) === ${pgid} && st !== 'Z'; } catch { return false; } })`;

function groupAlive(pgid: number): boolean {
  return (new Function('require', `return ${RUNNING(pgid)};`) as (r: NodeRequire) => boolean)(
    createRequire(import.meta.url),
  );
}

/** `baton run ARGS` in the background. */
function startRun(ws: Workspace, args: string[]): { child: ChildProcess; done: Promise<unknown> } {
  const child = spawn(process.execPath, [BATON, 'run', ...args], {
    cwd: ws.dir,
    env: baseEnv(),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  return { child, done: new Promise((r) => child.once('exit', r)) };
}

/** Waits until the run recorded its command's process group; returns it. */
async function untilGrouped(ws: Workspace): Promise<number> {
  for (let i = 0; ; i++) {
    const events = await ws.json<Array<{ type: string; data: { pgid?: number } }>>(['log']);
    const pgid = events.find((e) => e.type === 'run.renewed' && e.data.pgid)?.data.pgid;
    if (pgid) {
      groups.push(pgid);
      return pgid;
    }
    if (i > 200) throw new Error('the run never recorded its process group');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `node baton.cjs ARGS` through `sh -c` (its own parent process), with `env`. */
function shell(ws: Workspace, args: string[], env: Record<string, string> = {}): Promise<Result> {
  // sh stays the command's parent (a lone command would be exec'd in its place) and lives on a
  // while after it, as an agent's shell does: the claim's run is that shell's.
  const line = `${[process.execPath, BATON, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}; c=$?; sleep 2; exit $c`;
  const child = spawn('sh', ['-c', line], { cwd: ws.dir, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

describe('a baton run killed while its command runs', () => {
  it('leaves an orphan: no takeover while it lives (LOCKED naming pid and command), its writes FENCED; --end-orphans ends it before the new run starts', async () => {
    const ws = await withSession('or', 'build,test');
    await ws.ok(['phase', 'start', 'build']);
    const first = startRun(ws, ['--ttl', '1s', '--heartbeat', '200ms', '--', 'sleep', '600']);
    const pgid = await untilGrouped(ws);
    first.child.kill('SIGKILL');
    await first.done;
    expect(groupAlive(pgid)).toBe(true);

    // Every takeover is refused while the orphan runs, also after the lease expired (only then
    // is the session a candidate for `claim`: until its TTL the run counts as live).
    const takeovers: Array<[string[], Array<Record<string, string>>]> = [
      [
        ['resume', 'or', '--apply'],
        [{}, { BATON_NOW: later(120_000) }],
      ],
      [['claim'], [{ BATON_NOW: later(120_000) }]],
    ];
    for (const [args, envs] of takeovers) {
      for (const env of envs) {
        const e = expectError(await ws.run(args, { env }), 'LOCKED');
        expect(e.message).toContain(`pid ${pgid}`);
        expect(e.message).toContain('`sleep 600`');
        expect(e.hint).toContain('--end-orphans');
      }
    }
    const refused = expectRunError(await ws.run(['run', '--', 'true']), 'LOCKED');
    expect(refused.message).toContain(`pid ${pgid} (\`sleep 600\`)`);
    expect(groupAlive(pgid)).toBe(true);
    // The orphan's writes (it carries the dead run's token) are FENCED once the lease lapsed.
    const late = await ws.run(['note', 'add', 'from the orphan'], {
      env: { BATON_LEASE_TOKEN: '1', BATON_SESSION: 'or', BATON_NOW: later(120_000) },
    });
    expectError(late, 'FENCED');

    // Asked to end it: the new run's command starts only once the whole group is gone.
    const probe = `console.log(${RUNNING(pgid)} ? 'orphan alive' : 'orphan gone')`;
    const next = await ws.run(['run', '--end-orphans', '--', process.execPath, '-e', probe]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout.trim()).toBe('orphan gone');
    expect(groupAlive(pgid)).toBe(false);
    expect((await ws.json<Array<{ type: string }>>(['log'])).some((e) => e.type === 'note.added')).toBe(false);
  }, 60_000);

  it('resume --apply --end-orphans: the orphan (a node loop ignoring SIGTERM) is killed and gone, then the session is resumed', async () => {
    const ws = await withSession('oe', 'build');
    const first = startRun(ws, [
      '--',
      process.execPath,
      '-e',
      'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)',
    ]);
    const pgid = await untilGrouped(ws);
    first.child.kill('SIGKILL');
    await first.done;
    const r = await ws.run(['resume', 'oe', '--apply', '--end-orphans'], { env: { BATON_STOP_GRACE: '300ms' } });
    expect(r.code, r.stderr).toBe(0);
    expect(groupAlive(pgid)).toBe(false);
    expect((await ws.status()).status).toBe('active');
  }, 60_000);
});

describe('baton run --phase and BATON_RUN', () => {
  it("the command gets BATON_PHASE and BATON_RUN; its files, tokens and errors naming no phase go to the run's phase", async () => {
    const ws = await withSession('ph', 'build,docs');
    await ws.ok(['phase', 'start', 'docs']);
    const b = (...a: string[]): string => [process.execPath, BATON, ...a].map((x) => `'${x}'`).join(' ');
    const script = `echo "$BATON_PHASE $BATON_RUN"; ${b('file', 'created', 'a.txt')} && ${b('tokens', 'add', '--agent', 'w', '--input', '7')} && ${b('error', 'add', '--type', 'test', '--message', 'boom')}`;
    const r = await ws.run(['run', '--phase', 'build', '--', 'sh', '-c', script]);
    expect(r.code, r.stderr).toBe(0);
    const [phase, run] = r.stdout.split('\n')[0]!.split(' ');
    expect(phase).toBe('build');
    expect(run).toMatch(/^run-\d+$/);
    const s = await ws.status();
    const build = s.phases.find((p) => p.id === 'build')!;
    expect(build.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(build.errors.map((e) => e.message)).toEqual(['boom']);
    expect(s.tokens.byPhase['build']).toMatchObject({ input: 7 });
    // Outside a run, with two phases in progress, tokens add says which to choose from.
    const e = expectError(await ws.run(['tokens', 'add', '--agent', 'someone-else', '--input', '1']), 'BAD_INPUT');
    expect(e.message).toMatch(/build, docs/);
  }, 60_000);
});

describe('a live run on the session', () => {
  it('switch, pause and start --switch are refused with LOCKED naming it; --force goes ahead', async () => {
    const ws = await withSession('sw', 'build');
    await ws.ok(['start', 'Other', '--id', 'other', '--switch']);
    await ws.ok(['switch', 'sw']);
    const held = startRun(ws, ['--', 'sleep', '600']);
    await untilGrouped(ws);
    for (const args of [['switch', 'other'], ['pause'], ['start', 'Third', '--id', 'third', '--switch']]) {
      const e = expectError(await ws.run(args), 'LOCKED');
      expect(e.message).toMatch(/baton run `sleep 600`/);
    }
    expect((await ws.status()).status).toBe('active');
    // Inside the run itself (BATON_RUN names it), its own pause is not refused by itself.
    await ws.ok(['switch', 'other', '--force']);
    expect((await ws.status('sw')).status).toBe('paused');
    held.child.kill('SIGTERM');
    await held.done;
  }, 60_000);
});

describe('baton phase claim', () => {
  it('raced by two processes: exactly one gets the phase, the other is told which are free', async () => {
    const ws = await withSession('pc', 'build,docs');
    const [a, b] = await Promise.all([
      shell(ws, ['phase', 'claim', 'build', '--json']),
      shell(ws, ['phase', 'claim', 'build', '--json']),
    ]);
    const won = [a, b].filter((r) => r.code === 0);
    const lost = [a, b].filter((r) => r.code !== 0);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(JSON.parse(won[0]!.stdout)).toMatchObject({ phase: 'build', started: true });
    expect(JSON.parse(lost[0]!.stdout)).toMatchObject({
      error: { code: 'LOCKED', details: { phase: 'build', free: ['docs'] } },
    });
    const s = await ws.status();
    expect(s.phases.find((p) => p.id === 'build')).toMatchObject({ status: 'in_progress' });
  }, 60_000);
});

describe('an orphan as readers show it, and claim --wait', () => {
  it('status and list say "orphaned: command pid N still running" (not live, not dead); claim --wait waits for it to exit, then claims', async () => {
    const ws = await withSession('ow', 'build');
    await ws.ok(['phase', 'start', 'build']);
    // The command exits once the file `stop` exists: the orphan ends when the test says so.
    const first = startRun(ws, [
      '--ttl',
      '1s',
      '--heartbeat',
      '200ms',
      '--',
      process.execPath,
      '-e',
      'setInterval(() => { if (require("node:fs").existsSync("stop")) process.exit(0); }, 50)',
    ]);
    const pgid = await untilGrouped(ws);
    first.child.kill('SIGKILL');
    await first.done;

    const text = await ws.ok(['status']);
    expect(text.stdout).toContain(`orphaned: command pid ${pgid} still running (run-1, command)`);
    expect(text.stdout).not.toMatch(/live run-1|dead run-1/);
    const view = await ws.json<{ runs: Array<{ id: string; state: string; orphanPid?: number }> }>(['status']);
    expect(view.runs).toEqual([expect.objectContaining({ id: 'run-1', state: 'orphaned', orphanPid: pgid })]);
    expect((await ws.ok(['list'])).stdout).toContain(`(orphaned: command pid ${pgid} still running)`);

    // claim --wait: the session needs a worker once the lease lapsed, but the orphan still runs
    // here: the claim waits (saying so) instead of stopping with LOCKED, and claims once it exits.
    const claim = spawn(process.execPath, [BATON, 'claim', '--wait', '--poll', '200ms', '--json'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    claim.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    claim.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((r) => claim.once('exit', (code) => r(code)));
    for (let i = 0; i < 200 && !err.includes('Waiting for it to exit'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(err).toContain(`pid ${pgid} (\``);
    expect(err).toContain('Waiting for it to exit');
    expect(claim.exitCode).toBeNull();
    await new Promise((r) => setTimeout(r, 600));
    expect(claim.exitCode).toBeNull();
    fs.writeFileSync(ws.path('stop'), '');
    expect(await exited).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ claimed: { sessionId: 'ow' } });
    expect(groupAlive(pgid)).toBe(false);
  }, 60_000);
});
