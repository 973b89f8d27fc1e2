/**
 * `baton run`, leases and fencing with real processes: children that exit 0, exit 3 or die
 * by SIGKILL; SIGINT to `baton run`; SIGKILL to `baton run` itself followed by lease expiry
 * (moved clock via BATON_NOW, and once in real time); a zombie writer fenced off after a
 * takeover.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, expectError, expectRunError, withSession } from './helpers.js';
import type { Workspace } from './helpers.js';

interface StatusWithLease {
  status: string;
  cause: { cause: string; at: string; detail: string | null } | null;
  lease: { owner: string; token: number; expiresAt: string; pid: number } | null;
  phases: Array<{ id: string; status: string }>;
}

const later = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** Starts `baton run … -- CMD` in the background; resolves its exit once it ends. */
function startRun(
  ws: Workspace,
  args: string[],
): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> } {
  const child = spawn(process.execPath, [BATON, 'run', ...args], {
    cwd: ws.dir,
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
  return { child, done };
}

/** Waits until `baton status` shows a lease (the run has taken it and started its child). */
async function untilLeased(ws: Workspace, timeoutMs = 10_000): Promise<StatusWithLease> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = (await ws.status()) as unknown as StatusWithLease;
    if (s.lease) return s;
    if (Date.now() > end) throw new Error('the run never took the lease');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the run recorded its command's process group (the renewal after the spawn); returns it. */
async function untilGrouped(ws: Workspace, timeoutMs = 10_000): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const events = await ws.json<Array<{ type: string; data: { pgid?: number } }>>(['log']);
    const pgid = events.find((e) => e.type === 'run.renewed' && e.data.pgid)?.data.pgid;
    if (pgid) return pgid;
    if (Date.now() > end) throw new Error('the run never recorded its process group');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILLs `baton run` and then its command's whole process group: nothing of the run is left. */
async function killAll(run: { child: ChildProcess; done: Promise<unknown> }, pgid: number): Promise<void> {
  run.child.kill('SIGKILL');
  await run.done;
  // (Gone already when baton stopped it: a run that lost its lease stops its command.)
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  while (groupAlive(pgid)) await new Promise((r) => setTimeout(r, 20));
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `list --json` shows session `id` with a row that `ok` accepts. */
async function untilListed(
  ws: Workspace,
  id: string,
  ok: (row: { leaseToken?: number | null }) => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const rows = await ws.json<Array<{ id: string; leaseToken?: number | null }>>(['list']);
    const row = rows.find((r) => r.id === id);
    if (row && ok(row)) return;
    if (Date.now() > end) throw new Error(`list never showed ${id} as expected: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('baton run records why the run ended', () => {
  it('exit 0: the child gets the session, agent and lease token; session paused (run-completed), lease released', async () => {
    const ws = await withSession('r0', 'build,test');
    const r = await ws.run([
      'run',
      '--agent',
      'coder',
      '--',
      process.execPath,
      '-e',
      'console.log([process.env.BATON_SESSION, process.env.BATON_AGENT, process.env.BATON_LEASE_TOKEN].join(" "))',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('r0 coder 1');
    expect(r.stderr).toContain('ended (run-completed)');
    const s = (await ws.status()) as unknown as StatusWithLease;
    expect(s.status).toBe('paused');
    expect(s.cause?.cause).toBe('run-completed');
    expect(s.lease).toBeNull();
    const types = (await ws.json<Array<{ type: string }>>(['log'])).map((e) => e.type);
    // The renewal right after the spawn records the command's process group.
    expect(types.slice(-7)).toEqual([
      'lease.acquired',
      'run.started',
      'lease.renewed',
      'run.renewed',
      'run.ended',
      'session.paused',
      'lease.released',
    ]);
  });

  it('exit 3: baton exits 3, session interrupted with cause exit-3 naming what was in flight', async () => {
    const ws = await withSession('r3', 'build');
    await ws.ok(['phase', 'start', 'build']);
    await ws.ok(['substep', 'build', 'compile']);
    const r = await ws.run(['run', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(r.code).toBe(3);
    const s = (await ws.status()) as unknown as StatusWithLease;
    expect(s.status).toBe('interrupted');
    expect(s.cause?.cause).toBe('exit-3');
    expect(s.cause?.detail).toContain('in flight: build (sub-step: compile)');
    const human = await ws.ok(['status']);
    expect(human.stdout).toMatch(/Status: interrupted \(exit-3: /);
  });

  it('a child killed by SIGKILL: baton exits 137, cause signal-SIGKILL', async () => {
    const ws = await withSession('rk', 'build');
    const r = await ws.run(['run', '--', process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")']);
    expect(r.code).toBe(137);
    const s = (await ws.status()) as unknown as StatusWithLease;
    expect(s.status).toBe('interrupted');
    expect(s.cause?.cause).toBe('signal-SIGKILL');
  });

  it('SIGINT to baton run: the child is stopped, the session paused with cause user-interrupt', async () => {
    const ws = await withSession('ri', 'build');
    const { child, done } = startRun(ws, [
      '--',
      process.execPath,
      '-e',
      'process.on("SIGINT", () => process.exit(130)); setInterval(() => {}, 1000)',
    ]);
    await untilLeased(ws);
    await new Promise((r) => setTimeout(r, 300)); // let the child install its handler
    child.kill('SIGINT');
    const end = await done;
    expect(end.code).toBe(130);
    const s = (await ws.status()) as unknown as StatusWithLease;
    expect(s.status).toBe('paused');
    expect(s.cause?.cause).toBe('user-interrupt');
    expect(s.lease).toBeNull();
  });

  it('a command that cannot start: exit 127, session interrupted', async () => {
    const ws = await withSession('rn', 'build');
    const r = await ws.run(['run', '--', 'no-such-command-baton-test']);
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('could not start no-such-command-baton-test');
    expect(((await ws.status()) as unknown as StatusWithLease).status).toBe('interrupted');
  });
});

describe("baton run's exit status: the child's own, or 125-127 for baton's failures (as docker)", () => {
  it('the child exit status passes through, whatever it is', async () => {
    const ws = await withSession('rp', 'build');
    for (const status of [0, 1, 2, 42, 124]) {
      expect((await ws.run(['run', '--', process.execPath, '-e', `process.exit(${status})`])).code).toBe(status);
    }
  });

  it('126: the command exists but cannot be executed (not executable, a folder); 127: not found', async () => {
    const ws = await withSession('rx', 'build');
    const plain = ws.write('not-executable.sh', '#!/bin/sh\nexit 0\n');
    fs.chmodSync(plain, 0o644);
    const r = await ws.run(['run', '--', plain]);
    expect(r.code).toBe(126);
    expect(r.stderr).toContain('could not start');
    expect((await ws.run(['run', '--', ws.dir])).code).toBe(126);
    expect((await ws.run(['run', '--', 'no-such-command-baton-test'])).code).toBe(127);
    expect((await ws.run(['run', '--', './no-such-file'])).code).toBe(127);
  });

  it("125: baton's own failures (bad options, unknown option, no command, no store, a lease held by another run), the code still on stderr and in --json", async () => {
    const ws = await withSession('rb', 'build');
    expectRunError(await ws.run(['run', '--ttl', 'soon', '--', 'true']), 'BAD_INPUT');
    expectRunError(await ws.run(['run', '--heartbeat', '2m', '--ttl', '1m', '--', 'true']), 'BAD_INPUT');
    expectRunError(await ws.run(['run', '--no-such-option', '--', 'true']), 'BAD_INPUT');
    expectRunError(await ws.run(['run']), 'BAD_INPUT');
    expectRunError(await ws.run(['run', '--session', 'nope', '--', 'true']), 'NOT_FOUND');
    expectRunError(await ws.run(['run', '--', 'true'], { cwd: fs.mkdtempSync('/tmp/baton-nostore-') }), 'NO_STORE');
    const json = await ws.run(['run', '--ttl', 'soon', '--json', '--', 'true']);
    expect(json.code).toBe(125);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'BAD_INPUT' } });
    // Another run holds the lease: LOCKED, as 125, and the command never ran.
    const { child, done } = startRun(ws, ['--', process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
    await untilLeased(ws);
    expectRunError(
      await ws.run(['run', '--', process.execPath, '-e', 'require("fs").writeFileSync("ran", "")']),
      'LOCKED',
    );
    expect(fs.existsSync(ws.path('ran'))).toBe(false);
    child.kill('SIGTERM');
    await done;
  });

  it('other commands keep their documented codes', async () => {
    const ws = await withSession('ro', 'build');
    expectError(await ws.run(['status', '--session', 'nope']), 'NOT_FOUND');
    // A session named like the command is not the command, before or after it.
    expectError(await ws.run(['status', '--session', 'run']), 'NOT_FOUND');
    expectError(await ws.run(['--session', 'run', 'status']), 'NOT_FOUND');
    // A global option before `run` still makes its failures 125.
    expectRunError(await ws.run(['--session', 'nope', 'run', '--', 'true']), 'NOT_FOUND');
  });

  it('run --help documents the codes', async () => {
    const ws = await withSession('rh', 'build');
    const help = (await ws.run(['run', '--help'])).stdout;
    expect(help).toMatch(/125 +baton itself failed/);
    expect(help).toMatch(/126 +the command was found but cannot be executed/);
    expect(help).toMatch(/127 +the command was not found/);
  });
});

describe('leases: a killed baton run, expiry, takeover and fencing', () => {
  it('SIGKILL to baton run: the lease expires and every reader reports interrupted (lease-expired); the next write persists it', async () => {
    const ws = await withSession('lx', 'build');
    await ws.ok(['phase', 'start', 'build']);
    const { child, done } = startRun(ws, [
      '--agent',
      'w1',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 60000)',
    ]);
    const held = await untilLeased(ws);
    expect(held.lease).toMatchObject({ owner: 'w1', token: 1 });
    // The run writes the journal, then the registry row that `list` reads. A kill between the
    // two leaves a row without the lease (see the closing notes: a known gap), so kill only
    // once the row carries it: this test is about what readers make of an expired lease.
    await untilListed(ws, 'lx', (r) => r.leaseToken === 1);
    await killAll({ child, done }, await untilGrouped(ws));
    // Right after the kill the lease is still valid, but the run's process (and its whole group)
    // is gone on this machine: the session reads interrupted at once (run-died), and status
    // says the lease's holder is gone (see dead-holder.test.ts).
    const right = await ws.run(['status', '--json']);
    expect(JSON.parse(right.stdout) as StatusWithLease).toMatchObject({
      status: 'interrupted',
      cause: { cause: 'run-died' },
    });
    expect(right.stderr).toMatch(/^warning: the lease's holder is gone \(pid \d+ on .* has exited\)/);
    // Two minutes later (clock moved), every reader reports the crash.
    const future = { env: { BATON_NOW: later(120_000) } };
    const s = (await ws.status(undefined, future)) as unknown as StatusWithLease;
    expect(s.status).toBe('interrupted');
    // (at: the expiry of the last renewal, the one that recorded the command's process group)
    expect(s.cause).toMatchObject({ cause: 'lease-expired' });
    expect(s.cause?.detail).toContain('held by w1');
    expect(s.cause?.detail).toContain('in flight: build');
    const rows = await ws.json<Array<{ id: string; status: string; cause: { cause: string } | null }>>(
      ['list'],
      future,
    );
    expect(rows.find((r) => r.id === 'lx')).toMatchObject({ status: 'interrupted', cause: { cause: 'lease-expired' } });
    // Nothing was written yet; the next write records it.
    const before = (await ws.json<unknown[]>(['log'])).length;
    await ws.ok(['note', 'add', 'picked up after the crash'], future);
    const types = (await ws.json<Array<{ type: string }>>(['log'])).map((e) => e.type).slice(before);
    expect(types).toEqual(['lease.expired', 'session.interrupted', 'run.ended', 'note.added']);
    expect(((await ws.status()) as unknown as StatusWithLease).status).toBe('interrupted');
    // Interrupted is resumable.
    await ws.ok(['resume', 'lx', '--apply']);
    expect(((await ws.status()) as unknown as StatusWithLease).status).toBe('active');
  });

  it('in real time: a run killed with SIGKILL is reported interrupted once its 1 s lease runs out', async () => {
    const ws = await withSession('lr', 'build');
    const { child, done } = startRun(ws, [
      '--heartbeat',
      '200ms',
      '--ttl',
      '1s',
      '--',
      process.execPath,
      '-e',
      'setTimeout(() => {}, 60000)',
    ]);
    await untilLeased(ws);
    // The registry row follows the journal: count rows only once it carries the lease.
    await untilListed(ws, 'lr', (r) => r.leaseToken === 1);
    const pgid = await untilGrouped(ws);
    const logRows = (): number =>
      fs
        .readFileSync(ws.path('.baton', 'index.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"id":"lr"')).length;
    const rowsBefore = logRows();
    // Past the first lease's expiry: kept alive by heartbeats, the session still lists as active,
    // although heartbeats do not rewrite its registry row.
    await new Promise((r) => setTimeout(r, 1500));
    const rows = await ws.json<Array<{ id: string; status: string }>>(['list']);
    expect(rows.find((r) => r.id === 'lr')?.status).toBe('active');
    expect(logRows()).toBe(rowsBefore);
    await killAll({ child, done }, pgid);
    await new Promise((r) => setTimeout(r, 1300));
    const s = (await ws.status()) as unknown as StatusWithLease;
    expect(s.status).toBe('interrupted');
    expect(s.cause?.cause).toBe('lease-expired');
    const renewals = (await ws.json<Array<{ type: string }>>(['log'])).filter((e) => e.type === 'lease.renewed').length;
    expect(renewals).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('a second run is refused while the lease is valid (LOCKED), takes over after expiry with a higher token, and the zombie is FENCED', async () => {
    const ws = await withSession('lf', 'build');
    const first = startRun(ws, ['--agent', 'w1', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
    await untilLeased(ws);
    expectRunError(await ws.run(['run', '--agent', 'w2', '--', 'true']), 'LOCKED');
    await killAll(first, await untilGrouped(ws));

    const future = { env: { BATON_NOW: later(120_000) } };
    const second = await ws.run(
      ['run', '--agent', 'w2', '--', process.execPath, '-e', 'console.log(process.env.BATON_LEASE_TOKEN)'],
      future,
    );
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('2');
    // The zombie (still carrying token 1) wakes up and tries to write: refused, nothing written.
    const before = (await ws.json<unknown[]>(['log'])).length;
    const zombie = await ws.run(['tokens', 'add', '--agent', 'w1', '--input', '5'], {
      env: { BATON_LEASE_TOKEN: '1', BATON_NOW: later(130_000) },
    });
    expectError(zombie, 'FENCED');
    expect((await ws.json<unknown[]>(['log'])).length).toBe(before);
    // A token that was never issued is refused too.
    expectError(await ws.run(['note', 'add', 'x'], { env: { BATON_LEASE_TOKEN: '9' } }), 'FENCED');
    // --force takes a valid lease over.
    const third = startRun(ws, ['--agent', 'w3', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
    await untilLeased(ws);
    const forced = await ws.run([
      'run',
      '--agent',
      'w4',
      '--force',
      '--',
      process.execPath,
      '-e',
      'console.log(process.env.BATON_LEASE_TOKEN)',
    ]);
    expect(forced.stdout.trim()).toBe('4');
    await killAll(third, await untilGrouped(ws));
  }, 30_000);
});
