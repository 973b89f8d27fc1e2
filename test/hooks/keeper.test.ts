/**
 * The keeper a conversation's first hook starts (`baton hook keep`, the built bundle): it
 * renews the run while the CLI's process lives, records the death as soon as the process is
 * gone and exits, exits when the run ends (SessionEnd) with the process still alive, and is
 * not started with BATON_HOOK_KEEPER=off. A real long-lived process stands in for the CLI.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, hookSpawned, workspace } from './helpers.js';

const procs: ChildProcess[] = [];
const keeperPids: number[] = [];
function cliProcess(): ChildProcess {
  const p = spawn('sleep', ['600'], { stdio: 'ignore' });
  procs.push(p);
  return p;
}
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL');
  for (const pid of keeperPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function keepers(dir: string): number[] {
  const k = path.join(dir, '.baton', 'hooks', 'keepers');
  const pids = fs.existsSync(k)
    ? fs
        .readdirSync(k)
        .map((f) => Number(fs.readFileSync(path.join(k, f), 'utf8')))
        .filter((n) => n > 0)
    : [];
  keeperPids.push(...pids);
  return pids;
}

describe('the keeper of a conversation', () => {
  it('renews the run while the CLI lives, records its death when it is killed, and exits', async () => {
    const w = await workspace();
    const cli = cliProcess();
    const env = { BATON_HOOK_AGENT_PID: String(cli.pid), BATON_HOOK_KEEPER_RENEW_MS: '500' };
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionStart', w.dir)), w.dir, env);
    const [keeper] = await until('a keeper', () => (keepers(w.dir).length ? keepers(w.dir) : null));
    const first = (await w.m().get('hooked')).runs![0]!;
    expect(first).toMatchObject({ kind: 'conversation', process: { pid: cli.pid }, ttlMs: 120_000 });
    await until(
      'a renewal',
      async () => ((await w.m().get('hooked')).runs![0]!.expiresAt ?? '') > (first.expiresAt ?? ''),
    );
    cli.kill('SIGKILL');
    const dead = await until('the death recorded', async () => (await w.m().get('hooked')).runs![0]!.ended);
    expect(dead).toMatchObject({ how: 'died', cause: 'process-gone' });
    expect((await w.m().get('hooked')).status).toBe('interrupted');
    await until('the keeper to exit', () => !alive(keeper!));
    expect(keepers(w.dir)).toEqual([]);
  }, 60_000);

  it('a SessionEnd arriving after the grace recorded the death turns it into a clean end: the run finished, the session paused', async () => {
    const w = await workspace();
    const cli = cliProcess();
    const env = { BATON_HOOK_AGENT_PID: String(cli.pid) };
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionStart', w.dir)), w.dir, env);
    await until('a keeper', () => (keepers(w.dir).length ? keepers(w.dir) : null));
    // The CLI exits without waiting for its SessionEnd hook, which comes late (after the 1.5 s grace).
    cli.kill('SIGKILL');
    await until('the death recorded', async () => (await w.m().get('hooked')).runs![0]!.ended);
    const died = await w.m().get('hooked');
    expect([died.status, died.statusCause?.cause, died.runs![0]!.ended?.how]).toEqual([
      'interrupted',
      'run-died',
      'died',
    ]);
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionEnd', w.dir)), w.dir, env);
    const s = await w.m().get('hooked');
    expect(s.runs![0]!.ended).toMatchObject({ how: 'finished', cause: 'agent-session-end' });
    expect(s.runs![0]!.ended?.detail).toContain('its end arrived after its death was recorded (process-gone)');
    expect([s.status, s.statusCause?.cause]).toEqual(['paused', 'agent-session-end']);
    // A second, duplicate SessionEnd changes nothing more; the death stays in the history.
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionEnd', w.dir)), w.dir, env);
    const again = await w.m().get('hooked');
    expect([again.status, again.runs![0]!.ended]).toEqual([s.status, s.runs![0]!.ended]);
    const ends = (await w.m().log('hooked')).filter((e) => e.type === 'run.ended');
    expect(ends.map((e) => (e.data as { how: string }).how)).toEqual(['died', 'finished']);
  }, 60_000);

  it('exits when its run ends (SessionEnd) while the CLI process still lives', async () => {
    const w = await workspace();
    const cli = cliProcess();
    const env = { BATON_HOOK_AGENT_PID: String(cli.pid) };
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionStart', w.dir)), w.dir, env);
    const [keeper] = await until('a keeper', () => (keepers(w.dir).length ? keepers(w.dir) : null));
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionEnd', w.dir)), w.dir, env);
    await until('the keeper to exit', () => !alive(keeper!));
    expect(alive(cli.pid!)).toBe(true);
    const s = await w.m().get('hooked');
    expect([s.status, s.runs![0]!.ended?.how]).toEqual(['paused', 'finished']);
  }, 60_000);

  it('is not started with BATON_HOOK_KEEPER=off (the next hook or command on the host still finds the death)', async () => {
    const w = await workspace();
    const cli = cliProcess();
    await hookSpawned('claude', JSON.stringify(fixture('claude', 'SessionStart', w.dir)), w.dir, {
      BATON_HOOK_AGENT_PID: String(cli.pid),
      BATON_HOOK_KEEPER: 'off',
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(keepers(w.dir)).toEqual([]);
    cli.kill('SIGKILL');
    await new Promise((r) => cli.once('exit', r));
    const m = w.m();
    expect(m.runs.status(await m.get('hooked')).status).toBe('interrupted');
    await m.store.close();
  }, 60_000);
});
