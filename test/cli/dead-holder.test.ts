/**
 * Issue 15, "A dead holder on this host": when the process holding a session's lease ran on
 * this machine and is gone (SIGKILLed here for real), baton says so and `resume --apply`,
 * `claim` and `run` take the session over at once instead of waiting for the lease's TTL.
 * A pid reused after a reboot is not taken for the holder: the boot id recorded with the
 * lease tells.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { BATON, baseEnv, needBuiltCli, withSession } from './helpers.js';
import type { Workspace } from './helpers.js';

interface Leased {
  status: string;
  cause: { cause: string; detail: string | null } | null;
  lease: { owner: string; token: number; pid: number; host: string; boot?: string } | null;
}

/**
 * Starts `baton run` holding the lease for a minute, in its own process group; resolves once
 * the lease is taken. `kill()` SIGKILLs the whole group (baton and its child) and waits.
 */
function groupLeft(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function holder(ws: Workspace): Promise<{ pid: number; kill: () => Promise<void> }> {
  needBuiltCli();
  const child: ChildProcess = spawn(
    process.execPath,
    [BATON, 'run', '--ttl', '60s', '--heartbeat', '20s', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)'],
    {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: 'ignore',
      detached: true,
    },
  );
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const end = Date.now() + 10_000;
  let pgid: number | undefined;
  for (;;) {
    const s = (await ws.status()) as unknown as Leased;
    // The run's command leads a group of its own, recorded with the renewal after its start.
    pgid = (await ws.json<Array<{ type: string; data: { pgid?: number } }>>(['log'])).find(
      (e) => e.type === 'run.renewed' && e.data.pgid,
    )?.data.pgid;
    if (s.lease?.pid === child.pid && pgid) break;
    if (Date.now() > end) throw new Error('the run never took the lease');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid!,
    // baton and its command's group both: nothing of the run is left (an orphan would block takeovers, run-orphans.test.ts).
    kill: async () => {
      process.kill(-child.pid!, 'SIGKILL');
      process.kill(-pgid!, 'SIGKILL');
      await exited;
      for (let i = 0; i < 200 && groupLeft(pgid!); i++) await new Promise((r) => setTimeout(r, 20));
    },
  };
}

describe('a lease whose holder was killed on this machine', () => {
  it('status says so; resume --apply takes over at once, recording why; the TTL is not waited for', async () => {
    const ws = await withSession('dh', 'build');
    await ws.ok(['phase', 'start', 'build']);
    const h = await holder(ws);
    const leased = (await ws.status()) as unknown as Leased;
    expect(leased.lease?.boot).toMatch(/^[0-9a-f-]{36}$/);
    await h.kill();

    const status = await ws.run(['status']);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(
      `warning: the lease's holder is gone (pid ${h.pid} on ${leased.lease!.host} has exited): \`baton resume --apply\` or \`baton claim\` takes the session over now`,
    );
    const plan = await ws.json<{ warnings: string[] }>(['resume']);
    expect(plan.warnings[0]).toMatch(
      new RegExp(
        `but its holder is gone \\(pid ${h.pid} on .* has exited\\): resuming or claiming it takes it over at once`,
      ),
    );

    const started = Date.now();
    expect((await ws.ok(['resume', '--apply'])).stdout).toBe('Resumed dh from live; it is active.\n');
    expect(Date.now() - started).toBeLessThan(30_000); // the lease had 60 s to run
    const after = (await ws.status()) as unknown as Leased;
    expect(after.status).toBe('active');
    expect(after.lease).toBeNull();
    const log = await ws.log();
    const expired = log.find((e) => e.type === 'lease.expired')!;
    expect(expired.data).toMatchObject({ token: leased.lease!.token, holderGone: { pid: h.pid, reason: 'exited' } });
    const interrupted = log.find((e) => e.type === 'session.interrupted')!;
    expect(interrupted.data).toMatchObject({ cause: 'holder-gone' });
    expect(String((interrupted.data as { detail: string }).detail)).toMatch(
      new RegExp(`^pid ${h.pid} on .* has exited; held by .*; in flight: build$`),
    );
  }, 30_000);

  it('claim takes it at once', async () => {
    const ws = await withSession('dc', 'build');
    const h = await holder(ws);
    await h.kill();
    const claimed = await ws.run(['claim', '--json']);
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ claimed: { sessionId: 'dc', cause: { cause: 'holder-gone' } } });
  }, 30_000);

  it('run takes it at once, saying so', async () => {
    const ws = await withSession('dr', 'build');
    const h = await holder(ws);
    await h.kill();
    const r = await ws.run(['run', '--', process.execPath, '-e', 'process.exit(0)']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: the lease's holder is gone (pid ${h.pid} on`);
  }, 30_000);

  it('a holder that is alive is still waited for (LOCKED), and nothing is said', async () => {
    const ws = await withSession('da', 'build');
    const h = await holder(ws);
    try {
      expect((await ws.run(['status'])).stderr).toBe('');
      const r = await ws.run(['resume', '--apply']);
      expect(r.stderr).toMatch(/^error\[LOCKED\]/);
    } finally {
      await h.kill();
    }
  }, 30_000);
});

describe('what counts as gone (library)', () => {
  async function leasedBy(o: { pid: number; host: string; bootId: string | null }, detached = false) {
    const store = new MemoryStore();
    const writer = new SessionManager({ store, pid: o.pid, host: o.host, bootId: o.bootId });
    await writer.start({ title: 't', id: 's' });
    if (detached) await writer.claims.claim({ owner: 'claim:x', ttlMs: 60_000 }).catch(() => null);
    else await writer.leases.acquire('s', { owner: 'w', ttlMs: 60_000 });
    return store;
  }
  const alive = process.ppid; // a process that surely runs, and is not this one

  it('after a reboot (another boot id), even a pid that exists again is gone', async () => {
    const store = await leasedBy({ pid: alive, host: 'h1', bootId: 'boot-before' });
    const reader = new SessionManager({ store, host: 'h1', bootId: 'boot-now' });
    expect(reader.leases.holderGone((await reader.get('s')).lease ?? null)).toEqual({
      pid: alive,
      host: 'h1',
      reason: 'rebooted',
    });
    expect(await reader.leases.endGoneHolder('s')).toMatchObject({ reason: 'rebooted' });
    expect((await reader.get('s')).status).toBe('interrupted');
  });

  it('the same boot and a live pid: not gone; another host: never judged; an unknown boot: the pid alone decides', async () => {
    const same = await leasedBy({ pid: alive, host: 'h1', bootId: 'b' });
    expect(
      new SessionManager({ store: same, host: 'h1', bootId: 'b' }).leases.holderGone(
        (await new SessionManager({ store: same }).get('s')).lease ?? null,
      ),
    ).toBeNull();
    const other = await leasedBy({ pid: 2 ** 22 + 7, host: 'elsewhere', bootId: 'b' });
    const m = new SessionManager({ store: other, host: 'h1', bootId: 'b' });
    expect(m.leases.holderGone((await m.get('s')).lease ?? null)).toBeNull();
    expect(await m.leases.endGoneHolder('s')).toBeNull();
    const unknown = await leasedBy({ pid: 2 ** 22 + 7, host: 'h1', bootId: null });
    const u = new SessionManager({ store: unknown, host: 'h1', bootId: 'b' });
    expect(u.leases.holderGone((await u.get('s')).lease ?? null)).toMatchObject({ reason: 'exited' });
  });
});
