/**
 * Hand-damaged files on disk: each gets a clear coded error or a reported repair, and no
 * stored event is lost.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { isBatonError } from '../../src/domain/errors.js';
import type { BatonError } from '../../src/domain/errors.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { SessionManager } from '../../src/manager/manager.js';
import { encodeRecord } from '../../src/store/file/codec.js';
import { FileStore } from '../../src/store/file/store.js';
import type { RepairReport } from '../../src/store/types.js';
import { expectContiguous, noteEvent, rejection, seed, stateOf } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

let dir: ReturnType<typeof tempStoreDir>;
const open: FileStore[] = [];

function fresh(): FileStore {
  const s = new FileStore({ root: dir.root });
  open.push(s);
  return s;
}

function sessionDir(id: string): string {
  return path.join(dir.root, 'sessions', id);
}

function journalOf(id: string): string {
  return path.join(sessionDir(id), 'journal.jsonl');
}

/** The journal's lines, without the final newline's empty string. */
function journalLines(id: string): string[] {
  const lines = fs.readFileSync(journalOf(id), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Flips one character inside a JSON string value of `line`, keeping it valid JSON. */
function damage(line: string): string {
  const at = line.indexOf('"type":"') + 10;
  const c = line[at] === 'x' ? 'y' : 'x';
  return line.slice(0, at) + c + line.slice(at + 1);
}

/** Strips what a store adds on write (`v`), to compare events by content. */
function content(e: StoredEvent): Record<string, unknown> {
  const { v: _v, ...rest } = e;
  return rest;
}

/** A session of `notes + 1` events, written and closed; returns its events as read back. */
async function makeSession(id: string, notes: number, bigText?: number): Promise<StoredEvent[]> {
  const s = fresh();
  await seed(s, id, notes);
  if (bigText) await s.append(id, notes + 1, [noteEvent(notes + 1, 'B'.repeat(bigText))]);
  const events = await s.readEvents(id);
  await s.close();
  return events;
}

function kinds(repairs: RepairReport[]): string[] {
  return repairs.map((r) => r.kind);
}

beforeEach(() => {
  dir = tempStoreDir('baton-corrupt-');
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  dir.remove();
});

describe('torn last journal line', () => {
  /** Checks a load after a torn tail was left behind a journal of `before` events. */
  async function expectTornTailRepaired(id: string, before: StoredEvent[], tornBytes: number): Promise<void> {
    const store = fresh();
    const r = await store.load(id);
    expect(kinds(r.repairs)).toEqual(['torn_tail']);
    const report = r.repairs[0]!;
    expect(report.sessionId).toBe(id);
    expect(report.message).toMatch(/torn/);
    expect(report.savedTo).not.toBeNull();
    expect(fs.statSync(report.savedTo!).size).toBe(tornBytes);
    // Every event is still there, then the repair event, seq contiguous.
    expect(r.revision).toBe(before.length + 1);
    expectContiguous(r.events);
    expect(r.events.slice(0, before.length).map(content)).toEqual(before.map(content));
    const last = r.events[before.length]!;
    expect(last.type).toBe('repair.torn_tail');
    expect(last.data).toMatchObject({ truncatedBytes: tornBytes, savedTo: path.basename(report.savedTo!) });
    expect(fs.readFileSync(journalOf(id)).at(-1)).toBe(10);
    // The repair is durable and done once.
    const again = await fresh().load(id);
    expect(again.repairs).toEqual([]);
    expect(again.revision).toBe(before.length + 1);
    // The session goes on.
    await store.append(id, before.length + 1, [noteEvent(900)]);
    expectContiguous(await fresh().readEvents(id));
  }

  it('cuts partial bytes with no newline, reports torn_tail and records a repair event', async () => {
    const before = await makeSession('torn', 4);
    const partial = encodeRecord({ v: 1, seq: 6, ...noteEvent(6) }).slice(0, 37);
    fs.appendFileSync(journalOf('torn'), partial);
    await expectTornTailRepaired('torn', before, Buffer.byteLength(partial));
  });

  it('cuts a torn line longer than the tail window without touching the lines before it', async () => {
    // Regression: a torn line of more than 64 KiB used to make the whole journal look torn.
    const before = await makeSession('torn-big', 3, 150_000);
    const partial = encodeRecord({ v: 1, seq: 6, ...noteEvent(6, 'T'.repeat(400_000)) }).slice(0, 300_000);
    fs.appendFileSync(journalOf('torn-big'), partial);
    await expectTornTailRepaired('torn-big', before, 300_000);
  });

  it('cuts a torn tail made by truncating the last event mid-line', async () => {
    const all = await makeSession('trunc', 3, 200_000);
    const size = fs.statSync(journalOf('trunc')).size;
    const lastLine = Buffer.byteLength(journalLines('trunc').at(-1)!) + 1;
    fs.truncateSync(journalOf('trunc'), size - 1000);
    await expectTornTailRepaired('trunc', all.slice(0, -1), lastLine - 1000);
  });

  it('does not take a complete last line with a bad checksum for a torn one: it is kept and CORRUPT', async () => {
    await makeSession('badsum', 4);
    const bad = damage(encodeRecord({ v: 1, seq: 6, ...noteEvent(6) }));
    fs.appendFileSync(journalOf('badsum'), `${bad}\n`);
    const damaged = fs.readFileSync(journalOf('badsum'));
    expect(isBatonError(await rejection(fresh().load('badsum')), 'CORRUPT')).toBe(true);
    expect(fs.readFileSync(journalOf('badsum')).equals(damaged)).toBe(true);
  });

  it('repairs a torn tail found by an append, which then sees the new revision', async () => {
    const before = await makeSession('via-append', 2);
    fs.appendFileSync(journalOf('via-append'), '{"v":1,"seq":4,"type":"note.ad');
    const store = fresh();
    // The repair event takes seq 4, so an append expecting 3 loses the race like any other.
    const e = await rejection(store.append('via-append', 3, [noteEvent(4)]));
    expect(isBatonError(e, 'CONFLICT')).toBe(true);
    const events = await store.readEvents('via-append');
    expect(events.map((x) => x.type)).toEqual([...before.map((x) => x.type), 'repair.torn_tail']);
    expectContiguous(events);
    await store.append('via-append', 4, [noteEvent(5)]);
    expect((await fresh().load('via-append')).revision).toBe(5);
  });

  it.each([
    ['at a line boundary (only the first two lines reached the disk)', 2, 0],
    ['inside its last line', 2, 40],
    ['inside its second line', 1, 25],
  ])('cuts a multi-event append as a whole when a crash tore it %s', async (_how, wholeLines, extraBytes) => {
    const before = await makeSession('batch', 2);
    const store = fresh();
    await store.append('batch', 3, [noteEvent(4), noteEvent(5), noteEvent(6)]);
    await store.close();
    // Rebuild the crash: keep `before`, then only part of the three-line write.
    const lines = journalLines('batch');
    const kept = lines.slice(0, before.length);
    const batch = lines.slice(before.length);
    expect(batch.map((l) => JSON.parse(l).batch)).toEqual([
      [4, 6],
      [4, 6],
      [4, 6],
    ]);
    const partial =
      batch
        .slice(0, wholeLines)
        .map((l) => `${l}\n`)
        .join('') + (batch[wholeLines] ?? '').slice(0, extraBytes);
    fs.writeFileSync(journalOf('batch'), `${kept.join('\n')}\n${partial}`);
    await expectTornTailRepaired('batch', before, Buffer.byteLength(partial));
  });

  it('lets the manager report the repair and go on', async () => {
    const store = fresh();
    const reports: RepairReport[] = [];
    const m = new SessionManager({ store, agent: 'tester', onRepair: (r) => reports.push(r) });
    const s = await m.start({ title: 'Torn via manager', id: 'mgr', phases: [{ id: 'a', name: 'A' }] });
    await m.tokens(s.id, { input: 5 });
    await store.close();
    fs.appendFileSync(journalOf('mgr'), '{"v":1,"seq":3,"type":"tokens.recorded","time":"2026-');
    const m2 = new SessionManager({ store: fresh(), agent: 'tester', onRepair: (r) => reports.push(r) });
    const after = await m2.tokens('mgr', { input: 7 });
    expect(kinds(reports)).toEqual(['torn_tail']);
    expect(after.state.tokens.input).toBe(12);
    expect(after.state.repairs.map((r) => r.kind)).toEqual(['torn_tail']);
    expect(after.state.revision).toBe(4);
  });
});

describe('damaged middle line', () => {
  it('load refuses with CORRUPT naming `baton repair`; repair keeps every readable event', async () => {
    const before = await makeSession('mid', 5);
    const lines = journalLines('mid');
    const original = fs.readFileSync(journalOf('mid'));
    lines[2] = damage(lines[2]!);
    fs.writeFileSync(journalOf('mid'), `${lines.join('\n')}\n`);
    const damaged = fs.readFileSync(journalOf('mid'));
    expect(damaged.length).toBe(original.length);

    const store = fresh();
    for (const call of [store.load('mid'), store.readEvents('mid')]) {
      const e = await rejection(call);
      expect(isBatonError(e, 'CORRUPT')).toBe(true);
      expect(cliHint(e as BatonError)).toMatch(/baton repair/);
    }
    const m = new SessionManager({ store, agent: 't' });
    expect(isBatonError(await rejection(m.get('mid')), 'CORRUPT')).toBe(true);
    // Nothing was changed by the refusals.
    expect(fs.readFileSync(journalOf('mid')).equals(damaged)).toBe(true);

    const reports = await store.repair('mid');
    expect(kinds(reports)).toEqual(['journal_rewritten']);
    const savedTo = reports[0]!.savedTo!;
    expect(path.basename(savedTo)).toMatch(/^journal\.jsonl\.corrupt-/);
    expect(fs.readFileSync(savedTo).equals(damaged)).toBe(true);

    const r = await fresh().load('mid');
    expect(r.repairs).toEqual([]);
    expectContiguous(r.events);
    expect(r.revision).toBe(before.length + 1);
    r.events.forEach((e, i) => {
      if (i === 2) {
        expect(e).toMatchObject({ seq: 3, type: 'repair.unreadable_line', data: { raw: lines[2], line: 3 } });
      } else if (i < before.length) {
        expect(content(e)).toEqual(content(before[i]!));
      }
    });
    expect(r.events.at(-1)).toMatchObject({
      type: 'repair.journal',
      data: { savedTo: path.basename(savedTo), unreadableLines: [3] },
    });
    // The fold sees everything readable plus the repairs.
    const state = fold(null, r.events, 'mid')!;
    expect(state.notes.map((n) => n.id).length).toBe(4);
    expect(state.repairs.map((x) => x.kind)).toEqual(['unreadable_line', 'journal']);
    // Done once; the session goes on.
    expect(await store.repair('mid')).toEqual([]);
    await store.append('mid', r.revision, [noteEvent(99)]);
    expectContiguous(await fresh().readEvents('mid'));
  });

  it('damage hidden behind a snapshot: load goes on, readEvents refuses, repair fixes it all', async () => {
    const before = await makeSession('both', 6);
    const s = fresh();
    await s.writeSnapshot('both', { revision: 7, state: stateOf('both', before) });
    await s.close();
    const lines = journalLines('both');
    lines[1] = damage(lines[1]!);
    fs.writeFileSync(journalOf('both'), `${lines.join('\n')}\n{"v":1,"seq":8,"ty`);
    const store = fresh();
    // Loading needs only the snapshot and the tail: it works and cuts the torn tail.
    const loaded = await store.load('both');
    expect(kinds(loaded.repairs)).toEqual(['torn_tail']);
    expect(loaded.snapshot?.revision).toBe(7);
    expect(loaded.events.map((e) => e.type)).toEqual(['repair.torn_tail']);
    // Reading the whole history meets the damaged line.
    const e = await rejection(store.readEvents('both'));
    expect(isBatonError(e, 'CORRUPT')).toBe(true);
    expect(cliHint(e as BatonError)).toMatch(/baton repair/);
    await store.repair('both');
    expect(fs.existsSync(path.join(sessionDir('both'), 'snapshot.json'))).toBe(false);
    const r = await fresh().load('both');
    expect(r.snapshot).toBeNull();
    expect(r.events.map((x) => x.type)).toEqual([
      'session.created',
      'repair.unreadable_line',
      'note.added',
      'note.added',
      'note.added',
      'note.added',
      'note.added',
      'repair.torn_tail',
      'repair.journal',
    ]);
    expectContiguous(r.events);
    expect(r.events[1]!.data).toEqual({ raw: lines[1], line: 2 });
  });

  it('keeps every readable event at its seq when lines were duplicated, inserted, run together or deleted', async () => {
    const before = await makeSession('hand', 6);
    const lines = journalLines('hand');
    const edited = [
      lines[0]!,
      lines[1]!,
      lines[1]!, // duplicated line
      'not json at all', // inserted junk
      lines[2]! + lines[3]!, // two lines run together (seq 3 and 4)
      lines[4]!,
      // lines[5] (seq 6) deleted
      lines[6]!,
    ];
    fs.writeFileSync(journalOf('hand'), `${edited.join('\n')}\n`);
    const store = fresh();
    expect(isBatonError(await rejection(store.load('hand')), 'CORRUPT')).toBe(true);
    await store.repair('hand');
    const events = await fresh().readEvents('hand');
    expectContiguous(events);
    // Every readable event kept its seq and content.
    for (const seq of [1, 2, 5, 7]) expect(content(events[seq - 1]!)).toEqual(content(before[seq - 1]!));
    // The free seqs 3, 4 and 6 hold the unreadable lines, in file order; no text is lost.
    expect([3, 4, 6].map((seq) => events[seq - 1]!.type)).toEqual([
      'repair.unreadable_line',
      'repair.unreadable_line',
      'repair.unreadable_line',
    ]);
    expect([3, 4, 6].map((seq) => (events[seq - 1]!.data as { raw: string }).raw)).toEqual([
      lines[1],
      'not json at all',
      lines[2]! + lines[3]!,
    ]);
    expect(events).toHaveLength(8);
    expect(events[7]).toMatchObject({ type: 'repair.journal', data: { unreadableLines: [3, 4, 5] } });
  });

  it('a line deleted by hand becomes an empty repair event so later events keep their seq', async () => {
    const before = await makeSession('deleted', 4);
    const lines = journalLines('deleted');
    lines.splice(2, 1);
    fs.writeFileSync(journalOf('deleted'), `${lines.join('\n')}\n`);
    const store = fresh();
    expect(isBatonError(await rejection(store.load('deleted')), 'CORRUPT')).toBe(true);
    await store.repair('deleted');
    const events = await fresh().readEvents('deleted');
    expectContiguous(events);
    expect(events[2]).toMatchObject({ seq: 3, type: 'repair.unreadable_line', data: { raw: '' } });
    for (const seq of [1, 2, 4, 5]) expect(content(events[seq - 1]!)).toEqual(content(before[seq - 1]!));
  });

  it('a duplicated line is kept after the last event and nothing moves', async () => {
    const before = await makeSession('dup', 3);
    const lines = journalLines('dup');
    lines.splice(2, 0, lines[1]!);
    fs.writeFileSync(journalOf('dup'), `${lines.join('\n')}\n`);
    const store = fresh();
    expect(isBatonError(await rejection(store.load('dup')), 'CORRUPT')).toBe(true);
    await store.repair('dup');
    const events = await fresh().readEvents('dup');
    expectContiguous(events);
    expect(events.slice(0, 4).map(content)).toEqual(before.map(content));
    expect(events[4]).toMatchObject({ seq: 5, type: 'repair.unreadable_line', data: { raw: lines[1], line: 3 } });
    expect(events[5]!.type).toBe('repair.journal');
  });

  it('a process holding the journal open writes into the repaired file, not the old one', async () => {
    await makeSession('held', 3);
    const longLived = fresh();
    expect((await longLived.load('held')).revision).toBe(4);
    const lines = journalLines('held');
    lines[1] = damage(lines[1]!);
    fs.writeFileSync(journalOf('held'), `${lines.join('\n')}\n`);
    await new Promise((r) => setImmediate(r));
    const fixer = fresh();
    await fixer.repair('held');
    await fixer.close();
    // The repair added repair.journal at seq 5; the old descriptor still sees seq 4.
    await longLived.append('held', 5, [noteEvent(6)]);
    const r = await longLived.load('held');
    expect(r.revision).toBe(6);
    const events = await fresh().readEvents('held');
    expect(events.map((e) => e.type).slice(-2)).toEqual(['repair.journal', 'note.added']);
    expectContiguous(events);
  });

  it('a journal checked out with CRLF line ends (git autocrlf) still loads and takes appends', async () => {
    const s = fresh();
    await seed(s, 'crlf', 2);
    await s.append('crlf', 3, [noteEvent(4, 'héllo ✓ 😀 \u00e9')]);
    const before = await s.readEvents('crlf');
    await s.writeSnapshot('crlf', { revision: 4, state: stateOf('crlf', before) });
    await s.close();
    fs.writeFileSync(journalOf('crlf'), fs.readFileSync(journalOf('crlf'), 'utf8').replace(/\n/g, '\r\n'));
    const store = fresh();
    const r = await store.load('crlf');
    // The snapshot's byte offset no longer fits: it is ignored and the journal replayed.
    expect(kinds(r.repairs).filter((k) => k !== 'snapshot_stale')).toEqual([]);
    expect(fold(r.snapshot?.state ?? null, r.events, 'crlf')).toEqual(stateOf('crlf', before));
    expect((await store.readEvents('crlf')).map(content)).toEqual(before.map(content));
    await store.append('crlf', 4, [noteEvent(5)]);
    const after = await fresh().readEvents('crlf');
    expectContiguous(after);
    expect(after).toHaveLength(5);
    expect(await store.repair('crlf')).toEqual([]);
  });

  it('a folder without a journal is CORRUPT with a way out', async () => {
    await makeSession('nojournal', 1);
    fs.rmSync(journalOf('nojournal'));
    const e = await rejection(fresh().load('nojournal'));
    expect(isBatonError(e, 'CORRUPT')).toBe(true);
    expect((e as { hint?: string }).hint).toMatch(/journal\.jsonl/);
  });
});

describe('snapshot.json', () => {
  /** A session with snapshots at revisions 4 (now snapshot.json.bak) and 7, journal at 9. */
  async function withTwoSnapshots(id: string): Promise<StoredEvent[]> {
    const s = fresh();
    await seed(s, id, 3);
    await s.writeSnapshot(id, { revision: 4, state: stateOf(id, await s.readEvents(id)) });
    await s.append(id, 4, [noteEvent(5), noteEvent(6), noteEvent(7)]);
    await s.writeSnapshot(id, { revision: 7, state: stateOf(id, await s.readEvents(id)) });
    await s.append(id, 7, [noteEvent(8), noteEvent(9)]);
    const all = await s.readEvents(id);
    await s.close();
    return all;
  }

  function snapshotFile(id: string): string {
    return path.join(sessionDir(id), 'snapshot.json');
  }

  it('a corrupt snapshot is moved aside and reported; the state loads from .bak', async () => {
    const all = await withTwoSnapshots('snap');
    const garbage = '{"format":"baton.snapshot", this is not json';
    fs.writeFileSync(snapshotFile('snap'), garbage);
    const r = await fresh().load('snap');
    expect(kinds(r.repairs)).toEqual(['snapshot_corrupt']);
    const saved = r.repairs[0]!.savedTo!;
    expect(path.basename(saved)).toMatch(/^snapshot\.json\.corrupt-/);
    expect(fs.readFileSync(saved, 'utf8')).toBe(garbage);
    expect(fs.existsSync(snapshotFile('snap'))).toBe(false);
    expect(r.snapshot?.revision).toBe(4);
    expect(r.events.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
    expect(fold(r.snapshot!.state, r.events, 'snap')).toEqual(stateOf('snap', all));
    // The next load does not report it again.
    expect((await fresh().load('snap')).repairs).toEqual([]);
  });

  it('with snapshot and .bak both unreadable the state is rebuilt by full replay', async () => {
    const all = await withTwoSnapshots('both');
    const text = fs.readFileSync(snapshotFile('both'), 'utf8');
    fs.writeFileSync(snapshotFile('both'), text.slice(0, Math.floor(text.length / 2)));
    // Valid JSON, but not what was written: the checksum catches it.
    const bak = fs.readFileSync(`${snapshotFile('both')}.bak`, 'utf8');
    expect(bak).toContain('"revision":4');
    fs.writeFileSync(`${snapshotFile('both')}.bak`, bak.replace('"revision":4', '"revision":5'));
    const r = await fresh().load('both');
    expect(kinds(r.repairs)).toEqual(['snapshot_corrupt', 'snapshot_corrupt']);
    for (const rep of r.repairs) expect(fs.existsSync(rep.savedTo!)).toBe(true);
    expect(r.snapshot).toBeNull();
    expect(r.events.map(content)).toEqual(all.map(content));
    const m = new SessionManager({ store: fresh(), agent: 't' });
    expect(await m.get('both')).toEqual(stateOf('both', all));
  });

  it('a snapshot that does not match the journal is ignored', async () => {
    const all = await withTwoSnapshots('stale');
    fs.rmSync(`${snapshotFile('stale')}.bak`);
    // A well-formed snapshot whose offset does not point at the line after its revision.
    const rec = JSON.parse(fs.readFileSync(snapshotFile('stale'), 'utf8')) as Record<string, unknown>;
    delete rec['crc'];
    fs.writeFileSync(snapshotFile('stale'), `${encodeRecord({ ...rec, offset: (rec['offset'] as number) - 7 })}\n`);
    const r = await fresh().load('stale');
    expect(kinds(r.repairs)).toEqual(['snapshot_stale']);
    expect(r.snapshot).toBeNull();
    expect(r.events.map(content)).toEqual(all.map(content));
  });

  it('a write torn right after a snapshot at the end of the journal is cut; the snapshot stays in use', async () => {
    // A writer killed while appending the event after its snapshot: the torn line starts
    // exactly at the snapshot's offset. Cut short before its seq, or with the seq written.
    for (const [id, torn] of [
      ['cut-early', '{"v":1,"se'],
      ['cut-late', `{"v":1,"seq":5,"type":"note.added","data":{"text":"${'q'.repeat(300)}`],
    ] as const) {
      const s = fresh();
      await seed(s, id, 3);
      const all = await s.readEvents(id);
      await s.writeSnapshot(id, { revision: 4, state: stateOf(id, all) });
      await s.close();
      fs.appendFileSync(journalOf(id), torn);
      const r = await fresh().load(id);
      expect(kinds(r.repairs), id).toEqual(['torn_tail']);
      expect(r.snapshot?.revision, id).toBe(4);
      expect(
        r.events.map((e) => e.type),
        id,
      ).toEqual(['repair.torn_tail']);
      expect(r.revision, id).toBe(5);
      expect((await fresh().readEvents(id)).slice(0, 4).map(content), id).toEqual(all.map(content));
    }
  });

  it('a snapshot ahead of a journal put back from an older copy makes it CORRUPT, naming the lost events', async () => {
    const s = fresh();
    await seed(s, 'rewound', 2);
    const old = fs.readFileSync(journalOf('rewound'));
    await s.append('rewound', 3, [noteEvent(4), noteEvent(5)]);
    await s.writeSnapshot('rewound', { revision: 5, state: stateOf('rewound', await s.readEvents('rewound')) });
    await s.close();
    fs.writeFileSync(journalOf('rewound'), old);
    const e = await rejection(fresh().load('rewound'));
    expect(isBatonError(e, 'CORRUPT')).toBe(true);
    expect((e as BatonError).details).toMatchObject({
      journalRevision: 3,
      provenRevision: 5,
      lost: { from: 4, to: 5 },
    });
    expect(fs.readFileSync(journalOf('rewound')).equals(old)).toBe(true);
  });
});

describe('index.json and the registry', () => {
  async function threeSessions(): Promise<string[]> {
    const store = fresh();
    const m = new SessionManager({ store, agent: 't' });
    const ids: string[] = [];
    for (const t of ['one', 'two', 'three']) ids.push((await m.start({ title: t, id: `reg-${t}`, switch: true })).id);
    expect((await m.list({ all: true })).map((s) => s.id).sort()).toEqual([...ids].sort());
    await store.close();
    return ids.sort();
  }

  const indexFile = (): string => path.join(dir.root, 'index.json');
  const indexLog = (): string => path.join(dir.root, 'index.log');

  it('a corrupt index.json is moved aside and reported; list still returns every session', async () => {
    const ids = await threeSessions();
    expect(fs.existsSync(indexFile())).toBe(true);
    fs.writeFileSync(indexFile(), '{"format":"baton.index","sessions":{"reg-one":');
    const r = await fresh().list();
    expect(kinds(r.repairs)).toContain('index_corrupt');
    const corrupt = r.repairs.find((x) => x.kind === 'index_corrupt')!;
    expect(path.basename(corrupt.savedTo!)).toMatch(/^index\.json\.corrupt-/);
    expect(fs.readFileSync(corrupt.savedTo!, 'utf8')).toContain('"reg-one":');
    expect([...r.summaries.map((s) => s.id), ...r.missing].sort()).toEqual(ids);
    const m = new SessionManager({ store: fresh(), agent: 't' });
    expect((await m.list({ all: true })).map((s) => s.id).sort()).toEqual(ids);
    // Rebuilt: a later list reports nothing.
    const again = await fresh().list();
    expect(again.repairs).toEqual([]);
    expect(again.summaries.map((s) => s.id).sort()).toEqual(ids);
  });

  it('a corrupt index with its log gone still lists every session through the manager', async () => {
    const ids = await threeSessions();
    fs.writeFileSync(indexFile(), 'garbage');
    fs.rmSync(indexLog());
    const r = await fresh().list();
    expect(kinds(r.repairs)).toEqual(['index_corrupt']);
    expect(r.summaries).toEqual([]);
    expect(r.missing.sort()).toEqual(ids);
    const m = new SessionManager({ store: fresh(), agent: 't' });
    const rows = await m.list({ all: true });
    expect(rows.map((s) => s.id).sort()).toEqual(ids);
    expect(rows.find((s) => s.id === 'reg-three')?.status).toBe('active');
    expect(rows.find((s) => s.id === 'reg-one')?.status).toBe('paused');
    const after = await fresh().list();
    expect(after.missing).toEqual([]);
    expect(after.summaries.map((s) => s.id).sort()).toEqual(ids);
  });

  it('a missing index.json is rebuilt', async () => {
    const ids = await threeSessions();
    fs.rmSync(indexFile());
    // With its log still there, the rows come back from the log at once.
    let r = await fresh().list();
    expect(r.summaries.map((x) => x.id).sort()).toEqual(ids);
    expect(r.missing).toEqual([]);
    expect(fs.existsSync(indexFile())).toBe(true);
    // With both gone, every session is reported missing and the manager derives its row.
    fs.rmSync(indexFile());
    fs.rmSync(indexLog(), { force: true });
    r = await fresh().list();
    expect(r.summaries).toEqual([]);
    expect(r.missing.sort()).toEqual(ids);
    const m = new SessionManager({ store: fresh(), agent: 't' });
    expect((await m.list({ all: true })).map((s) => s.id).sort()).toEqual(ids);
    await fresh().list();
    expect(fs.existsSync(indexFile())).toBe(true);
    const later = await fresh().list();
    expect(later.repairs).toEqual([]);
    expect(later.missing).toEqual([]);
    expect(later.summaries.map((s) => s.id).sort()).toEqual(ids);
  });

  it('list --rebuild rebuilds from the folders', async () => {
    const ids = await threeSessions();
    const r = await fresh().list({ rebuild: true });
    expect(kinds(r.repairs)).toEqual(['index_rebuilt']);
    expect(r.missing.sort()).toEqual(ids);
  });

  it('a session folder copied in by hand shows up as missing and is derived by the manager', async () => {
    const ids = await threeSessions();
    const s = fresh();
    const events = await s.readEvents('reg-one');
    await s.writeSnapshot('reg-one', { revision: events.length, state: stateOf('reg-one', events) });
    await s.close();
    fs.cpSync(sessionDir('reg-one'), sessionDir('copied'), { recursive: true });
    fs.rmSync(path.join(sessionDir('copied'), 'lock'), { force: true });
    const r = await fresh().list();
    expect(r.missing).toEqual(['copied']);
    expect(r.summaries.map((x) => x.id).sort()).toEqual(ids);
    const reports: RepairReport[] = [];
    const m = new SessionManager({ store: fresh(), agent: 't', onRepair: (x) => reports.push(x) });
    const rows = await m.list({ all: true });
    expect(rows.map((x) => x.id).sort()).toEqual(['copied', ...ids].sort());
    expect(rows.find((x) => x.id === 'copied')).toMatchObject({ id: 'copied', title: 'one' });
    // The copied snapshot belongs to another session: set aside, the journal replayed.
    expect(kinds(reports)).toEqual(['snapshot_corrupt']);
    expect((await m.get('copied')).id).toBe('copied');
    expect((await fresh().list()).missing).toEqual([]);
  });

  it('a row deleted from index.json by hand comes back although no folder changed', async () => {
    const ids = await threeSessions();
    const store = fresh();
    expect((await store.list()).missing).toEqual([]); // writes index.json with the folder stamp
    const index = path.join(dir.root, 'index.json');
    const lines = fs.readFileSync(index, 'utf8').split('\n');
    expect(lines[0]).toMatch(/"folders":"\d+:\d+"/);
    const kept = lines.filter((l) => !l.startsWith('{"id":"reg-two"'));
    expect(kept.length).toBe(lines.length - 1);
    // Keep the file well formed: the row before `]}` must not end with a comma.
    const end = kept.indexOf(']}');
    kept[end - 1] = kept[end - 1]!.replace(/,$/, '');
    fs.writeFileSync(index, kept.join('\n'));
    const r = await fresh().list();
    expect([...r.summaries.map((x) => x.id), ...r.missing].sort()).toEqual(ids);
    expect(r.missing).toEqual(['reg-two']);
  });

  it('a session folder created after the last list is found through the folder stamp', async () => {
    const ids = await threeSessions();
    const store = fresh();
    await store.list();
    await seed(store, 'reg-four');
    const r = await fresh().list();
    expect(r.summaries.map((x) => x.id).sort()).toEqual([...ids, 'reg-four'].sort());
  });

  it('an index of the older format (v1, rows keyed by id) is read, migrated to one row per line, and kept as .bak', async () => {
    const ids = await threeSessions();
    const store = fresh();
    const rows = (await store.list()).summaries;
    const v1 = JSON.stringify({
      format: 'baton.index',
      v: 1,
      logOffset: fs.statSync(indexLog()).size,
      sessions: Object.fromEntries(rows.map((r) => [r.id, r])),
    });
    fs.writeFileSync(indexFile(), v1);
    const r = await fresh().list();
    expect(r.summaries.map((x) => x.id).sort()).toEqual(ids);
    expect(r.repairs).toEqual([]);
    expect(fs.readFileSync(indexFile(), 'utf8').split('\n')[0]).toMatch(/^\{"format":"baton\.index","v":2,/);
    expect(fs.readFileSync(`${indexFile()}.bak`, 'utf8')).toBe(v1);
  });

  it('a row whose folder was removed by hand is dropped', async () => {
    const ids = await threeSessions();
    fs.rmSync(sessionDir('reg-two'), { recursive: true });
    const r = await fresh().list();
    expect(r.summaries.map((x) => x.id).sort()).toEqual(ids.filter((x) => x !== 'reg-two'));
    expect(r.missing).toEqual([]);
  });
});
