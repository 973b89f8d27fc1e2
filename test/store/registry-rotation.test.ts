/**
 * index.log does not grow for ever: past a size it is folded into index.json and started
 * afresh. No row may be lost on the way: not by a writer that keeps the old log open, not
 * by writers and listers racing the rotation in separate processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { runFixture, tempStoreDir } from './helpers.js';

let dir: ReturnType<typeof tempStoreDir>;
const open: FileStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  dir?.remove();
});

function store(rotateBytes?: number): FileStore {
  const s = new FileStore({ root: dir.root, ...(rotateBytes ? { registryLogMaxBytes: rotateBytes } : {}) });
  open.push(s);
  return s;
}

const logFile = (): string => path.join(dir.root, 'index.log');

/** id → pinned, as listed by a fresh store with the default settings. */
async function listedPins(): Promise<Record<string, boolean>> {
  const r = await store().list();
  expect(r.repairs.map((x) => x.kind)).toEqual([]);
  return Object.fromEntries(r.summaries.map((s) => [s.id, s.pinned === true]).sort());
}

describe('index.log rotation', () => {
  it('folds a long log into index.json and starts a new one; list shows every latest row', async () => {
    dir = tempStoreDir('baton-rot-');
    const m = new SessionManager({ store: store(4000), agent: 't' });
    for (const id of ['a', 'b', 'c']) await m.start({ title: id, id, switch: true });
    let rotations = 0;
    let last = 0;
    const pinned: Record<string, boolean> = { a: false, b: false, c: false };
    for (let i = 0; i < 40; i++) {
      const id = ['a', 'b', 'c'][i % 3]!;
      if (pinned[id]) await m.unpin(id);
      else await m.pin(id, `round ${i}`);
      pinned[id] = !pinned[id];
      await m.list();
      const size = fs.statSync(logFile()).size;
      if (size < last) rotations += 1;
      last = size;
      // Rotation keeps the log near the threshold: a few rows past it at most.
      expect(size).toBeLessThan(4000 + 3000);
    }
    // 40 rows of ~350 bytes, rotated past 4000 bytes.
    expect(rotations).toBeGreaterThanOrEqual(3);
    expect(pinned).toEqual({ a: false, b: true, c: true });
    expect(await listedPins()).toEqual(pinned);
    expect(fs.readdirSync(dir.root).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('a writer that keeps the old log open appends its next row to the new one', async () => {
    dir = tempStoreDir('baton-rot-');
    const longLived = new SessionManager({ store: store(), agent: 'server' });
    await longLived.start({ title: 'kept open', id: 'kept' });
    await longLived.pin('kept'); // opens index.log and keeps it open
    // Another process's list rotates the log under it.
    const before = fs.statSync(logFile()).ino;
    await store(1).list();
    expect(fs.statSync(logFile()).ino).not.toBe(before);
    await longLived.unpin('kept');
    expect(await listedPins()).toEqual({ kept: false });
  });

  it('a log renamed away for good (a crash mid-rotation) makes list rebuild the registry, losing no row', async () => {
    dir = tempStoreDir('baton-rot-');
    const m = new SessionManager({ store: store(), agent: 't' });
    await m.start({ title: 'x', id: 'x' });
    await m.list();
    await m.pin('x');
    await m.list();
    // index.json names this log; the crash left it renamed and a new log started.
    fs.renameSync(logFile(), `${logFile()}.tmp-999999999-x`);
    fs.writeFileSync(logFile(), '');
    const r = await store().list();
    expect(r.repairs.map((x) => x.kind)).toEqual(['index_rebuilt']);
    expect(r.missing).toEqual(['x']);
    // The manager derives the missing row from the session itself.
    expect((await new SessionManager({ store: store(), agent: 't' }).list()).map((s) => [s.id, s.pinned])).toEqual([
      ['x', true],
    ]);
  });

  it('writers and listers in separate processes racing rotations lose no row', async () => {
    dir = tempStoreDir('baton-rot-');
    const stop = path.join(dir.base, 'stop');
    const ready = path.join(dir.base, 'ready.');
    const run = (args: string[]) => runFixture('test/fixtures/registry-churn.ts', [dir.root, ...args]);
    const m0 = new SessionManager({ store: store(), agent: 't' });
    for (const id of ['w1', 'w2', 'w3']) await m0.start({ title: `churn ${id}`, id, switch: true });
    // Odd counts: every session ends pinned; even: unpinned.
    // The writers start once both listers have listed once: their rows race lists in progress.
    const writers = [
      ['w1', 61],
      ['w2', 60],
      ['w3', 61],
    ].map(([id, n]) => run(['writer', String(id), String(n), ready, '2']));
    const listers = [run(['lister', stop, ready, '3000']), run(['lister', stop, ready, '3000'])];
    const done = await Promise.all(writers);
    fs.writeFileSync(stop, '');
    const listed = await Promise.all(listers);
    for (const r of [...done, ...listed]) expect(r.stderr).toBe('');
    expect(done.map((r) => r.stdout)).toEqual(['done\n', 'done\n', 'done\n']);
    const stats = listed.map((r) =>
      /^lists (\d+) rotations (\d+) rebuilds (\d+)$/.exec(r.stdout.trim())!.slice(1).map(Number),
    );
    // The race really happened: the listers rotated the log while the writers wrote.
    expect(stats.reduce((n, [, rotations]) => n + rotations!, 0)).toBeGreaterThan(0);
    expect(stats.map(([, , rebuilds]) => rebuilds)).toEqual([0, 0]);
    expect(await listedPins()).toEqual({ w1: true, w2: false, w3: true });
    // And the registry agrees with every session's own state.
    const m = new SessionManager({ store: store(), agent: 't' });
    for (const id of ['w1', 'w2', 'w3']) expect((await m.get(id)).pinned).toBe(id !== 'w2');
  }, 180_000);
});
