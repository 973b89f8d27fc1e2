import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord } from '../../src/store/file/codec.js';
import { FileStore } from '../../src/store/file/store.js';
import { SessionManager } from '../../src/manager/manager.js';
import { checkpointOf, expectCode, seed } from '../../src/testing/conformance.js';
import { isBatonError } from '../../src/domain/errors.js';
import { tempStoreDir } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const made: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const d of made.splice(0)) d.remove();
});

async function setup(): Promise<{
  store: FileStore;
  root: string;
  base: string;
  dir: string;
  events: Awaited<ReturnType<typeof seed>>;
}> {
  const d = tempStoreDir();
  made.push(d);
  const store = new FileStore({ root: d.root });
  const events = await seed(store, 's', 2);
  return { store, root: d.root, base: d.base, dir: path.join(d.root, 'sessions', 's', 'checkpoints'), events };
}

describe('file store checkpoints', () => {
  it('writes sessions/<id>/checkpoints/<cpid>.json: one checksummed line, 0600 in a 0700 folder, no temp file left', async () => {
    const { store, dir, events } = await setup();
    const cp = checkpointOf('s', events, 'cp-1-first', 'first');
    await store.saveCheckpoint('s', cp);
    expect(fs.readdirSync(dir)).toEqual(['cp-1-first.json']);
    const file = path.join(dir, 'cp-1-first.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    expect(raw.slice(0, -1)).not.toContain('\n');
    const d = decodeRecord(raw.slice(0, -1));
    expect(d.ok && d.value).toMatchObject({
      format: 'baton.checkpoint',
      v: 1,
      id: 'cp-1-first',
      sessionId: 's',
      name: 'first',
      revision: 3,
    });
    await store.close();
  });

  it('reports each kind of damage as invalid with the reason, and never deletes or rewrites the file', async () => {
    const { store, dir, events } = await setup();
    for (let i = 1; i <= 7; i++) await store.saveCheckpoint('s', checkpointOf('s', events, `cp-${i}`, `n${i}`));
    const file = (i: number): string => path.join(dir, `cp-${i}.json`);
    const good = fs.readFileSync(file(1), 'utf8');
    // 2: one byte changed; 3: cut short; 4: empty; 5: not JSON; 6: another checkpoint's file copied over; 7: a link.
    fs.writeFileSync(file(2), good.replace('"name":"n1"', '"name":"nX"').replace('"id":"cp-1"', '"id":"cp-2"'));
    fs.writeFileSync(file(3), good.slice(0, 80));
    fs.writeFileSync(file(4), '');
    fs.writeFileSync(file(5), 'hello\n');
    fs.copyFileSync(file(1), file(6));
    fs.rmSync(file(7));
    fs.symlinkSync(file(1), file(7));
    const before = [2, 3, 4, 5, 6].map((i) => fs.readFileSync(file(i)));

    const list = await store.listCheckpoints('s');
    expect(list.map((r) => [r.id, r.valid, r.valid ? null : r.problem])).toEqual([
      ['cp-1', true, null],
      ['cp-2', false, 'checksum mismatch'],
      ['cp-3', false, 'no checksum (the file is cut short)'],
      ['cp-4', false, 'is empty'],
      ['cp-5', false, 'no checksum'],
      ['cp-6', false, 'holds checkpoint "cp-1", not cp-6'],
      ['cp-7', false, 'is a symbolic link (links inside .baton are not followed)'],
    ]);
    for (const r of list) if (!r.valid) expect(typeof r.modifiedAt).toBe('string');
    const one = await store.readCheckpoint('s', 'cp-2');
    expect(one).toMatchObject({ id: 'cp-2', valid: false, problem: 'checksum mismatch' });
    expect([2, 3, 4, 5, 6].map((i) => fs.readFileSync(file(i)))).toEqual(before);
    expect(fs.lstatSync(file(7)).isSymbolicLink()).toBe(true);
    await store.close();
  });

  it('ignores stray files, removes temp files of dead writers, refuses a linked checkpoints folder', async () => {
    const { store, dir, events, base } = await setup();
    await store.saveCheckpoint('s', checkpointOf('s', events, 'cp-1'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    fs.writeFileSync(path.join(dir, '..bad.json'), 'x');
    fs.writeFileSync(path.join(dir, 'cp-1.json.corrupt-2026'), 'x');
    const dead = path.join(dir, 'cp-2.json.tmp-999999999-abc-1');
    fs.writeFileSync(dead, 'half');
    expect((await store.listCheckpoints('s')).map((r) => r.id)).toEqual(['cp-1']);
    await store.saveCheckpoint('s', checkpointOf('s', events, 'cp-2'));
    expect(fs.existsSync(dead)).toBe(false);
    expect((await store.listCheckpoints('s')).map((r) => r.id)).toEqual(['cp-1', 'cp-2']);

    // A checkpoints folder that is a link is not followed.
    const outside = path.join(base, 'elsewhere');
    fs.mkdirSync(outside);
    fs.renameSync(dir, path.join(base, 'moved'));
    fs.symlinkSync(outside, dir);
    await expectCode(store.listCheckpoints('s'), 'CORRUPT');
    await expectCode(store.saveCheckpoint('s', checkpointOf('s', events, 'cp-3')), 'CORRUPT');
    expect(fs.readdirSync(outside)).toEqual([]);
    await store.close();
  });

  it('a hand-corrupted checkpoint is reported through the manager, with the previous valid one offered', async () => {
    const { root } = await setup();
    const m = new SessionManager({ store: new FileStore({ root }), autoCheckpoint: false });
    await m.checkpoints.create('s', { name: 'one' });
    await m.note('s', { text: 'x' });
    await m.checkpoints.create('s', { name: 'two' });
    await m.note('s', { text: 'y' });
    await m.checkpoints.create('s', { name: 'three' });
    const file = path.join(root, 'sessions', 's', 'checkpoints', 'cp-3-three.json');
    const raw = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, raw.replace('"name":"three"', '"name":"thr33"'));

    const list = await m.checkpoints.list('s');
    expect(list.map((c) => [c.id, c.valid, c.problem ?? null, c.name, c.revision])).toEqual([
      ['cp-1-one', true, null, 'one', 3],
      ['cp-2-two', true, null, 'two', 5],
      // Name and revision of a damaged one come from the journal.
      ['cp-3-three', false, 'checksum mismatch', 'three', 7],
    ]);
    const v = await m.checkpoints.validate('s', 'cp-3-three');
    expect(v).toMatchObject({ valid: false, problem: 'checksum mismatch', fallback: { id: 'cp-2-two' } });
    const e = await m.checkpoints.restore('s', 'cp-3-three').catch((x: unknown) => x);
    expect(isBatonError(e, 'CORRUPT')).toBe(true);
    expect(isBatonError(e) && cliHint(e)).toBe(
      'The previous valid checkpoint is cp-2-two ("two", revision 5): `baton restore cp-2-two`.',
    );
    expect(isBatonError(e) && e.details).toMatchObject({
      checkpointId: 'cp-3-three',
      problem: 'checksum mismatch',
      fallback: 'cp-2-two',
    });
    // The fallback skips a superseded one when an older current one exists.
    await m.checkpoints.restore('s', 'cp-1-one');
    const after = await m.checkpoints.validate('s', 'cp-3-three');
    expect(after.fallback?.id).toBe('cp-1-one');
    // The damaged file is still there, as it was.
    expect(fs.readFileSync(file, 'utf8')).toBe(raw.replace('"name":"three"', '"name":"thr33"'));
    // A file with a good checksum that is not the checkpoint the journal recorded under its id.
    const cpDir = path.join(root, 'sessions', 's', 'checkpoints');
    const d = decodeRecord(fs.readFileSync(path.join(cpDir, 'cp-1-one.json'), 'utf8').trimEnd());
    if (!d.ok) throw new Error(d.reason);
    fs.writeFileSync(path.join(cpDir, 'cp-2-two.json'), `${encodeRecord({ ...d.value, id: 'cp-2-two' })}\n`);
    expect((await m.checkpoints.list('s')).find((c) => c.id === 'cp-2-two')).toMatchObject({
      valid: false,
      problem: 'holds revision 3, but the journal recorded it at revision 5',
      revision: 5,
    });
    await m.store.close();
  });
});
