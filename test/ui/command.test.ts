/**
 * `baton ui` as a process: the URL (with its token) alone on stdout, the server only loaded by
 * this command, a warning on stderr when binding another address than loopback, a clean stop
 * on Ctrl+C (SIGINT), and refusals of bad options before anything starts.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BATON, ROOT, baseEnv, expectError, needBuiltCli, withSession, workspace } from '../cli/helpers.js';

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts `baton ui …` and waits for its URL line. */
function startUi(cwd: string, args: string[] = [], env: Record<string, string> = {}): Promise<Running> {
  needBuiltCli();
  const child = spawn(process.execPath, [BATON, 'ui', ...args], {
    cwd,
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) resolve({ child, url: line, stdout: () => out, stderr: () => err, exited });
    });
    void exited.then((code) => reject(new Error(`baton ui exited (${code}) before printing its URL:\n${err}`)));
  });
}

describe('baton ui (the process)', () => {
  it('prints only its URL on stdout, serves with the token, loads node:http, and stops cleanly on SIGINT', async () => {
    const ws = await withSession('s1');
    const ui = await startUi(ws.dir, [], {
      NODE_OPTIONS: `--require ${path.join(ROOT, 'test/fixtures/trace-require.cjs')}`,
    });
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(ui.url).searchParams.get('token')!;
    const api = new URL('/api/sessions', ui.url);
    expect((await fetch(api)).status).toBe(401);
    const r = await fetch(api, { headers: { Authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { rows: Array<{ id: string }> }).rows.map((x) => x.id)).toEqual(['s1']);
    expect(ui.stderr()).toContain('TRACE: node:http loaded');
    ui.child.kill('SIGINT');
    const t0 = Date.now();
    expect(await ui.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(ui.stdout()).toBe(`${ui.url}\n`);
    expect(ui.stderr()).toContain('dashboard stopped');
    await expect(fetch(api)).rejects.toThrow();
  });

  it('warns on stderr when binding another address than loopback, and still needs the token', async () => {
    const ws = await withSession('s1');
    const ui = await startUi(ws.dir, ['--host', '0.0.0.0', '--json']);
    const shown = JSON.parse(ui.stdout()) as { url: string; host: string; port: number };
    expect(shown.host).toBe('0.0.0.0');
    expect(ui.stderr()).toMatch(/warning: baton ui binds 0\.0\.0\.0: anyone who can reach this address/);
    expect((await fetch(new URL('/api/sessions', shown.url))).status).toBe(401);
    ui.child.kill('SIGTERM');
    expect(await ui.exited).toBe(0);
  });

  it('--open hands the URL to the system browser (xdg-open here)', async () => {
    const ws = await withSession('s1');
    const bin = ws.path('fake-bin');
    const seen = ws.path('opened.txt');
    ws.write('fake-bin/xdg-open', `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`);
    fs.chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const ui = await startUi(ws.dir, ['--open'], { PATH: `${bin}:${process.env['PATH'] ?? ''}` });
    for (let i = 0; i < 50 && !fs.existsSync(seen); i++) await new Promise((r) => setTimeout(r, 100));
    expect(fs.readFileSync(seen, 'utf8')).toBe(ui.url);
    ui.child.kill('SIGINT');
    expect(await ui.exited).toBe(0);
  });

  it('refuses a bad port, a port in use and a missing store, and then exits', async () => {
    const ws = await withSession('s1');
    for (const port of ['abc', '70000', '-1']) {
      const r = await ws.run(['ui', '--port', port]);
      expectError(r, 'BAD_INPUT');
    }
    // A port in use: refused, and the process ends (no socket left open).
    const first = await startUi(ws.dir);
    const taken = new URL(first.url).port;
    const busy = await ws.run(['ui', '--port', taken], { spawn: true });
    expectError(busy, 'BAD_INPUT');
    expect(busy.stderr).toContain(`Port ${taken} on 127.0.0.1 is in use`);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    const empty = workspace();
    const r = await empty.run(['ui']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error\[[A-Z_]+\]: .+\nhint: /);
  });
});
