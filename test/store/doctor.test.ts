/**
 * `baton doctor` over real files: every test damages the store on disk the way a crash, a
 * dead process or a hand edit would, then checks that the doctor reports the problem with
 * its code (changing nothing), that `fix` repairs what is safe, that a second run is clean,
 * and that no stored event is lost.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import { decideSession } from '../../src/domain/decide.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { DOCTOR_CODES } from '../../src/manager/upkeep/doctor-codes.js';
import type { DoctorProblem, DoctorReport } from '../../src/manager/upkeep/doctor-codes.js';
import { SessionManager } from '../../src/manager/manager.js';
import type { ManagerOptions } from '../../src/manager/manager.js';
import { encodeRecord, decodeRecord } from '../../src/store/file/codec.js';
import { FILE_CHECKED_CODES } from '../../src/store/file/doctor.js';
import { FileStore } from '../../src/store/file/store.js';
import { MemoryStore } from '../../src/store/memory.js';
import { tempStoreDir } from './helpers.js';

let dir: ReturnType<typeof tempStoreDir>;
const open: FileStore[] = [];
const T0 = Date.parse('2026-05-01T10:00:00.000Z');
/** The managers' clock: tests move it to let leases expire. */
let clock = T0;

function fresh(): FileStore {
  const s = new FileStore({ root: dir.root, lockTimeoutMs: 3_000 });
  open.push(s);
  return s;
}

/** A manager over a fresh store handle (as a new process would open it). */
function manager(o: Partial<ManagerOptions> = {}): SessionManager {
  return new SessionManager({
    store: fresh(),
    now: () => new Date(clock),
    agent: 'tester',
    snapshotEvery: 5,
    autoCheckpoint: false,
    ...o,
  });
}

function doctor(fix = false): Promise<DoctorReport> {
  return manager().maintenance.doctor({ fix, agent: 'doctor' });
}

const sdir = (id: string, archived = false): string => path.join(dir.root, archived ? 'archive' : 'sessions', id);
const journalOf = (id: string): string => path.join(sdir(id), 'journal.jsonl');
const snapshotOf = (id: string): string => path.join(sdir(id), 'snapshot.json');

function lines(file: string): string[] {
  const l = fs.readFileSync(file, 'utf8').split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

/** Every file of the store with the sha256 of its bytes (folders as `dir`). */
function tree(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir.root, p);
      if (e.isDirectory()) {
        out[rel] = 'dir';
        walk(p);
      } else out[rel] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir.root);
  return out;
}

/** Events by content (what a store adds on write stripped). */
function content(e: StoredEvent): Record<string, unknown> {
  const { v: _v, batch: _b, ...rest } = e as StoredEvent & { batch?: unknown };
  return rest;
}

async function eventsOf(id: string): Promise<StoredEvent[]> {
  return fresh().readEvents(id);
}

/** Runs the check, expecting it to change no file, and returns its report. */
async function check(): Promise<DoctorReport> {
  const before = tree();
  const r = await doctor(false);
  expect(tree()).toEqual(before);
  expect(r.fix).toBe(false);
  for (const p of r.problems) expect(p.fixed).toBe(false);
  return r;
}

function only(r: DoctorReport, code: string, sessionId?: string | null): DoctorProblem[] {
  return r.problems.filter((p) => p.code === code && (sessionId === undefined || p.sessionId === sessionId));
}

function codes(r: DoctorReport): string[] {
  return [...new Set(r.problems.map((p) => p.code))].sort();
}

/** A pid that certainly belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((r) => child.on('exit', r));
  return pid;
}

/** A session with phases, notes, tokens, decisions: enough events for a snapshot or two. */
async function busySession(m: SessionManager, id: string, notes = 12): Promise<void> {
  await m.start({
    title: `Session ${id}`,
    id,
    phases: [
      { id: 'design', name: 'Design' },
      { id: 'build', name: 'Build' },
    ],
    switch: true,
  });
  await m.phase(id, 'design', 'start');
  for (let i = 0; i < notes; i++) await m.note(id, { text: `note ${i}` });
  await m.tokens(id, { input: 100, output: 50, agent: 'a1' });
  await m.decision(id, { title: 'db', choice: 'sqlite', rationale: 'small' });
  await m.phase(id, 'design', 'complete');
  await m.phase(id, 'build', 'start');
  // The burst's lock is released and its room given back (append.ts) once the lock stopped
  // lingering (session-lock.ts): the journal at rest, as the tests below find and damage it.
  await m.derivedFiles.settled();
  for (let i = 0; i < 400 && fs.existsSync(path.join(sdir(id), 'lock')); i++)
    await new Promise((r) => setTimeout(r, 5));
}

beforeEach(() => {
  dir = tempStoreDir('baton-doctor-');
  clock = T0;
});

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  dir.remove();
});

describe('a healthy store', () => {
  it('has no problems: live, archived, snapshotted, checkpointed, leased and released sessions', async () => {
    const m = manager();
    await busySession(m, 'one', 30);
    const { checkpoint: mid } = await m.checkpoints.create('one', { name: 'mid' });
    for (let i = 0; i < 6; i++) await m.finding('one', { text: `finding ${i}` });
    await m.checkpoints.restore('one', mid.id);
    for (let i = 0; i < 6; i++) await m.note('one', { text: `after restore ${i}` });
    const { result: lease } = await m.leases.acquire('one', { owner: 'runner', ttlMs: 60_000 });
    await m.note('one', { text: 'under lease' }, { fencingToken: lease.token });
    await m.leases.release('one', lease.token);
    await busySession(m, 'two', 3);
    await m.lifecycle('two', 'complete', null, { force: true });
    await m.archive('two');
    await busySession(m, 'three', 7);
    await m.list();
    expect(fs.existsSync(snapshotOf('one'))).toBe(true);
    expect(fs.existsSync(`${snapshotOf('one')}.bak`)).toBe(true);

    const r = await check();
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.sessions).toBe(3);
    expect(r.archived).toBe(1);

    // --fix on a healthy store changes nothing either.
    const before = tree();
    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect(f.problems).toEqual([]);
    expect(tree()).toEqual(before);
  });

  it('documents every code the file store checks', () => {
    for (const code of FILE_CHECKED_CODES) expect(DOCTOR_CODES[code], code).toBeDefined();
  });
});

describe('journals', () => {
  it('TORN_TAIL: reported without touching the file; --fix cuts it through the normal open path', async () => {
    await busySession(manager(), 'w');
    const before = await eventsOf('w');
    const torn = encodeRecord({ v: 1, seq: before.length + 1, type: 'note.added', data: { text: 'half' } }).slice(
      0,
      40,
    );
    fs.appendFileSync(journalOf('w'), torn);

    const r = await check();
    expect(codes(r)).toEqual(['TORN_TAIL']);
    expect(only(r, 'TORN_TAIL', 'w')[0]).toMatchObject({
      fixable: true,
      fixed: false,
      path: 'sessions/w/journal.jsonl',
    });
    expect(r.ok).toBe(false);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect(only(f, 'TORN_TAIL', 'w')[0]!.fixed).toBe(true);
    const after = await eventsOf('w');
    expect(after.slice(0, before.length).map(content)).toEqual(before.map(content));
    expect(after[before.length]!.type).toBe('repair.torn_tail');
    const saved = fs.readdirSync(sdir('w')).filter((n) => n.startsWith('journal.jsonl.torn-'));
    expect(saved).toHaveLength(1);
    expect(fs.readFileSync(path.join(sdir('w'), saved[0]!), 'utf8')).toBe(torn);
    expect((await check()).problems).toEqual([]);
  });

  it('JOURNAL_CHECKSUM: a damaged inner line; --fix rebuilds the journal keeping it as a repair event', async () => {
    await busySession(manager(), 'w');
    const before = await eventsOf('w');
    const all = lines(journalOf('w'));
    const victim = 4;
    const damaged = all[victim]!.replace('"note.added"', '"note.addex"');
    expect(damaged).not.toBe(all[victim]);
    all[victim] = damaged;
    fs.writeFileSync(journalOf('w'), `${all.join('\n')}\n`);
    const original = fs.readFileSync(journalOf('w'));

    const r = await check();
    expect(codes(r)).toEqual(['JOURNAL_CHECKSUM']);
    expect(only(r, 'JOURNAL_CHECKSUM')[0]!.message).toMatch(/line 5 \(checksum mismatch\)/);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    const after = await eventsOf('w');
    // Every readable event keeps its seq and content; the damaged line is kept as raw text.
    for (const e of before) {
      if (e.seq === victim + 1) continue;
      expect(content(after[e.seq - 1]!)).toEqual(content(e));
    }
    expect(after[victim]).toMatchObject({ seq: victim + 1, type: 'repair.unreadable_line', data: { raw: damaged } });
    expect(after.at(-1)!.type).toBe('repair.journal');
    const kept = fs.readdirSync(sdir('w')).filter((n) => n.startsWith('journal.jsonl.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(sdir('w'), kept[0]!))).toEqual(original);
    expect((await check()).problems).toEqual([]);
  });

  it('SEQ_GAP: a deleted inner line; --fix makes seq contiguous again without moving any event', async () => {
    await busySession(manager(), 'w');
    const before = await eventsOf('w');
    const all = lines(journalOf('w'));
    all.splice(6, 1);
    fs.writeFileSync(journalOf('w'), `${all.join('\n')}\n`);

    const r = await check();
    expect(codes(r)).toEqual(['SEQ_GAP']);
    expect(only(r, 'SEQ_GAP', 'w')[0]!.message).toMatch(/seq 8 where 7 was expected/);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    const after = await eventsOf('w');
    after.forEach((e, i) => expect(e.seq).toBe(i + 1));
    for (const e of before) if (e.seq !== 7) expect(content(after[e.seq - 1]!)).toEqual(content(e));
    expect(after[6]!.type).toBe('repair.unreadable_line');
    expect((await check()).problems).toEqual([]);
  });

  it('JOURNAL_MISSING and JOURNAL_EMPTY: reported, never "fixed" by deleting anything', async () => {
    const m = manager();
    await busySession(m, 'gone', 2);
    await m.lifecycle('gone', 'pause');
    await busySession(m, 'empty', 2);
    await m.lifecycle('empty', 'pause');
    await busySession(m, 'fine', 2);
    fs.rmSync(journalOf('gone'));
    fs.writeFileSync(journalOf('empty'), '');

    const r = await check();
    expect(only(r, 'JOURNAL_MISSING', 'gone')[0]).toMatchObject({ fixable: false });
    expect(only(r, 'JOURNAL_EMPTY', 'empty')[0]).toMatchObject({ fixable: false });
    expect(r.problems.filter((p) => p.sessionId === 'fine')).toEqual([]);

    const f = await doctor(true);
    expect(f.ok).toBe(false);
    expect(only(f, 'JOURNAL_MISSING', 'gone')[0]!.fixed).toBe(false);
    expect(fs.existsSync(sdir('gone'))).toBe(true);
    expect(fs.existsSync(journalOf('empty'))).toBe(true);
  });
});

describe('snapshots', () => {
  it('SNAPSHOT_CORRUPT: garbage in snapshot.json and .bak; --fix moves both aside and the state is replayed', async () => {
    await busySession(manager(), 'w', 20);
    const expected = await manager().get('w');
    fs.writeFileSync(snapshotOf('w'), 'not a snapshot\n');
    fs.rmSync(`${snapshotOf('w')}.bak`, { force: true });
    fs.writeFileSync(`${snapshotOf('w')}.bak`, '{"format":"baton.snapshot"');

    const r = await check();
    expect(codes(r)).toEqual(['SNAPSHOT_CORRUPT']);
    expect(
      only(r, 'SNAPSHOT_CORRUPT', 'w')
        .map((p) => p.path)
        .sort(),
    ).toEqual(['sessions/w/snapshot.json', 'sessions/w/snapshot.json.bak']);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect(fs.existsSync(snapshotOf('w'))).toBe(false);
    expect(fs.readdirSync(sdir('w')).filter((n) => n.includes('.corrupt-'))).toHaveLength(2);
    expect(await manager().get('w')).toEqual(expected);
    expect((await check()).problems).toEqual([]);
  });

  it('SNAPSHOT_MISMATCH: a well-formed snapshot whose state differs from a replay, or whose offset is wrong', async () => {
    await busySession(manager(), 'w', 20);
    await busySession(manager(), 'x', 20);
    const expected = await manager().get('w');
    const rec = decodeRecord(fs.readFileSync(snapshotOf('w'), 'utf8').trimEnd());
    if (!rec.ok) throw new Error(rec.reason);
    const bad = { ...rec.value, state: { ...(rec.value['state'] as object), title: 'Tampered' } };
    fs.writeFileSync(snapshotOf('w'), `${encodeRecord(bad)}\n`);
    const recX = decodeRecord(fs.readFileSync(snapshotOf('x'), 'utf8').trimEnd());
    if (!recX.ok) throw new Error(recX.reason);
    fs.writeFileSync(
      snapshotOf('x'),
      `${encodeRecord({ ...recX.value, offset: (recX.value['offset'] as number) - 3 })}\n`,
    );

    const r = await check();
    expect(codes(r)).toEqual(['SNAPSHOT_MISMATCH']);
    expect(only(r, 'SNAPSHOT_MISMATCH', 'w')[0]!.message).toMatch(
      /differs from a full replay of the journal in: title/,
    );
    expect(only(r, 'SNAPSHOT_MISMATCH', 'x')[0]!.message).toMatch(/points at byte/);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect((await manager().get('w')).title).toBe(expected.title);
    expect(await manager().get('w')).toEqual(expected);
    expect((await check()).problems).toEqual([]);
  });
});

describe('the registry', () => {
  it('INDEX_STALE: a wrong row, a row without a session, a session without a row; --fix rebuilds', async () => {
    const m = manager();
    await busySession(m, 'a', 2);
    await m.lifecycle('a', 'pause');
    await busySession(m, 'b', 2);
    await m.list();
    const rows = (await m.store.list()).summaries;
    const a = rows.find((r) => r.id === 'a')!;
    const ghost = { ...a, id: 'ghost', title: 'Ghost' };
    const logSize = fs.statSync(path.join(dir.root, 'index.log')).size;
    // Row of a says completed (it is paused), ghost has no folder, b has no row.
    const body = [{ ...a, status: 'completed' }, ghost].map((r) => JSON.stringify(r)).join(',\n');
    fs.writeFileSync(
      path.join(dir.root, 'index.json'),
      `{"format":"baton.index","v":2,"logOffset":${logSize},"folders":"","sessions":[\n${body}\n]}\n`,
    );

    const r = await check();
    expect(codes(r)).toEqual(['INDEX_STALE']);
    expect(only(r, 'INDEX_STALE', 'a')[0]!.message).toMatch(/status "completed" should be "paused"/);
    expect(only(r, 'INDEX_STALE', 'ghost')[0]!.message).toMatch(/no folder/);
    expect(only(r, 'INDEX_STALE', 'b')[0]!.message).toMatch(/no row/);

    // The row of a deleted session (a tombstone names it) lingers until `list`: not a problem.
    const gone = { ...a, id: 'deleted-one' };
    const withGone = fs
      .readFileSync(path.join(dir.root, 'index.json'), 'utf8')
      .replace('\n]}', `,\n${JSON.stringify(gone)}\n]}`);
    fs.writeFileSync(path.join(dir.root, 'index.json'), withGone);
    fs.writeFileSync(
      path.join(dir.root, 'tombstones.jsonl'),
      `${encodeRecord({ id: 'deleted-one', deletedAt: new Date(T0).toISOString(), title: 'x', status: 'completed', archived: false })}\n`,
    );
    expect(
      only(await check(), 'INDEX_STALE')
        .map((p) => p.sessionId)
        .sort(),
    ).toEqual(['a', 'b', 'ghost']);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    const listed = await manager().list({ all: true });
    expect(listed.map((x) => [x.id, x.status]).sort()).toEqual([
      ['a', 'paused'],
      ['b', 'active'],
    ]);
    expect((await check()).problems).toEqual([]);
  });

  it('INDEX_CORRUPT: index.json that is not JSON; --fix moves it aside and rebuilds', async () => {
    await busySession(manager(), 'a', 2);
    await manager().list();
    fs.writeFileSync(path.join(dir.root, 'index.json'), '{"format":"baton.index", garbage');

    const r = await check();
    expect(codes(r)).toEqual(['INDEX_CORRUPT']);
    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect(fs.readdirSync(dir.root).filter((n) => n.startsWith('index.json.corrupt-'))).toHaveLength(1);
    expect((await manager().list()).map((x) => x.id)).toEqual(['a']);
    expect((await check()).problems).toEqual([]);
  });
});

describe('the active pointer and active sessions', () => {
  it('ACTIVE_DANGLING: the pointer names a missing session; --fix points at the one active session', async () => {
    await busySession(manager(), 'a', 1);
    fs.writeFileSync(path.join(dir.root, 'active'), 'ghost\n');
    const r = await check();
    expect(codes(r)).toEqual(['ACTIVE_DANGLING']);
    const f = await doctor(true);
    expect(f.ok).toBe(true);
    expect(await fresh().getActive()).toBe('a');

    fs.writeFileSync(path.join(dir.root, 'active'), '../../etc\n');
    expect(codes(await check())).toEqual(['ACTIVE_DANGLING']);
    await manager().lifecycle('a', 'pause');
    fs.writeFileSync(path.join(dir.root, 'active'), '../../etc\n');
    expect((await doctor(true)).ok).toBe(true);
    expect(await fresh().getActive()).toBeNull();
  });

  it('ACTIVE_NOT_ACTIVE: the pointer names a completed or archived session; --fix clears it', async () => {
    const m = manager();
    await busySession(m, 'done', 1);
    await m.lifecycle('done', 'complete', null, { force: true });
    await busySession(m, 'old', 1);
    await m.lifecycle('old', 'pause');
    await m.archive('old');
    for (const id of ['done', 'old']) {
      fs.writeFileSync(path.join(dir.root, 'active'), `${id}\n`);
      const r = await check();
      expect(only(r, 'ACTIVE_NOT_ACTIVE', id)[0]!.message).toMatch(
        id === 'done' ? /has ended \(completed\)/ : /is archived/,
      );
      expect((await doctor(true)).ok).toBe(true);
      expect(await fresh().getActive()).toBeNull();
    }
  });

  it('ACTIVE_UNPOINTED: an active session with no pointer; --fix points at it', async () => {
    await busySession(manager(), 'a', 1);
    fs.rmSync(path.join(dir.root, 'active'));
    expect(codes(await check())).toEqual(['ACTIVE_UNPOINTED']);
    expect((await doctor(true)).ok).toBe(true);
    expect(await fresh().getActive()).toBe('a');
  });

  it('DUPLICATE_ACTIVE: two active sessions are reported (not fixed) naming the one to pause', async () => {
    const m = manager();
    await busySession(m, 'a', 1);
    await busySession(m, 'b', 1); // pauses a, b is the workspace session
    await m.change('a', (st) => ({ events: decideSession(st, 'resume'), result: undefined }));
    expect((await m.get('a')).status).toBe('active');

    const r = await check();
    expect(codes(r)).toEqual(['DUPLICATE_ACTIVE']);
    const p = only(r, 'DUPLICATE_ACTIVE')[0]!;
    expect(p).toMatchObject({ sessionId: 'a', fixable: false });
    expect(p.message).toMatch(/baton pause --session a/);

    const before = tree();
    const f = await doctor(true);
    expect(f.ok).toBe(false);
    expect(only(f, 'DUPLICATE_ACTIVE')[0]!.fixed).toBe(false);
    expect(tree()).toEqual(before);
  });

  it('LEASE_EXPIRED: active with an expired lease; --fix records the interruption by a normal write', async () => {
    const m = manager();
    await busySession(m, 'a', 2);
    await m.leases.acquire('a', { owner: 'runner', ttlMs: 60_000 });
    const before = await eventsOf('a');
    expect((await check()).problems).toEqual([]);

    clock = T0 + 3_600_000;
    const r = await check();
    expect(codes(r)).toEqual(['LEASE_EXPIRED']);
    expect(only(r, 'LEASE_EXPIRED', 'a')[0]!.message).toMatch(/runner.*expired at/);

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    const after = await eventsOf('a');
    expect(after.slice(0, before.length).map(content)).toEqual(before.map(content));
    expect(after.slice(before.length).map((e) => e.type)).toEqual(['lease.expired', 'session.interrupted']);
    const st = await manager().get('a');
    expect(st.status).toBe('interrupted');
    expect(st.statusCause?.cause).toBe('lease-expired');
    expect((await manager().list()).find((x) => x.id === 'a')!.status).toBe('interrupted');
    expect((await check()).problems).toEqual([]);
  });
});

describe('checkpoints', () => {
  it('CHECKPOINT_CORRUPT: reported, never deleted or changed, also by --fix', async () => {
    const m = manager();
    await busySession(m, 'a', 2);
    const { checkpoint } = await m.checkpoints.create('a', { name: 'before' });
    await m.checkpoints.create('a', { name: 'after' });
    const file = path.join(sdir('a'), 'checkpoints', `${checkpoint.id}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"before"', '"BEFORE"'));
    const bytes = fs.readFileSync(file);

    const r = await check();
    expect(codes(r)).toEqual(['CHECKPOINT_CORRUPT']);
    expect(only(r, 'CHECKPOINT_CORRUPT', 'a')[0]).toMatchObject({ fixable: false });
    expect(only(r, 'CHECKPOINT_CORRUPT', 'a')[0]!.message).toMatch(new RegExp(`${checkpoint.id}.*checksum mismatch`));

    const f = await doctor(true);
    expect(f.ok).toBe(false);
    expect(fs.readFileSync(file)).toEqual(bytes);
  });
});

describe('leftovers of dead processes', () => {
  it('TEMP_FILES: temp files and half-created folders of dead pids are removed; those of live ones stay', async () => {
    const m = manager();
    await busySession(m, 'a', 2);
    await m.checkpoints.create('a', { name: 'cp' });
    const dead = await deadPid();
    const leftovers = [
      path.join(dir.root, `index.json.tmp-${dead}-abc-1`),
      path.join(dir.root, `active.tmp-${dead}-abc-2`),
      path.join(sdir('a'), `snapshot.json.tmp-${dead}-abc-3`),
      path.join(sdir('a'), 'checkpoints', `cp-9-x.json.tmp-${dead}-abc-4`),
    ];
    for (const f of leftovers) fs.writeFileSync(f, 'partial');
    const creating = path.join(dir.root, 'sessions', `b.creating-${dead}-abc`);
    fs.mkdirSync(creating);
    fs.writeFileSync(path.join(creating, 'journal.jsonl'), 'x\n');
    const live = [
      path.join(dir.root, `index.json.tmp-${process.pid}-abc-1`),
      path.join(sdir('a'), `snapshot.json.tmp-${process.ppid}-abc-1`),
    ];
    for (const f of live) fs.writeFileSync(f, 'in progress');

    const r = await check();
    expect(codes(r)).toEqual(['TEMP_FILES']);
    expect(
      only(r, 'TEMP_FILES')
        .map((p) => p.path)
        .sort(),
    ).toEqual([...leftovers, creating].map((f) => path.relative(dir.root, f)).sort());
    const f = await doctor(true);
    expect(f.ok).toBe(true);
    for (const x of [...leftovers, creating]) expect(fs.existsSync(x)).toBe(false);
    for (const x of live) expect(fs.existsSync(x)).toBe(true);
    expect((await check()).problems).toEqual([]);
  });

  it('STALE_LOCK: locks of dead owners and old markers are removed; a live lock stays', async () => {
    const m = manager();
    await busySession(m, 'a', 2);
    await m.lifecycle('a', 'pause');
    await busySession(m, 'b', 2);
    await m.store.close();
    const dead = await deadPid();
    const owner = (pid: number, host = os.hostname(), time = Date.now()) =>
      JSON.stringify({ pid, host, time, nonce: `${pid}-x` });
    const old = new Date(Date.now() - 60_000);
    fs.writeFileSync(path.join(sdir('a'), 'lock'), owner(dead));
    fs.writeFileSync(path.join(dir.root, 'workspace.lock'), owner(dead));
    fs.writeFileSync(path.join(sdir('a'), 'lock.want'), String(dead));
    fs.writeFileSync(path.join(dir.root, 'workspace.lock.break'), '');
    fs.utimesSync(path.join(dir.root, 'workspace.lock.break'), old, old);
    const foreign = path.join(dir.root, 'other.lock');
    fs.writeFileSync(foreign, owner(4242, 'some-other-host', Date.now() - 3_600_000));
    const liveLock = path.join(sdir('b'), 'lock');
    const liveOwner = owner(process.ppid);
    fs.writeFileSync(liveLock, liveOwner);

    const r = await check();
    expect(codes(r)).toEqual(['STALE_LOCK']);
    expect(
      only(r, 'STALE_LOCK')
        .map((p) => p.path)
        .sort(),
    ).toEqual(['other.lock', 'sessions/a/lock', 'sessions/a/lock.want', 'workspace.lock', 'workspace.lock.break']);
    expect(only(r, 'STALE_LOCK', 'a').find((p) => p.path === 'sessions/a/lock')!.message).toMatch(
      new RegExp(`pid ${dead}, which is no longer running`),
    );

    const f = await doctor(true);
    expect(f.ok).toBe(true);
    for (const x of ['sessions/a/lock', 'sessions/a/lock.want', 'workspace.lock', 'workspace.lock.break', 'other.lock'])
      expect(fs.existsSync(path.join(dir.root, x))).toBe(false);
    expect(fs.readFileSync(liveLock, 'utf8')).toBe(liveOwner);
    fs.rmSync(liveLock);
    // The sessions take writes again.
    await manager().note('a', { text: 'after the doctor' });
  });
});

describe('the store itself', () => {
  it('STORE_MARKER, STORE_LAYOUT and DUPLICATE_FOLDER', async () => {
    const m = manager();
    await busySession(m, 'a', 1);
    await m.lifecycle('a', 'pause');
    fs.cpSync(sdir('a'), sdir('a', true), { recursive: true });
    fs.writeFileSync(path.join(dir.root, 'store.json'), 'garbage');

    const r = await check();
    expect(codes(r)).toEqual(['DUPLICATE_FOLDER', 'STORE_MARKER']);
    expect(only(r, 'DUPLICATE_FOLDER', 'a')[0]).toMatchObject({ fixable: false, path: 'archive/a' });
    const f = await doctor(true);
    expect(only(f, 'STORE_MARKER')[0]!.fixed).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dir.root, 'store.json'), 'utf8'))).toEqual({
      format: 'baton.store',
      version: 1,
    });
    expect(fs.readdirSync(dir.root).filter((n) => n.startsWith('store.json.corrupt-'))).toHaveLength(1);
    expect(only(f, 'DUPLICATE_FOLDER')[0]!.fixed).toBe(false);
    expect(fs.existsSync(sdir('a', true))).toBe(true);

    fs.rmSync(sdir('a', true), { recursive: true });
    fs.rmSync(path.join(dir.root, 'archive'), { recursive: true });
    expect(codes(await check())).toEqual(['STORE_LAYOUT']);
    expect((await doctor(true)).ok).toBe(true);
    expect(fs.statSync(path.join(dir.root, 'archive')).isDirectory()).toBe(true);
  });
});

describe('everything at once', () => {
  it('finds every problem, fixes the safe ones, leaves the rest, and loses no stored event', async () => {
    const m = manager();
    // `lease` last: starting a session (with switch) pauses the active one.
    for (const id of ['torn', 'bad', 'gap', 'snap', 'cp', 'lease']) {
      await busySession(m, id, 12);
      if (id !== 'lease') await m.lifecycle(id, 'pause');
    }
    await m.leases.acquire('lease', { owner: 'runner', ttlMs: 1_000 });
    await m.checkpoints.create('cp', { name: 'x' });
    await m.list();
    await m.close();
    const before = new Map<string, StoredEvent[]>();
    for (const id of ['torn', 'bad', 'gap', 'snap', 'lease', 'cp']) before.set(id, await eventsOf(id));

    fs.appendFileSync(journalOf('torn'), '{"v":1,"seq":99,"ty');
    const bad = lines(journalOf('bad'));
    bad[3] = `${bad[3]!.slice(0, -5)}XXXX"}`;
    fs.writeFileSync(journalOf('bad'), `${bad.join('\n')}\n`);
    const gap = lines(journalOf('gap'));
    gap.splice(5, 1);
    fs.writeFileSync(journalOf('gap'), `${gap.join('\n')}\n`);
    fs.writeFileSync(snapshotOf('snap'), '\u0000\u0000garbage');
    const cpDir = path.join(sdir('cp'), 'checkpoints');
    fs.writeFileSync(path.join(cpDir, fs.readdirSync(cpDir)[0]!), 'garbage');
    fs.writeFileSync(path.join(dir.root, 'index.json'), 'garbage');
    fs.writeFileSync(path.join(dir.root, 'active'), 'nobody\n');
    const dead = await deadPid();
    fs.writeFileSync(path.join(sdir('snap'), `snapshot.json.tmp-${dead}-a-1`), '');
    fs.writeFileSync(
      path.join(sdir('gap'), 'lock'),
      JSON.stringify({ pid: dead, host: os.hostname(), time: Date.now(), nonce: 'n' }),
    );
    clock = T0 + 3_600_000;

    const r = await check();
    expect(codes(r)).toEqual(
      [
        'ACTIVE_DANGLING',
        'CHECKPOINT_CORRUPT',
        'INDEX_CORRUPT',
        'JOURNAL_CHECKSUM',
        'LEASE_EXPIRED',
        'SEQ_GAP',
        'SNAPSHOT_CORRUPT',
        'STALE_LOCK',
        'TEMP_FILES',
        'TORN_TAIL',
      ].sort(),
    );
    // Store-wide problems come first, then sessions in order.
    const groups = r.problems.map((p) => p.sessionId);
    expect(groups.indexOf(null)).toBe(0);

    const f = await doctor(true);
    expect(f.ok).toBe(false);
    const left = f.problems.filter((p) => !p.fixed);
    expect(left.map((p) => p.code)).toEqual(['CHECKPOINT_CORRUPT']);

    // No stored event lost: every event read before is still there with its seq and content
    // (the damaged line of `bad` as raw text in a repair event, the deleted line of `gap` was
    // already gone from the file).
    for (const [id, events] of before) {
      const after = await eventsOf(id);
      after.forEach((e, i) => expect(e.seq).toBe(i + 1));
      for (const e of events) {
        const now = after[e.seq - 1]!;
        if (id === 'bad' && e.seq === 4) {
          expect(now.type).toBe('repair.unreadable_line');
          continue;
        }
        if (id === 'gap' && e.seq === 6) continue;
        expect(content(now)).toEqual(content(e));
      }
      const st = fold(null, after, id)!;
      expect(await manager().get(id)).toEqual(st);
    }
    const again = await check();
    expect(again.problems.map((p) => p.code)).toEqual(['CHECKPOINT_CORRUPT']);
  });
});

describe('stores without file-level checks (the contract only)', () => {
  it('finds and fixes a stale registry row, a mismatched snapshot and a dangling pointer over a memory store', async () => {
    const store = new MemoryStore();
    const m = new SessionManager({
      store,
      now: () => new Date(clock),
      agent: 'tester',
      snapshotEvery: 5,
      autoCheckpoint: false,
    });
    await busySession(m, 'a', 12);
    const st = await m.get('a');
    await store.putSummaries([{ ...(await store.list()).summaries[0]!, status: 'failed' }]);
    await store.writeSnapshot('a', { revision: st.revision, state: { ...st, title: 'Tampered' } });

    const r = await m.maintenance.doctor();
    expect(codes(r)).toEqual(['INDEX_STALE', 'SNAPSHOT_MISMATCH']);
    const f = await m.maintenance.doctor({ fix: true });
    expect(f.ok).toBe(true);
    expect((await m.get('a')).title).toBe('Session a');
    expect((await store.list()).summaries[0]!.status).toBe('active');
    expect((await m.maintenance.doctor()).problems).toEqual([]);
  });

  it('a writer that moves the session on and snapshots it while doctor reads it is no SNAPSHOT_MISMATCH', async () => {
    const store = new MemoryStore();
    const m = new SessionManager({
      store,
      now: () => new Date(clock),
      agent: 'tester',
      snapshotEvery: 5,
      autoCheckpoint: false,
    });
    await busySession(m, 'a', 12);
    const live = new SessionManager({ store, now: () => new Date(clock), agent: 'live', autoCheckpoint: false });
    // Between doctor's read of the events and its load, a live writer appends and snapshots.
    const load = store.load.bind(store);
    let moved = false;
    store.load = async (id) => {
      if (!moved) {
        moved = true;
        const { state } = await live.note(id, { text: 'meanwhile' });
        await store.writeSnapshot(id, { revision: state.revision, state });
      }
      return load(id);
    };
    const r = await m.maintenance.doctor();
    expect(moved).toBe(true);
    expect(r.problems).toEqual([]);
  });
});
