/**
 * `baton doctor [--fix] [--json]` end to end: the built CLI over stores the tests damage on
 * disk (garbage, truncation, temp files and locks of dead processes, hand-edited pointers),
 * checked for the codes, the exit status, the output shapes, and that nothing stored is lost.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideSession } from '../../src/domain/decide.js';
import { SessionManager } from '../../src/manager/manager.js';
import { FileStore } from '../../src/store/file/store.js';
import { EXIT_CODES, expectError, pool, withSession, workspace } from './helpers.js';
import type { EventJson, Workspace } from './helpers.js';

interface DoctorJson {
  ok: boolean;
  problems: Array<{ code: string; sessionId: string | null; message: string; fixable: boolean; fixed: boolean }>;
}

/** Runs `doctor …args --json`, expecting `code` and an empty stderr; returns the parsed report. */
async function doctorJson(
  ws: Workspace,
  args: string[],
  code: number,
  env?: Record<string, string>,
): Promise<DoctorJson> {
  const r = await ws.run(['doctor', ...args, '--json'], env ? { env } : {});
  const context = `exit ${r.code}\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`;
  expect(r.code, context).toBe(code);
  expect(r.stderr, context).toBe('');
  const body = JSON.parse(r.stdout) as DoctorJson;
  expect(Object.keys(body)).toEqual(['ok', 'problems']);
  for (const p of body.problems) expect(Object.keys(p)).toEqual(['code', 'sessionId', 'message', 'fixable', 'fixed']);
  expect(body.ok).toBe(code === 0);
  return body;
}

function codesOf(d: DoctorJson): string[] {
  return [...new Set(d.problems.map((p) => p.code))].sort();
}

/** Opens the workspace's store with the library, for setups the CLI would take long to make. */
async function withManager<T>(ws: Workspace, fn: (m: SessionManager) => Promise<T>, now?: () => Date): Promise<T> {
  const m = new SessionManager({
    store: new FileStore({ root: ws.store }),
    agent: 'setup',
    snapshotEvery: 5,
    autoCheckpoint: false,
    ...(now ? { now } : {}),
  });
  try {
    return await fn(m);
  } finally {
    await m.close();
  }
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((r) => child.on('exit', r));
  return pid;
}

function sessionDir(ws: Workspace, id: string): string {
  return ws.path('.baton', 'sessions', id);
}

describe('baton doctor on a healthy store', () => {
  it('exits 0 after real use: concurrent writers, a run, checkpoints, an archived session', async () => {
    const ws = await withSession('s1', 'design,build');
    await ws.ok(['phase', 'start', 'design']);
    await pool(
      Array.from({ length: 12 }, (_, i) => i),
      6,
      (i) => ws.ok(['tokens', 'add', '--agent', `a${i % 3}`, '--input', '10', '--output', '5']),
    );
    expect((await ws.run(['run', '--', process.execPath, '-e', '0'])).code).toBe(0);
    await ws.ok(['resume', '--apply']);
    await ws.ok(['checkpoint', 'mid']);
    await ws.ok(['phase', 'complete', 'design']);
    await ws.ok(['start', 'Second', '--id', 's2', '--switch']);
    await ws.ok(['complete']);
    await ws.ok(['archive', 's2']);
    await ws.ok(['list', '--all']);

    const r = await ws.ok(['doctor']);
    expect(r.stdout).toMatch(/2 session\(s\) \(1 archived\)/);
    expect(r.stdout).toMatch(/No problems/);
    expect(await doctorJson(ws, [], 0)).toEqual({ ok: true, problems: [] });
    expect(await doctorJson(ws, ['--fix'], 0)).toEqual({ ok: true, problems: [] });
  });

  it('without a store: NO_STORE (14)', async () => {
    const ws = workspace();
    expectError(await ws.run(['doctor']), 'NO_STORE');
  });
});

describe('baton doctor on a damaged store', () => {
  it('reports each problem with its code (exit 10), --fix repairs them (exit 0), nothing stored is lost', async () => {
    const ws = await withSession('s1', 'a,b');
    await ws.ok(['phase', 'start', 'a']);
    for (let i = 0; i < 3; i++) await ws.ok(['note', 'add', `n${i}`]);
    await ws.ok(['pause']);
    // s2 gets a snapshot (the library writes one every 5 events here).
    await withManager(ws, async (m) => {
      await m.start({ title: 'Second', id: 's2', phases: [{ id: 'x', name: 'X' }] });
      for (let i = 0; i < 12; i++) await m.note('s2', { text: `note ${i}` });
    });
    const before1 = await ws.log('s1');
    const before2 = await ws.log('s2');
    expect(fs.existsSync(path.join(sessionDir(ws, 's2'), 'snapshot.json'))).toBe(true);

    const torn = '{"v":1,"seq":7,"type":"note.ad';
    fs.appendFileSync(path.join(sessionDir(ws, 's1'), 'journal.jsonl'), torn);
    fs.writeFileSync(path.join(sessionDir(ws, 's2'), 'snapshot.json'), 'garbage');
    fs.writeFileSync(ws.path('.baton', 'index.json'), '[not json');
    fs.writeFileSync(ws.path('.baton', 'active'), 'nobody\n');
    const dead = await deadPid();
    const temp = path.join(sessionDir(ws, 's2'), `snapshot.json.tmp-${dead}-x-1`);
    fs.writeFileSync(temp, 'half');
    const lock = path.join(sessionDir(ws, 's1'), 'lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: dead, host: os.hostname(), time: Date.now(), nonce: 'n' }));

    const found = await doctorJson(ws, [], EXIT_CODES.CORRUPT);
    expect(codesOf(found)).toEqual([
      'ACTIVE_DANGLING',
      'INDEX_CORRUPT',
      'SNAPSHOT_CORRUPT',
      'STALE_LOCK',
      'TEMP_FILES',
      'TORN_TAIL',
    ]);
    for (const p of found.problems) expect(p).toMatchObject({ fixable: true, fixed: false });
    expect(found.problems.find((p) => p.code === 'TORN_TAIL')!.sessionId).toBe('s1');
    expect(found.problems.find((p) => p.code === 'SNAPSHOT_CORRUPT')!.sessionId).toBe('s2');
    expect(found.problems.find((p) => p.code === 'ACTIVE_DANGLING')!.sessionId).toBeNull();
    // The check changed nothing.
    expect(fs.readFileSync(path.join(sessionDir(ws, 's1'), 'journal.jsonl'), 'utf8').endsWith(torn)).toBe(true);
    expect(fs.existsSync(temp) && fs.existsSync(lock)).toBe(true);

    // Human output: grouped by session, the store's own problems first, a summary line.
    const human = await ws.run(['doctor']);
    expect(human.code).toBe(EXIT_CODES.CORRUPT);
    expect(human.stderr).toBe('');
    const out = human.stdout;
    expect(out.indexOf('\nstore\n')).toBeGreaterThan(-1);
    expect(out.indexOf('\nstore\n')).toBeLessThan(out.indexOf('\nsession s1\n'));
    expect(out.indexOf('\nsession s1\n')).toBeLessThan(out.indexOf('\nsession s2\n'));
    expect(out).toMatch(/\n {2}TORN_TAIL +fixable +the journal ends in a torn append/);
    expect(out).toMatch(/6 problem\(s\): 6 fixable with `baton doctor --fix`\.\n$/);

    const fixed = await doctorJson(ws, ['--fix'], 0);
    expect(codesOf(fixed)).toEqual(codesOf(found));
    for (const p of fixed.problems) expect(p.fixed, p.message).toBe(true);
    expect(await doctorJson(ws, [], 0)).toEqual({ ok: true, problems: [] });

    // Nothing lost: every event is still there (s1 gained the torn-tail repair event), the
    // torn bytes are kept, the snapshot and index moved aside rather than deleted.
    const after1 = await ws.log('s1');
    expect(after1.slice(0, before1.length)).toEqual(before1);
    expect(after1.slice(before1.length).map((e: EventJson) => e.type)).toEqual(['repair.torn_tail']);
    expect(await ws.log('s2')).toEqual(before2);
    const s1Files = fs.readdirSync(sessionDir(ws, 's1'));
    const tornFile = s1Files.find((n) => n.startsWith('journal.jsonl.torn-'))!;
    expect(fs.readFileSync(path.join(sessionDir(ws, 's1'), tornFile), 'utf8')).toBe(torn);
    expect(fs.readdirSync(sessionDir(ws, 's2')).some((n) => n.startsWith('snapshot.json.corrupt-'))).toBe(true);
    expect(fs.readdirSync(ws.store).some((n) => n.startsWith('index.json.corrupt-'))).toBe(true);
    expect(fs.existsSync(temp) || fs.existsSync(lock)).toBe(false);
    // The pointer now names the one active session, and the registry lists both.
    expect(fs.readFileSync(ws.path('.baton', 'active'), 'utf8').trim()).toBe('s2');
    const list = await ws.json<Array<{ id: string; status: string }>>(['list']);
    expect(list.map((r) => [r.id, r.status]).sort()).toEqual([
      ['s1', 'paused'],
      ['s2', 'active'],
    ]);
  });

  it('damaged journal lines (checksum, seq gap): --fix rebuilds them, keeping the damaged text', async () => {
    const ws = await withSession('s1', 'a');
    for (let i = 0; i < 5; i++) await ws.ok(['note', 'add', `n${i}`]);
    const file = path.join(sessionDir(ws, 's1'), 'journal.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"n1"', '"nX"');
    lines.splice(4, 1);
    fs.writeFileSync(file, lines.join('\n'));
    expectError(await ws.run(['status']), 'CORRUPT');

    const found = await doctorJson(ws, [], EXIT_CODES.CORRUPT);
    expect(codesOf(found)).toEqual(['JOURNAL_CHECKSUM', 'SEQ_GAP']);
    const fixed = await doctorJson(ws, ['--fix'], 0);
    expect(fixed.problems.every((p) => p.fixed)).toBe(true);
    const log = await ws.log('s1');
    log.forEach((e, i) => expect(e.seq).toBe(i + 1));
    expect(log[2]).toMatchObject({ type: 'repair.unreadable_line' });
    expect(JSON.stringify(log[2]!.data)).toContain('nX');
    expect(log.filter((e) => e.type === 'note.added').map((e) => e.data['text'])).toEqual(['n0', 'n2', 'n4']);
    expect(fs.readdirSync(sessionDir(ws, 's1')).some((n) => n.startsWith('journal.jsonl.corrupt-'))).toBe(true);
  });

  it('two active sessions: reported with the one to pause, not fixed; exit 10 until the user pauses it', async () => {
    const ws = await withSession('a');
    await ws.ok(['start', 'B', '--id', 'b', '--switch']);
    await withManager(ws, (m) => m.change('a', (s) => ({ events: decideSession(s, 'resume'), result: undefined })));

    const r = await ws.run(['doctor', '--fix']);
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    expect(r.stdout).toMatch(
      /session a\n {2}DUPLICATE_ACTIVE +by hand +sessions b and a are both active.*`baton pause --session a`/,
    );
    expect(r.stdout).toMatch(/1 problem\(s\): 0 fixed, 1 left \(1 to fix by hand, see above\)\.\n$/);
    const d = await doctorJson(ws, ['--fix'], EXIT_CODES.CORRUPT);
    expect(d.problems).toEqual([
      expect.objectContaining({ code: 'DUPLICATE_ACTIVE', sessionId: 'a', fixable: false, fixed: false }),
    ]);

    await ws.ok(['pause', '--session', 'a']);
    await ws.ok(['doctor']);
  });

  it('an expired lease: LEASE_EXPIRED; --fix records the interruption (lease-expired)', async () => {
    const ws = await withSession('s1', 'a');
    await ws.ok(['phase', 'start', 'a']);
    await withManager(ws, (m) => m.leases.acquire('s1', { owner: 'vanished-run', ttlMs: 60_000 }));
    await ws.ok(['doctor']);

    const later = { BATON_NOW: new Date(Date.now() + 2 * 3_600_000).toISOString() };
    const found = await doctorJson(ws, [], EXIT_CODES.CORRUPT, later);
    expect(found.problems).toEqual([
      expect.objectContaining({ code: 'LEASE_EXPIRED', sessionId: 's1', fixable: true, fixed: false }),
    ]);
    expect(found.problems[0]!.message).toMatch(/vanished-run/);
    const before = await ws.log('s1');

    const fixed = await doctorJson(ws, ['--fix'], 0, later);
    expect(fixed.problems[0]!.fixed).toBe(true);
    const log = await ws.log('s1', { env: later });
    expect(log.slice(0, before.length)).toEqual(before);
    expect(log.slice(before.length).map((e) => e.type)).toEqual(['lease.expired', 'session.interrupted']);
    const status = await ws.status('s1', { env: later });
    expect(status.status).toBe('interrupted');
    expect(status.cause?.cause).toBe('lease-expired');
    await doctorJson(ws, [], 0, later);
  });

  it('a damaged checkpoint: reported, never deleted; exit 10 even after --fix', async () => {
    const ws = await withSession('s1');
    const { checkpoint: cp } = await ws.json<{ checkpoint: { id: string } }>(['checkpoint', 'first']);
    const file = path.join(sessionDir(ws, 's1'), 'checkpoints', `${cp.id}.json`);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const bytes = fs.readFileSync(file);

    const d = await doctorJson(ws, ['--fix'], EXIT_CODES.CORRUPT);
    expect(d.problems).toEqual([
      expect.objectContaining({ code: 'CHECKPOINT_CORRUPT', sessionId: 's1', fixable: false, fixed: false }),
    ]);
    expect(d.problems[0]!.message).toContain(cp.id);
    expect(fs.readFileSync(file)).toEqual(bytes);
  });
});
