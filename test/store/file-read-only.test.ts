/**
 * The file store opened read-only (`readOnly: true`, what the dashboard does; a store that
 * cannot be written is opened the same way on its own, see test/cli/read-only.test.ts for
 * real mounts and permissions): every read works and writes nothing at all, damaged files
 * included (a corrupt snapshot and index.json are reported, not moved aside; a torn tail is
 * read around and reported, not cut); every write is refused with STORE_READ_ONLY before a
 * byte is written. A journal that alone cannot be written (a session folder of another user
 * inside a writable store) makes only that session read-only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { FileStore } from '../../src/store/file/store.js';
import type { StoreFs } from '../../src/store/file/io.js';
import { checkpointOf, noteEvent, rejection, seed, stateOf } from '../../src/testing/fixtures.js';
import { createdEvent, summaryOf } from '../../src/testing/fixtures.js';
import { snapshotTree } from '../support/tree.js';
import { tempStoreDir } from './helpers.js';

const dirs: Array<ReturnType<typeof tempStoreDir>> = [];
const open: FileStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) d.remove();
});

function store(root: string, o: { readOnly?: boolean; fs?: StoreFs } = {}): FileStore {
  const s = new FileStore({ root, ...o });
  open.push(s);
  return s;
}

/** A store with session `a` (9 events, snapshot at 7, two checkpoints) and session `b`. */
async function populated(): Promise<string> {
  const d = tempStoreDir();
  dirs.push(d);
  const s = store(d.root);
  await seed(s, 'a', 3);
  await s.saveCheckpoint('a', checkpointOf('a', await s.readEvents('a'), 'cp-1'));
  await s.append('a', 4, [noteEvent(5), noteEvent(6), noteEvent(7)]);
  await s.writeSnapshot('a', { revision: 7, state: stateOf('a', await s.readEvents('a')) });
  await s.append('a', 7, [noteEvent(8), noteEvent(9)]);
  await seed(s, 'b', 1);
  await s.setActive('a');
  await s.list();
  await s.close();
  return d.root;
}

function expectReadOnly(e: unknown, where: string): void {
  expect(isBatonError(e, 'STORE_READ_ONLY'), String(e)).toBe(true);
  expect((e as Error).message).toContain(`The store at ${where} cannot be written`);
}

describe('the file store opened read-only', () => {
  it('reads everything, damaged files included, and writes not a byte', async () => {
    const root = await populated();
    const a = path.join(root, 'sessions', 'a');
    fs.writeFileSync(path.join(a, 'snapshot.json'), '{"format":"baton.snapshot", not json');
    fs.writeFileSync(path.join(root, 'index.json'), 'not an index');
    fs.appendFileSync(path.join(a, 'journal.jsonl'), '{"v":1,"seq":10,"type":"note.ad');
    const before = snapshotTree(root);

    const s = store(root, { readOnly: true });
    expect(s.readOnly).toBe('opened read-only');
    const loaded = await s.load('a');
    expect(loaded.revision).toBe(9);
    expect(loaded.repairs.map((r) => [r.kind, r.repaired])).toEqual([
      ['snapshot_corrupt', false],
      ['torn_tail', false],
    ]);
    expect(loaded.repairs[0]!.savedTo).toBeNull();
    expect((await s.readEvents('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const listed = await s.list();
    expect(
      listed.summaries
        .map((r) => r.id)
        .concat(listed.missing)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(listed.repairs.map((r) => [r.kind, r.repaired])).toEqual([['index_corrupt', false]]);
    await s.putSummaries([summaryOf('b', await s.readEvents('b'))]);
    expect((await s.listCheckpoints('a')).map((c) => [c.id, c.valid])).toEqual([['cp-1', true]]);
    expect(await s.getActive()).toBe('a');
    expect(await s.readSessionFile('a', 'handoff.md')).toBeNull();
    const report = await s.doctor({ fix: false });
    expect(report.problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(['TORN_TAIL', 'SNAPSHOT_CORRUPT', 'INDEX_CORRUPT']),
    );
    await s.close();
    expect(snapshotTree(root)).toEqual(before);
  });

  it('refuses every write with STORE_READ_ONLY naming the store, and writes nothing', async () => {
    const root = await populated();
    const before = snapshotTree(root);
    const s = store(root, { readOnly: true });
    const events = await s.readEvents('a');
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['create', () => s.create('c', [createdEvent('c')], summaryOf('c', [{ ...createdEvent('c'), seq: 1 }]))],
      ['append', () => s.append('a', 9, [noteEvent(10)])],
      ['writeSnapshot', () => s.writeSnapshot('a', { revision: 9, state: stateOf('a', events) })],
      ['setActive', () => s.setActive('b')],
      ['withWorkspaceLock', () => s.withWorkspaceLock(async () => undefined)],
      ['archive', () => s.archive('b')],
      ['delete', () => s.delete('b', 2, { deletedAt: '2026-01-01T00:00:00.000Z', title: 'b', status: 'active' })],
      ['writeSessionFile', () => s.writeSessionFile('a', 'handoff.md', 'x')],
      ['removeSessionFile', () => s.removeSessionFile('a', 'handoff.md')],
      ['repair', () => s.repair('a')],
      ['saveCheckpoint', () => s.saveCheckpoint('a', checkpointOf('a', events, 'cp-2'))],
      ['cursors.put', () => s.cursors.put('otel', '1', null)],
      ['doctor --fix', () => s.doctor({ fix: true })],
    ];
    for (const [what, write] of writes) {
      const e = await rejection(write());
      expect({ what, code: (e as { code?: string }).code }).toEqual({ what, code: 'STORE_READ_ONLY' });
      expectReadOnly(e, root);
    }
    await s.close();
    expect(snapshotTree(root)).toEqual(before);
  });

  it('a session whose journal cannot be written is read as usual; only its writes are refused, naming its folder', async () => {
    const root = await populated();
    const refuseRdwr: StoreFs = {
      ...fs,
      openSync: ((file: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
        if (
          String(file).endsWith(path.join('b', 'journal.jsonl')) &&
          typeof flags === 'number' &&
          (flags & fs.constants.O_RDWR) !== 0
        ) {
          throw Object.assign(new Error(`EACCES: permission denied, open '${String(file)}'`), { code: 'EACCES' });
        }
        return fs.openSync(file, flags ?? 'r', mode);
      }) as typeof fs.openSync,
    };
    const s = store(root, { fs: refuseRdwr });
    expect(s.readOnly).toBeNull();
    expect((await s.load('b')).revision).toBe(2);
    const refused = await rejection(s.append('b', 2, [noteEvent(3)]));
    expectReadOnly(refused, root);
    expect((refused as Error).message).toContain(`(no write permission on ${path.join(root, 'sessions', 'b')})`);
    expect((await s.append('a', 9, [noteEvent(10)])).revision).toBe(10);
    expect((await s.readEvents('b')).length).toBe(2);
  });
});
