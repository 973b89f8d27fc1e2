/**
 * Damage that is not a torn tail (issue 16): a journal cut in the middle under a snapshot,
 * checkpoint or registry row of a later revision, a complete last line that fails its
 * checksum, an empty journal. Each is CORRUPT, leaves the journal's bytes alone, and
 * `doctor --fix` recovers a cut journal from the newest snapshot without handing out an
 * acknowledged seq again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import type { BatonError } from '../../src/domain/errors.js';
import { SessionManager } from '../../src/manager/manager.js';
import { encodeRecord } from '../../src/store/file/codec.js';
import { FileStore } from '../../src/store/file/store.js';
import { noteEvent, rejection, seed, stateOf } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';

let dir: ReturnType<typeof tempStoreDir>;
const open: FileStore[] = [];

function fresh(): FileStore {
  const s = new FileStore({ root: dir.root });
  open.push(s);
  return s;
}

const journalOf = (id: string): string => path.join(dir.root, 'sessions', id, 'journal.jsonl');

async function expectCorrupt(p: Promise<unknown>): Promise<BatonError> {
  const e = await rejection(p);
  expect(isBatonError(e, 'CORRUPT'), String(e)).toBe(true);
  return e as BatonError;
}

beforeEach(() => {
  dir = tempStoreDir('baton-lost-');
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  dir.remove();
});

describe('a journal cut in the middle under a snapshot of a later revision', () => {
  for (const fraction of [0.1, 0.5, 0.9]) {
    it(`cut at ${fraction * 100} %: CORRUPT naming the lost seqs, nothing cut; doctor --fix recovers above them`, async () => {
      const id = `cut-${fraction * 100}`;
      const s = fresh();
      await seed(s, id, 40);
      const all = await s.readEvents(id);
      await s.writeSnapshot(id, { revision: 41, state: stateOf(id, all) });
      await s.close();
      const size = fs.statSync(journalOf(id)).size;
      fs.truncateSync(journalOf(id), Math.floor(size * fraction));
      const damaged = fs.readFileSync(journalOf(id));
      // seed writes one event per line: the complete lines left are the events left.
      const journalEnd = damaged.toString('utf8').split('\n').length - 1;
      expect(journalEnd).toBeLessThan(41);

      const store = fresh();
      for (const read of [
        () => store.load(id),
        () => store.readEvents(id),
        () => store.append(id, journalEnd, [noteEvent(99)]),
      ]) {
        const e = await expectCorrupt(read());
        expect(e.details).toMatchObject({
          journalRevision: journalEnd,
          provenRevision: 41,
          lost: { from: journalEnd + 1, to: 41 },
        });
        expect(e.message).toMatch(/lost/);
      }
      // Reported, not repaired: the journal's bytes are as the damage left them.
      expect(fs.readFileSync(journalOf(id)).equals(damaged)).toBe(true);

      const m = new SessionManager({ store, agent: 't' });
      const report = await m.maintenance.doctor({ fix: true });
      expect(report.ok, JSON.stringify(report.problems, null, 1)).toBe(true);
      const r = await fresh().load(id);
      const lost = r.events.at(-1)!;
      expect(lost.type).toBe('repair.events_lost');
      expect(lost.seq).toBe(42);
      expect(lost.data).toMatchObject({
        from: journalEnd + 1,
        to: 41,
        recoveredFrom: { kind: 'snapshot', revision: 41 },
      });
      const state = await m.get(id);
      expect(state.notes).toHaveLength(40);
      expect(state.repairs.at(-1)).toMatchObject({ kind: 'events_lost', detail: { from: journalEnd + 1, to: 41 } });
      // Numbering continues above every seq that was ever acknowledged.
      const after = await fresh().append(id, 42, [noteEvent(100)]);
      expect(after.revision).toBe(43);
      const seqs = (await fresh().readEvents(id)).map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs.filter((q) => q > journalEnd && q <= 41)).toEqual([]);
      expect(fs.readdirSync(path.dirname(journalOf(id))).some((f) => f.startsWith('journal.jsonl.corrupt-'))).toBe(
        true,
      );
    });
  }

  it('a cut on a line boundary under a registry row of a later revision is CORRUPT too', async () => {
    const store = fresh();
    const m = new SessionManager({ store, agent: 't' });
    await m.start({ title: 'reg', id: 'reg', switch: true });
    const cut = fs.statSync(journalOf('reg')).size;
    await m.lifecycle('reg', 'pause');
    await store.close();
    fs.truncateSync(journalOf('reg'), cut);
    const e = await expectCorrupt(fresh().readEvents('reg'));
    expect(e.details).toMatchObject({ provenBy: expect.stringMatching(/registry/) });
  });

  it('the same store instance sees a registry row written after its last full read (no stale registry)', async () => {
    const store = fresh();
    const m = new SessionManager({ store, agent: 't' });
    await m.start({ title: 'reg2', id: 'reg2', switch: true });
    expect((await store.readEvents('reg2')).length).toBe(1);
    const cut = fs.statSync(journalOf('reg2')).size;
    await m.lifecycle('reg2', 'pause');
    fs.truncateSync(journalOf('reg2'), cut);
    const e = await expectCorrupt(store.readEvents('reg2'));
    expect(e.details).toMatchObject({ provenBy: expect.stringMatching(/registry/) });
  });

  it('a snapshot at the end of the journal followed by one unterminated line stays a silent torn-tail repair', async () => {
    const s = fresh();
    await seed(s, 'torn', 5);
    await s.writeSnapshot('torn', { revision: 6, state: stateOf('torn', await s.readEvents('torn')) });
    await s.close();
    fs.appendFileSync(journalOf('torn'), '{"v":1,"seq":7,"type":"note.ad');
    const r = await fresh().load('torn');
    expect(r.repairs.map((x) => x.kind)).toEqual(['torn_tail']);
    expect(r.revision).toBe(7);
  });
});

describe('damage that is not a torn tail', () => {
  it('a complete last line with a bad checksum is kept and reported CORRUPT, never cut', async () => {
    const s = fresh();
    await seed(s, 'badsum', 3);
    await s.close();
    const line = encodeRecord({ v: 1, seq: 5, ...noteEvent(5) }).replace('"note 5"', '"note X"');
    fs.appendFileSync(journalOf('badsum'), `${line}\n`);
    const before = fs.readFileSync(journalOf('badsum'));
    const store = fresh();
    await expectCorrupt(store.load('badsum'));
    await expectCorrupt(store.readEvents('badsum'));
    await expectCorrupt(store.append('badsum', 4, [noteEvent(6)]));
    expect(fs.readFileSync(journalOf('badsum')).equals(before)).toBe(true);
  });

  it('an empty journal is CORRUPT on every read, and nothing is appended to it', async () => {
    const s = fresh();
    await seed(s, 'empty', 2);
    await s.close();
    fs.truncateSync(journalOf('empty'), 0);
    const store = fresh();
    await expectCorrupt(store.load('empty'));
    await expectCorrupt(store.readEvents('empty'));
    await expectCorrupt(store.append('empty', 0, [noteEvent(1)]));
    expect(fs.statSync(journalOf('empty')).size).toBe(0);
  });
});
