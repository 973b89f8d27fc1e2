/**
 * Crash safety of archive and delete in the file store, tested by really interrupting them: a
 * child process archives or deletes a session and kills itself with SIGKILL at each step
 * (the store's BATON_TEST_CRASH_AT hook). A store opened afterwards must find the session in
 * exactly one place (or, for a delete, nowhere, with one tombstone), list it at most once,
 * and have lost nothing else.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import type { RepairReport } from '../../src/store/types.js';
import { tempStoreDir } from './helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = path.join(REPO, 'test/fixtures/retention-op.ts');

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function child(root: string, op: 'archive' | 'delete' | 'open', id: string, crashAt?: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env['BATON_TEST_CRASH_AT'];
    if (crashAt) env['BATON_TEST_CRASH_AT'] = crashAt;
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, root, op, id], {
      cwd: REPO,
      env,
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

const dirs: Array<{ remove: () => void }> = [];
const open: FileStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) d.remove();
});

function manager(root: string): { m: SessionManager; store: FileStore; repairs: RepairReport[] } {
  const repairs: RepairReport[] = [];
  const store = new FileStore({ root });
  open.push(store);
  return { m: new SessionManager({ store, agent: 'test', onRepair: (r) => repairs.push(r) }), store, repairs };
}

/** A store with `target` (completed, a few events, a checkpoint) and `other` (paused, untouched by the tests). */
async function prepare(archived = false): Promise<{ root: string; target: StoredEvent[]; other: StoredEvent[] }> {
  const d = tempStoreDir('baton-retention-');
  dirs.push(d);
  const { m, store } = manager(d.root);
  await m.start({ title: 'Target', id: 'target', phases: [{ id: 'p', name: 'P' }] });
  await m.note('target', { text: 'first' });
  await m.phase('target', 'p', 'start');
  await m.phase('target', 'p', 'complete');
  await m.checkpoints.create('target', { name: 'by hand' });
  await m.lifecycle('target', 'complete');
  await m.start({ title: 'Other', id: 'other', switch: true });
  await m.note('other', { text: 'keep me' });
  await m.lifecycle('other', 'pause');
  if (archived) await m.archive('target');
  const target = await store.readEvents('target');
  const other = await store.readEvents('other');
  await store.close();
  return { root: d.root, target, other };
}

function exists(root: string, ...rel: string[]): boolean {
  return fs.existsSync(path.join(root, ...rel));
}

function entries(root: string, dir: string): string[] {
  try {
    return fs.readdirSync(path.join(root, dir));
  } catch {
    return [];
  }
}

/** Nothing but the untouched bystander and the expected target location. */
async function expectOtherIntact(m: SessionManager, store: FileStore, other: StoredEvent[]): Promise<void> {
  expect(await store.readEvents('other')).toEqual(other);
  expect((await m.get('other')).status).toBe('paused');
}

describe('archive interrupted by SIGKILL', () => {
  for (const step of ['after-marker', 'after-rename']) {
    it(`completes on the next open when killed ${step}`, async () => {
      const { root, target, other } = await prepare();
      const r = await child(root, 'archive', 'target', step);
      expect(r.signal, r.stderr).toBe('SIGKILL');
      // As the kill left it: the intent marker is there, the folder in one place or the other.
      expect(exists(root, 'pending', 'target.json')).toBe(true);
      expect(exists(root, 'sessions', 'target')).toBe(step === 'after-marker');
      expect(exists(root, 'archive', 'target')).toBe(step === 'after-rename');
      const marker = JSON.parse(fs.readFileSync(path.join(root, 'pending', 'target.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(marker).toMatchObject({
        format: 'baton.pending',
        op: 'archive',
        id: 'target',
        from: 'sessions/target',
        to: 'archive/target',
      });

      const { m, store, repairs } = manager(root);
      const rows = await m.list({ all: true });
      expect(rows.map((x) => x.id).sort()).toEqual(['other', 'target']);
      expect(rows.find((x) => x.id === 'target')?.archived).toBe(true);
      expect(repairs.map((x) => [x.kind, x.sessionId])).toEqual([['archive_completed', 'target']]);
      expect(exists(root, 'sessions', 'target')).toBe(false);
      expect(exists(root, 'archive', 'target')).toBe(true);
      expect(exists(root, 'archive', 'target', 'lock')).toBe(false);
      expect(entries(root, 'pending')).toEqual([]);
      // Nothing lost: every event, plus the session.archived the child recorded before moving.
      const events = await store.readEvents('target');
      expect(events.slice(0, target.length)).toEqual(target);
      expect(events.slice(target.length).map((e) => e.type)).toEqual(['session.archived']);
      expect(await store.isArchived('target')).toBe(true);
      expect((await m.get('target')).archived).toBe(true);
      expect((await store.listCheckpoints('target')).map((c) => c.valid)).toEqual([true, true]);
      await expectOtherIntact(m, store, other);

      // The next open has nothing left to do.
      const again = manager(root);
      expect((await again.m.list({ all: true })).length).toBe(2);
      expect(again.repairs).toEqual([]);
    });
  }

  it('finishes a move that was recorded but never started (killed before the marker)', async () => {
    const { root, target } = await prepare();
    // The journal says archived, the folder is still live: what a kill between the two leaves.
    const { m, store } = manager(root);
    await m.change('target', () => ({ events: [{ type: 'session.archived', data: {} }], result: undefined }));
    expect(await store.isArchived('target')).toBe(false);
    await m.archive('target');
    expect(await store.isArchived('target')).toBe(true);
    expect((await store.readEvents('target')).length).toBe(target.length + 1);
  });

  it('a clean run leaves no marker', async () => {
    const { root } = await prepare();
    const r = await child(root, 'archive', 'target');
    expect(r.code, r.stderr).toBe(0);
    expect(entries(root, 'pending')).toEqual([]);
    expect(exists(root, 'archive', 'target')).toBe(true);
  });
});

describe('delete interrupted by SIGKILL', () => {
  for (const archived of [false, true]) {
    for (const step of ['after-marker', 'after-rename', 'after-tombstone', 'after-trash']) {
      it(`completes on the next open when killed ${step} (${archived ? 'archived' : 'live'} session)`, async () => {
        const { root, target, other } = await prepare(archived);
        const where = archived ? 'archive' : 'sessions';
        const r = await child(root, 'delete', 'target', step);
        expect(r.signal, r.stderr).toBe('SIGKILL');
        expect(exists(root, 'pending', 'target.json')).toBe(true);
        expect(exists(root, where, 'target')).toBe(step === 'after-marker');
        expect(entries(root, 'trash').length).toBe(step === 'after-rename' || step === 'after-tombstone' ? 1 : 0);

        const { m, store, repairs } = manager(root);
        expect((await m.list({ all: true })).map((x) => x.id)).toEqual(['other']);
        expect(repairs.map((x) => [x.kind, x.sessionId])).toEqual([['delete_completed', 'target']]);
        expect(exists(root, 'sessions', 'target') || exists(root, 'archive', 'target')).toBe(false);
        expect(entries(root, 'trash')).toEqual([]);
        expect(entries(root, 'pending')).toEqual([]);
        expect(await store.exists('target')).toBe(false);
        const tombstones = await m.listDeleted();
        expect(tombstones).toEqual([
          { id: 'target', deletedAt: expect.any(String), title: 'Target', status: 'completed', archived },
        ]);
        await expectOtherIntact(m, store, other);

        const again = manager(root);
        expect((await again.m.list({ all: true })).map((x) => x.id)).toEqual(['other']);
        expect(again.repairs).toEqual([]);
        expect(await again.m.listDeleted()).toHaveLength(1);

        // The freed id is taken again: the new session starts clean, beside the old row's revision.
        const reborn = manager(root);
        await reborn.m.start({ title: 'Target again', id: 'target' });
        const events = await reborn.store.readEvents('target');
        expect((await reborn.store.load('target')).revision).toBe(events.length);
        expect(events.length).toBeLessThan(target.length);
        expect((await reborn.m.get('target')).title).toBe('Target again');
        await expectOtherIntact(reborn.m, reborn.store, other);
      });
    }
  }

  it('several processes opening the store at once finish it exactly once', async () => {
    const { root } = await prepare();
    const r = await child(root, 'delete', 'target', 'after-rename');
    expect(r.signal).toBe('SIGKILL');
    const runs = await Promise.all([1, 2, 3, 4].map(() => child(root, 'open', 'x')));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const reported = runs.flatMap(
      (run) => (JSON.parse(run.stdout.replace(/^done /, '')) as { repairs: string[] }).repairs,
    );
    expect(reported).toEqual(['delete_completed']);
    for (const run of runs)
      expect((JSON.parse(run.stdout.replace(/^done /, '')) as { ids: string[] }).ids).toEqual(['other']);
    const { m } = manager(root);
    expect((await m.listDeleted()).map((t) => t.id)).toEqual(['target']);
    expect(fs.readFileSync(path.join(root, 'tombstones.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a clean run removes the folder and leaves a tombstone, no marker, an empty trash', async () => {
    const { root } = await prepare();
    const r = await child(root, 'delete', 'target');
    expect(r.code, r.stderr).toBe(0);
    expect(entries(root, 'pending')).toEqual([]);
    expect(entries(root, 'trash')).toEqual([]);
    expect(exists(root, 'sessions', 'target')).toBe(false);
    const { m } = manager(root);
    expect((await m.listDeleted()).map((t) => t.id)).toEqual(['target']);
  });
});

describe('markers and trash on open', () => {
  it('leaves the operation of a live process alone, and finishes it once that process is gone', async () => {
    const { root } = await prepare();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      fs.mkdirSync(path.join(root, 'pending'), { mode: 0o700 });
      const marker = {
        format: 'baton.pending',
        v: 1,
        op: 'archive',
        id: 'target',
        from: 'sessions/target',
        to: 'archive/target',
        pid: sleeper.pid,
        host: os.hostname(),
        startedAt: new Date().toISOString(),
      };
      fs.writeFileSync(path.join(root, 'pending', 'target.json'), JSON.stringify(marker));
      const first = manager(root);
      expect((await first.m.list({ all: true })).find((x) => x.id === 'target')?.archived).toBe(false);
      expect(first.repairs).toEqual([]);
      expect(exists(root, 'pending', 'target.json')).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.once('close', r));
    }
    const later = manager(root);
    expect((await later.m.list({ all: true })).find((x) => x.id === 'target')?.archived).toBe(true);
    expect(later.repairs.map((x) => x.kind)).toEqual(['archive_completed']);
  });

  it('rolls an archive back when both folders exist: nothing moved, reported', async () => {
    const { root } = await prepare();
    fs.mkdirSync(path.join(root, 'archive', 'target'), { mode: 0o700 });
    fs.writeFileSync(path.join(root, 'archive', 'target', 'stray.txt'), 'x');
    fs.mkdirSync(path.join(root, 'pending'), { mode: 0o700 });
    const marker = {
      format: 'baton.pending',
      v: 1,
      op: 'archive',
      id: 'target',
      from: 'sessions/target',
      to: 'archive/target',
      pid: 999_999_999,
      host: os.hostname(),
      startedAt: new Date().toISOString(),
    };
    fs.writeFileSync(path.join(root, 'pending', 'target.json'), JSON.stringify(marker));
    const { m, repairs } = manager(root);
    await m.list({ all: true });
    expect(repairs.map((x) => x.kind)).toEqual(['archive_rolled_back']);
    expect(exists(root, 'sessions', 'target', 'journal.jsonl')).toBe(true);
    expect(exists(root, 'archive', 'target', 'stray.txt')).toBe(true);
    expect(entries(root, 'pending')).toEqual([]);
  });

  it('never acts on a marker whose paths are not its own: moved aside, nothing touched', async () => {
    const { root } = await prepare();
    fs.mkdirSync(path.join(root, 'pending'), { mode: 0o700 });
    const marker = {
      format: 'baton.pending',
      v: 1,
      op: 'delete',
      id: 'target',
      from: 'sessions/other',
      to: 'trash/target-1',
      pid: 999_999_999,
      host: os.hostname(),
      startedAt: 'x',
      tombstone: { id: 'target', deletedAt: 'x', title: 't', status: 'completed' },
    };
    fs.writeFileSync(path.join(root, 'pending', 'target.json'), JSON.stringify(marker));
    const { m, repairs } = manager(root);
    expect((await m.list({ all: true })).map((x) => x.id).sort()).toEqual(['other', 'target']);
    expect(repairs.map((x) => x.kind)).toEqual(['pending_failed']);
    expect(entries(root, 'pending').filter((n) => n.endsWith('.json'))).toEqual([]);
    expect(entries(root, 'pending').some((n) => n.startsWith('target.json.corrupt-'))).toBe(true);
    expect(await m.listDeleted()).toEqual([]);
  });

  it('removes leftovers in the trash that no marker names, and temp markers of dead processes', async () => {
    const { root } = await prepare();
    fs.mkdirSync(path.join(root, 'trash', 'gone-2026-01-01T00-00-00-000Z-1', 'checkpoints'), { recursive: true });
    fs.writeFileSync(path.join(root, 'trash', 'gone-2026-01-01T00-00-00-000Z-1', 'journal.jsonl'), '{}\n');
    fs.mkdirSync(path.join(root, 'pending'), { mode: 0o700 });
    fs.writeFileSync(path.join(root, 'pending', 'target.json.tmp-999999999-abc-1'), '{');
    const { m, repairs } = manager(root);
    expect((await m.list({ all: true })).length).toBe(2);
    expect(repairs).toEqual([]);
    expect(entries(root, 'trash')).toEqual([]);
    expect(entries(root, 'pending')).toEqual([]);
  });

  it('a tombstone line cut short by a crash does not swallow the next one', async () => {
    const { root } = await prepare();
    fs.writeFileSync(path.join(root, 'tombstones.jsonl'), '{"id":"half","deletedAt":"2026');
    const { m } = manager(root);
    await m.delete('target');
    expect((await m.listDeleted()).map((t) => t.id)).toEqual(['target']);
  });
});
