/**
 * `manager.runs.hold` with real processes (the built library, dist/index.js: run
 * `node scripts/build.mjs` first): a program SIGKILLed inside `hold` leaves its session
 * interrupted at once on its host (its process is gone) and, for other hosts, once its TTL
 * passed; a holder frozen (SIGSTOP) past its TTL is taken over, and its late writes after the
 * takeover are FENCED, while the new holder's work stands.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/open.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempDir } from '../support/temp.js';

const PROGRAM = path.join(import.meta.dirname, 'fixtures', 'hold-program.mjs');
const TTL = 1500;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A file store with session s1 (phases build, test); returns its .baton folder. */
async function store(): Promise<string> {
  const root = tempDir('baton-hold-');
  const dir = path.join(root, '.baton');
  const m = openManager({ dir, create: true, cwd: root, agent: 'setup' });
  await m.start({
    title: 'Held',
    id: 's1',
    phases: [
      { id: 'build', name: 'Build' },
      { id: 'test', name: 'Test' },
    ],
  });
  await m.close();
  return dir;
}

/** Starts the program; resolves its parsed stdout lines as they come. */
function program(dir: string): {
  child: ChildProcess;
  next: (pred: (o: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
} {
  const child = spawn(process.execPath, [PROGRAM, dir, String(TTL), '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      seen.push(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
      buf = buf.slice(i + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const next = async (pred: (o: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const hit = seen.find(pred);
      if (hit) return hit;
      if (child.exitCode !== null) throw new Error(`the program exited: ${JSON.stringify(seen)}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, next };
}

function manager(dir: string, o: { host?: string; now?: () => Date } = {}): SessionManager {
  return new SessionManager({
    store: new FileStore({ root: dir }),
    agent: 'reader',
    ...(o.host ? { host: o.host } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
}

describe('a program inside runs.hold', () => {
  it('SIGKILLed: its session reads interrupted at once on its host, and on another host once the TTL passed', async () => {
    const dir = await store();
    const p = program(dir);
    const ready = await p.next((o) => o['ready'] === true);
    const here = manager(dir);
    const before = await here.get('s1');
    expect(here.runs.status(before).status).toBe('active');
    expect(before.phases.find((x) => x.id === 'build')?.owner).toBe(ready['runId']);
    p.child.kill('SIGKILL');
    await new Promise((r) => p.child.once('exit', r));

    const s = await here.get('s1');
    // This host checks the process: gone, so interrupted now, naming the run and its phase.
    expect(here.runs.status(s)).toMatchObject({ status: 'interrupted', cause: { cause: 'run-died' } });
    expect(here.runs.status(s).cause?.detail).toContain('in flight: build');
    // Another host cannot check the process: active until the TTL passed, interrupted after.
    const expiry = Date.parse(s.runs!.find((r) => r.id === ready['runId'])!.expiresAt!);
    const elsewhere = (at: number): SessionManager =>
      manager(dir, { host: `${os.hostname()}-other`, now: () => new Date(at) });
    const seenBefore = elsewhere(expiry - 1);
    expect(seenBefore.runs.status(await seenBefore.get('s1')).status).toBe('active');
    const seenAfter = elsewhere(expiry);
    expect(seenAfter.runs.status(await seenAfter.get('s1')).status).toBe('interrupted');
    // A sweep on its host writes the death down.
    expect((await here.runs.sweep('s1')).map((r) => r.id)).toEqual([ready['runId']]);
    const after = await here.get('s1');
    expect(after.status).toBe('interrupted');
    expect(after.runs!.find((r) => r.id === ready['runId'])!.ended).toMatchObject({
      how: 'died',
      cause: 'process-gone',
    });
  }, 30_000);

  it('frozen (its event loop blocked) past its TTL and taken over: its late writes are FENCED and nothing of them is stored', async () => {
    const dir = await store();
    const p = program(dir);
    const ready = await p.next((o) => o['ready'] === true);
    // Frozen between two writes (a file-store lock is never held frozen): no heartbeat, no write.
    const wake = path.join(dir, '..', 'wake');
    p.child.kill('SIGUSR1');
    await p.next((o) => o['frozen'] === true);
    const m = manager(dir);
    // Wait (real time) until its run and lease lapsed: it stopped renewing.
    for (;;) {
      const s = await m.get('s1');
      if (m.runs.status(s).status === 'interrupted') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const notesBefore = (await m.get('s1')).notes.length;
    await m.runs.hold(
      's1',
      async (h) => {
        expect(h.token).toBeGreaterThan(Number(ready['token']));
        await h.claimPhase('build');
        // The zombie wakes up and writes: refused.
        fs.writeFileSync(wake, '');
        const refused = await p.next((o) => 'refused' in o);
        expect(refused['refused']).toBe('FENCED');
        await m.note('s1', { text: 'the new holder' }, h.options);
      },
      { ttlMs: 60_000, heartbeatMs: 30_000, agent: 'taker' },
    );
    expect((await p.next((o) => 'holdRejected' in o))['holdRejected']).toBe('FENCED');
    const s = await m.get('s1');
    expect(s.notes.slice(notesBefore).map((n) => n.text)).toEqual(['the new holder']);
    expect(s.runs!.find((r) => r.id === ready['runId'])!.ended?.how).toBe('died');
  }, 30_000);
});
