/**
 * `baton pin` / `unpin`, `baton cleanup`, `baton list --deleted`, end to end through the built
 * CLI; and archive/delete interrupted by a real SIGKILL in the middle (the store's
 * BATON_TEST_CRASH_AT hook), then finished by the next command.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BATON, baseEnv, expectError, expectJsonError, workspace } from './helpers.js';
import type { ListRow, Workspace } from './helpers.js';

const DAY = 86_400_000;
/** BATON_NOW `days` days from now (the CLI's clock starts there and runs on). */
function later(days: number): Record<string, string> {
  return { BATON_NOW: new Date(Date.now() + days * DAY).toISOString() };
}

interface CleanupJson {
  dryRun: boolean;
  actions: Array<{ id: string; action: 'archive' | 'delete'; status: string; updatedAt: string }>;
}

interface TombstoneJson {
  id: string;
  deletedAt: string;
  title: string;
  status: string;
  archived: boolean;
}

/** A workspace with sessions in every state cleanup cares about. */
async function zoo(): Promise<Workspace> {
  const ws = workspace();
  const ok = (args: string[]) => ws.ok(args);
  await ok(['start', 'Done', '--id', 'done']);
  await ok(['complete']);
  await ok(['start', 'Failed', '--id', 'failed']);
  await ok(['fail']);
  await ok(['start', 'Gave up', '--id', 'gave-up']);
  await ok(['abandon']);
  await ok(['start', 'Paused', '--id', 'paused']);
  await ok(['pause']);
  await ok(['start', 'Pinned', '--id', 'pinned']);
  await ok(['complete']);
  await ok(['pin', 'pinned']);
  await ok(['start', 'Running', '--id', 'running']);
  return ws;
}

/** Spawns the CLI and resolves with its exit code or the signal that killed it. */
function runRaw(
  ws: Workspace,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BATON, ...args], {
      cwd: ws.dir,
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('pin and unpin', () => {
  it('pins the session acted on or the one named; status and list show it', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Keep', '--id', 'k']);
    expect((await ws.ok(['pin'])).stdout).toBe('Pinned k\n');
    expect((await ws.status()).pinned).toBe(true);
    expect((await ws.ok(['status'])).stdout).toMatch(/^Status: active · pinned · revision 2/m);
    expect((await ws.ok(['list'])).stdout).toMatch(/^\* k\s+active pinned /m);
    const rows = await ws.json<ListRow[]>(['list']);
    expect(rows[0]).toMatchObject({ id: 'k', pinned: true });
    expect(await ws.json(['unpin', 'k', '--reason', 'done with it'])).toEqual({
      session: 'k',
      revision: 3,
      status: 'active',
      pinned: false,
    });
    expect((await ws.status()).pinned).toBe(false);
    const events = await ws.log();
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      ['session.pinned', { reason: null }],
      ['session.unpinned', { reason: 'done with it' }],
    ]);
  });

  it('refuses a pin that changes nothing, an unknown session, and a stale --if-revision', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Keep', '--id', 'k']);
    expect(expectError(await ws.run(['unpin']), 'INVALID_TRANSITION').hint).toBe('Nothing to do.');
    await ws.ok(['pin']);
    expectError(await ws.run(['pin']), 'INVALID_TRANSITION');
    expectJsonError(await ws.run(['pin', 'nope', '--json']), 'NOT_FOUND');
    expectError(await ws.run(['unpin', '--if-revision', '1']), 'CONFLICT');
  });
});

describe('cleanup', () => {
  it('--dry-run prints one line per session and changes nothing; --json has the documented shape', async () => {
    const ws = await zoo();
    const before = fs.readdirSync(path.join(ws.store, 'sessions')).sort();
    const human = await ws.ok(['cleanup', '--dry-run'], { env: later(40) });
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^ACTION {9}ID {7}STATUS {5}UPDATED {2}TITLE$/);
    expect(lines[1]).toMatch(/^would archive {2}gave-up {2}abandoned {2}40d ago {2}Gave up$/);
    expect(lines[2]).toMatch(/^would archive {2}failed {3}failed {5}40d ago {2}Failed$/);
    expect(lines[3]).toMatch(/^would archive {2}done {5}completed {2}40d ago {2}Done$/);
    expect(lines[4]).toBe('Dry run: nothing was changed (3 sessions).');
    const json = await ws.json<CleanupJson>(['cleanup', '--dry-run'], { env: later(40) });
    expect(Object.keys(json)).toEqual(['dryRun', 'actions']);
    expect(json.dryRun).toBe(true);
    expect(json.actions.map((a) => Object.keys(a))).toEqual(Array(3).fill(['id', 'action', 'status', 'updatedAt']));
    expect(json.actions.map((a) => [a.id, a.action, a.status])).toEqual([
      ['gave-up', 'archive', 'abandoned'],
      ['failed', 'archive', 'failed'],
      ['done', 'archive', 'completed'],
    ]);
    expect(Date.parse(json.actions[0]!.updatedAt)).toBeLessThanOrEqual(Date.now());
    expect(fs.readdirSync(path.join(ws.store, 'sessions')).sort()).toEqual(before);
    // Nothing is old enough today.
    expect((await ws.ok(['cleanup', '--dry-run'])).stdout).toBe('Nothing to clean up (dry run).\n');
  });

  it('archives by default; never active, paused (unless asked), pinned or recent sessions', async () => {
    const ws = await zoo();
    const r = await ws.ok(['cleanup'], { env: later(31) });
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .slice(1)
        .map((l) => l.split(/\s+/).slice(0, 2)),
    ).toEqual([
      ['archived', 'gave-up'],
      ['archived', 'failed'],
      ['archived', 'done'],
    ]);
    const rows = await ws.json<ListRow[]>(['list', '--all']);
    expect(
      rows
        .filter((x) => x.archived)
        .map((x) => x.id)
        .sort(),
    ).toEqual(['done', 'failed', 'gave-up']);
    expect(fs.readdirSync(path.join(ws.store, 'sessions')).sort()).toEqual(['paused', 'pinned', 'running']);
    expect((await ws.status('running')).status).toBe('active');
    expect((await ws.ok(['cleanup'], { env: later(31) })).stdout).toBe('Nothing to clean up.\n');
    // --status widens to paused sessions (this one is not the workspace's current session).
    const paused = await ws.json<CleanupJson>(['cleanup', '--status', 'paused'], { env: later(31) });
    expect(paused.actions.map((a) => [a.id, a.action, a.status])).toEqual([['paused', 'archive', 'paused']]);
    // The pinned one stays whatever is asked.
    expect(
      (
        await ws.json<CleanupJson>(['cleanup', '--status', 'completed', '--delete', '--dry-run'], { env: later(90) })
      ).actions
        .map((a) => a.id)
        .sort(),
    ).toEqual(['done']);
  });

  it('--older-than and --keep', async () => {
    const ws = await zoo();
    const ids = async (args: string[], days: number) =>
      (await ws.json<CleanupJson>(['cleanup', '--dry-run', ...args], { env: later(days) })).actions.map((a) => a.id);
    expect(await ids(['--older-than', '12h'], 1)).toEqual(['gave-up', 'failed', 'done']);
    expect(await ids(['--older-than', '2w'], 13)).toEqual([]);
    expect(await ids(['--older-than', '2w'], 15)).toEqual(['gave-up', 'failed', 'done']);
    expect(await ids(['--keep', '2'], 40)).toEqual(['done']);
    expect(await ids(['--keep', '0', '--status', 'completed,failed'], 40)).toEqual(['failed', 'done']);
  });

  it('refuses bad options with BAD_INPUT', async () => {
    const ws = await zoo();
    expect(expectError(await ws.run(['cleanup', '--older-than', '30']), 'BAD_INPUT').hint).toMatch(/30d/);
    expect(expectError(await ws.run(['cleanup', '--status', 'active']), 'BAD_INPUT').message).toMatch(
      /never touches active/,
    );
    expectError(await ws.run(['cleanup', '--status', 'interrupted,completed']), 'BAD_INPUT');
    expectError(await ws.run(['cleanup', '--status', 'finished']), 'BAD_INPUT');
    expectJsonError(await ws.run(['cleanup', '--keep', '-1', '--json']), 'BAD_INPUT');
    expectError(await ws.run(['cleanup', '--keep', 'many']), 'BAD_INPUT');
  });

  it('--delete deletes archived and live sessions and leaves tombstones for list --deleted', async () => {
    const ws = await zoo();
    await ws.ok(['archive', 'done']);
    const r = await ws.json<CleanupJson>(['cleanup', '--delete'], { env: later(40) });
    expect(r.dryRun).toBe(false);
    expect(r.actions.map((a) => [a.id, a.action]).sort()).toEqual([
      ['done', 'delete'],
      ['failed', 'delete'],
      ['gave-up', 'delete'],
    ]);
    expect((await ws.json<ListRow[]>(['list', '--all'])).map((x) => x.id).sort()).toEqual([
      'paused',
      'pinned',
      'running',
    ]);
    expect(fs.readdirSync(path.join(ws.store, 'archive'))).toEqual([]);
    expectError(await ws.run(['status', '--session', 'done']), 'NOT_FOUND');
    const tombs = await ws.json<TombstoneJson[]>(['list', '--deleted']);
    expect(tombs.map((t) => [t.id, t.title, t.status, t.archived]).sort()).toEqual([
      ['done', 'Done', 'completed', true],
      ['failed', 'Failed', 'failed', false],
      ['gave-up', 'Gave up', 'abandoned', false],
    ]);
    for (const t of tombs) expect(Number.isNaN(Date.parse(t.deletedAt))).toBe(false);
    const human = (await ws.ok(['list', '--deleted'], { env: later(41) })).stdout.trimEnd().split('\n');
    expect(human).toHaveLength(4);
    expect(human.find((l) => l.startsWith('done'))).toMatch(/^done\s+completed archived\s+1d ago\s+Done$/);
    // The id is free again; the tombstone stays.
    await ws.ok(['start', 'Done again', '--id', 'done', '--switch']);
    expect((await ws.json<TombstoneJson[]>(['list', '--deleted'])).filter((t) => t.id === 'done')).toHaveLength(1);
    expect((await ws.ok(['list', '--deleted'], { cwd: workspace().dir, env: { BATON_DIR: ws.store } })).stdout).toMatch(
      /Gave up/,
    );
  });

  it('list --deleted on a store without deletions', async () => {
    const ws = await zoo();
    expect((await ws.ok(['list', '--deleted'])).stdout).toBe('No deleted sessions.\n');
    expect(await ws.json(['list', '--deleted'])).toEqual([]);
  });
});

describe('cleanup interrupted by SIGKILL', () => {
  it('an archive killed after its intent marker is finished by the next command, which says so', async () => {
    const ws = await zoo();
    const r = await runRaw(ws, ['cleanup', '--status', 'completed'], {
      ...later(40),
      BATON_TEST_CRASH_AT: 'archive:after-marker',
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    expect(fs.existsSync(path.join(ws.store, 'pending', 'done.json'))).toBe(true);
    expect(fs.existsSync(path.join(ws.store, 'sessions', 'done'))).toBe(true);
    const list = await ws.run(['list', '--all', '--json']);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(/^repaired\[archive_completed\]: Session done: finished an interrupted archive/m);
    const rows = JSON.parse(list.stdout) as ListRow[];
    expect(rows.filter((x) => x.id === 'done')).toEqual([expect.objectContaining({ archived: true })]);
    expect(fs.existsSync(path.join(ws.store, 'sessions', 'done'))).toBe(false);
    expect(fs.readdirSync(path.join(ws.store, 'pending'))).toEqual([]);
    expect((await ws.log('done')).slice(-1)[0]!.type).toBe('session.archived');
    // Quiet from now on.
    await ws.ok(['list', '--all']);
  });

  for (const step of ['after-marker', 'after-rename', 'after-tombstone']) {
    it(`a deletion killed ${step} is finished by the next command`, async () => {
      const ws = await zoo();
      const r = await runRaw(ws, ['cleanup', '--delete', '--status', 'failed'], {
        ...later(40),
        BATON_TEST_CRASH_AT: `delete:${step}`,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      const st = await ws.run(['status', '--session', 'failed']);
      expectError({ ...st, stderr: st.stderr.replace(/^repaired.*\n/m, '') }, 'NOT_FOUND');
      expect(st.stderr).toMatch(/^repaired\[delete_completed\]: Session failed: finished an interrupted deletion/m);
      expect((await ws.json<ListRow[]>(['list', '--all'])).map((x) => x.id).sort()).toEqual([
        'done',
        'gave-up',
        'paused',
        'pinned',
        'running',
      ]);
      expect((await ws.json<TombstoneJson[]>(['list', '--deleted'])).map((t) => t.id)).toEqual(['failed']);
      expect(fs.readdirSync(path.join(ws.store, 'trash'))).toEqual([]);
      expect(fs.readdirSync(path.join(ws.store, 'pending'))).toEqual([]);
    });
  }
});
