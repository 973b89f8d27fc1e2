/**
 * An MCP connection is a run (docs/runs.md), shown with real processes (the built CLI): a
 * client program SIGKILLed mid-phase (its server then sees its stdin end: a disconnect)
 * leaves the session interrupted with cause `disconnected`; `baton mcp` itself SIGKILLed
 * leaves it interrupted at once on its host (its process is gone) and, for other hosts, once
 * the run's TTL (1 s here) passed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { BATON, baseEnv, workspace } from '../cli/helpers.js';
import type { Workspace } from '../cli/helpers.js';

const CLIENT = path.join(import.meta.dirname, 'fixtures', 'client.mjs');
const pids: number[] = [];
afterEach(() => {
  for (const p of pids.splice(0)) if (alive(p)) process.kill(p, 'SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(ok: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; !(await ok()); i++) {
    if (i > 400) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts the client program in `ws`; resolves once its session and phase are started. */
async function client(ws: Workspace): Promise<{ child: ChildProcess; serverPid: number }> {
  const child = spawn(process.execPath, [CLIENT, BATON, ws.dir], {
    cwd: ws.dir,
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  pids.push(child.pid!);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await until(() => out.includes('\n') || child.exitCode !== null, 'the client got ready');
  const ready = JSON.parse(out.split('\n')[0]!) as { serverPid: number };
  pids.push(ready.serverPid);
  return { child, serverPid: ready.serverPid };
}

function manager(ws: Workspace, o: { host?: string; now?: () => Date } = {}): SessionManager {
  return new SessionManager({ store: new FileStore({ root: ws.store }), agent: 'reader', ...o });
}

describe('an MCP connection is a run', () => {
  it('a client SIGKILLed mid-phase: its server sees the disconnect and the session is interrupted (disconnected)', async () => {
    const ws = workspace();
    await ws.ok(['init']);
    const c = await client(ws);
    const m = manager(ws);
    expect(m.runs.status(await m.get('m1')).status).toBe('active');
    c.child.kill('SIGKILL');
    // The server reads the end of its stdin, ends the connection's run and exits.
    await until(() => !alive(c.serverPid), 'the server exited');
    const s = await m.get('m1');
    expect(s.status).toBe('interrupted');
    expect(s.statusCause).toMatchObject({ cause: 'disconnected' });
    expect(s.statusCause?.detail).toContain('in flight: build');
    expect(s.runs?.[0]?.ended).toMatchObject({ how: 'died', cause: 'disconnected' });
    const status = await ws.status('m1');
    expect(status.status).toBe('interrupted');
  }, 60_000);

  it('baton mcp SIGKILLed: not active at once on its host, nor elsewhere once its TTL passed', async () => {
    const ws = workspace();
    await ws.ok(['init']);
    const c = await client(ws);
    process.kill(c.serverPid, 'SIGKILL');
    await until(() => !alive(c.serverPid), 'the server is gone');
    const here = manager(ws);
    const s = await here.get('m1');
    expect(s.status).toBe('active');
    expect(here.runs.status(s)).toMatchObject({ status: 'interrupted', cause: { cause: 'run-died' } });
    expect((await ws.status('m1')).status).toBe('interrupted');
    const expiry = Date.parse(s.runs![0]!.expiresAt!);
    const elsewhere = (at: number): SessionManager =>
      manager(ws, { host: `${os.hostname()}-other`, now: () => new Date(at) });
    const before = elsewhere(expiry - 1);
    expect(before.runs.status(await before.get('m1')).status).toBe('active');
    const after = elsewhere(expiry);
    expect(after.runs.status(await after.get('m1'))).toMatchObject({
      status: 'interrupted',
      cause: { cause: 'run-lapsed' },
    });
    expect(s.runs![0]!.ttlMs).toBe(1000);
    c.child.kill('SIGKILL');
  }, 60_000);
});
