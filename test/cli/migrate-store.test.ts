/**
 * `baton migrate-store` with real processes: a store with live, archived and deleted
 * sessions, checkpoints and an active pointer copied file → file and verified; the copy read
 * back through the CLI; a copy killed with SIGKILL half-way and run again; a target that
 * diverges refused by name and left alone. file → PostgreSQL → file when BATON_TEST_PG_URL
 * is set.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openManager } from '../../src/manager/open.js';
import { PG_URL, dropSchema, freshSchema, urlWith } from '../store/pg-helpers.js';
import { BATON, EXIT_CODES, baseEnv, expectError, runBaton, workspace } from './helpers.js';
import type { Workspace } from './helpers.js';

interface MigrateJson {
  sessions: Array<{
    id: string;
    action: string;
    events: number;
    eventsCopied: number;
    checkpoints: number;
    archived: boolean;
    sha256: string;
  }>;
  totals: {
    sessions: number;
    events: number;
    eventsCopied: number;
    checkpoints: number;
    checkpointsCopied: number;
    tombstones: number;
    tombstonesCopied: number;
  };
  active: string | null;
  verified: boolean;
  problems: unknown[];
}

/** Events as the CLI shows them, without the store's own bookkeeping fields. */
async function events(ws: Workspace, store: { dir?: string; url?: string }, id: string): Promise<unknown[]> {
  const r = await runBaton(
    ['log', '--session', id, '--json', ...(store.dir ? ['--dir', store.dir] : [])],
    ws.dir,
    baseEnv(store.url ? { BATON_STORE: store.url } : {}),
  );
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<Record<string, unknown>>).map(({ v: _v, batch: _b, ...rest }) => rest);
}

async function jsonOf<T>(ws: Workspace, args: string[], env: Record<string, string> = {}): Promise<T> {
  const r = await runBaton([...args, '--json'], ws.dir, baseEnv(env));
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/** A source store with every kind of thing a store holds. */
async function richSource(): Promise<Workspace> {
  const ws = workspace();
  await ws.ok(['start', 'Deleted later', '--id', 'gone']);
  await ws.ok(['complete']);
  await ws.ok(['cleanup', '--older-than', '0d', '--delete', '--status', 'completed']);
  await ws.ok(['start', 'Kept and archived', '--id', 'arch', '--phases', 'a,b']);
  await ws.ok(['phase', 'start', 'a']);
  await ws.ok(['phase', 'complete', 'a']);
  await ws.ok(['complete', '--force']);
  await ws.ok(['archive', 'arch']);
  await ws.ok(['start', 'Live one', '--id', 'live', '--phases', 'build,test']);
  await ws.ok(['phase', 'start', 'build']);
  ws.write('src/x.ts', 'export const x = 1;\n');
  await ws.ok(['file', 'created', 'src/x.ts']);
  await ws.ok(['checkpoint', 'before tests']);
  await ws.ok(['tokens', 'add', '--agent', 'coder', '--input', '100', '--output', '20']);
  await ws.ok(['note', 'add', 'ünïcödé ✓ "quotes" and \\ backslashes']);
  await ws.ok(['start', 'Other', '--id', 'other', '--switch']);
  await ws.ok(['switch', 'live']);
  return ws;
}

/** Asserts the target holds what the source holds, read back through the CLI. */
async function sameContent(
  ws: Workspace,
  a: { dir?: string; url?: string },
  b: { dir?: string; url?: string },
): Promise<void> {
  const env = (s: { url?: string }): Record<string, string> => (s.url ? { BATON_STORE: s.url } : {});
  const args = (s: { dir?: string }): string[] => (s.dir ? ['--dir', s.dir] : []);
  const listA = await jsonOf<Array<Record<string, unknown>>>(ws, ['list', '--all', ...args(a)], env(a));
  const listB = await jsonOf<Array<Record<string, unknown>>>(ws, ['list', '--all', ...args(b)], env(b));
  expect(listB).toEqual(listA);
  for (const row of listA)
    expect(await events(ws, b, String(row['id']))).toEqual(await events(ws, a, String(row['id'])));
  expect(await jsonOf<unknown[]>(ws, ['list', '--deleted', ...args(b)], env(b))).toEqual(
    await jsonOf<unknown[]>(ws, ['list', '--deleted', ...args(a)], env(a)),
  );
  const cpA = await jsonOf<Array<Record<string, unknown>>>(
    ws,
    ['checkpoints', '--session', 'live', ...args(a)],
    env(a),
  );
  const cpB = await jsonOf<Array<Record<string, unknown>>>(
    ws,
    ['checkpoints', '--session', 'live', ...args(b)],
    env(b),
  );
  expect(cpB).toEqual(cpA);
  expect(cpB.length).toBe(1);
  // The active pointer came along: a command without --session acts on the same session.
  expect((await jsonOf<{ id: string }>(ws, ['status', ...args(b)], env(b))).id).toBe('live');
}

describe('baton migrate-store between file stores', () => {
  it('copies every session, event, checkpoint, archived session, tombstone and the active pointer, verified; a second run finds everything identical', async () => {
    const ws = await richSource();
    const target = ws.path('copy', '.baton');
    const r = await ws.run(['migrate-store', '--from', ws.store, '--to', target, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as MigrateJson;
    expect(out.verified).toBe(true);
    expect(out.problems).toEqual([]);
    expect(out.sessions.map((s) => [s.id, s.action, s.archived])).toEqual([
      ['arch', 'copied', true],
      ['live', 'copied', false],
      ['other', 'copied', false],
    ]);
    expect(out.totals).toMatchObject({
      sessions: 3,
      checkpoints: 2,
      checkpointsCopied: 2,
      tombstones: 1,
      tombstonesCopied: 1,
    });
    expect(out.totals.eventsCopied).toBe(out.totals.events);
    expect(out.active).toBe('live');
    // --json is for scripts: no progress lines (the human run below has them).
    expect(r.stderr).toBe('');
    expect(fs.existsSync(ws.path('copy', '.baton', 'archive', 'arch'))).toBe(true);
    await sameContent(ws, { dir: ws.store }, { dir: target });

    const again = await ws.run(['migrate-store', '--from', ws.store, '--to', target]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('verified');
    expect(again.stdout).toContain('0 copied, 0 continued, 3 already identical');
    expect(again.stdout).toContain('tombstones: 1 (0 copied now)');
    // Progress on stderr, one line per session and tombstone.
    expect(again.stderr).toContain('[4/4]');
  }, 120_000);

  it('a copy killed with SIGKILL half-way is finished by running it again: nothing copied twice, the result verified', async () => {
    const ws = workspace();
    // A source big enough to be caught mid-copy (one event per append with --chunk 1).
    const m = openManager({ cwd: ws.dir, create: true, agent: 'gen' });
    for (let i = 0; i < 30; i++) {
      const id = `s${String(i).padStart(2, '0')}`;
      await m.start({ title: `Session ${i}`, id, switch: true, phases: [{ id: 'p', name: 'p' }] });
      for (let k = 0; k < 25; k++) await m.note(id, { text: `note ${k} of ${id}` });
    }
    await m.store.close();
    const target = ws.path('copy', '.baton');
    const child = spawn(
      process.execPath,
      [BATON, 'migrate-store', '--from', ws.store, '--to', target, '--chunk', '1'],
      { cwd: ws.dir, env: baseEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c;
        if (err.includes('[8/30]')) resolve();
      });
      child.once('exit', () => reject(new Error(`the copy ended before it could be killed: ${err}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(err).not.toContain('[30/30]');

    const r = await ws.run(['migrate-store', '--from', ws.store, '--to', target, '--json', '--chunk', '7']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as MigrateJson;
    expect(out.verified).toBe(true);
    const identical = out.sessions.filter((s) => s.action === 'identical');
    expect(identical.length).toBeGreaterThanOrEqual(8);
    expect(out.sessions.filter((s) => s.action === 'copied').length).toBeGreaterThan(0);
    // Every event was appended once: those of the first run plus those of the second make the whole.
    // 1 + 25 events each, and a `session.paused` for all but the last (started with --switch).
    const total = out.totals.events;
    expect(total).toBe(30 * 26 + 29);
    const copiedBefore = total - out.totals.eventsCopied;
    expect(copiedBefore).toBeGreaterThanOrEqual(8 * 27);
    for (const id of ['s00', 's07', 's15', 's29'])
      expect(await events(ws, { dir: target }, id)).toEqual(await events(ws, { dir: ws.store }, id));
  }, 180_000);

  it('a target session with another history is named and left alone (CONFLICT); bad arguments are BAD_INPUT', async () => {
    const ws = workspace();
    await ws.ok(['start', 'Here', '--id', 'same']);
    await ws.ok(['note', 'add', 'source side']);
    const other = workspace();
    await other.ok(['start', 'There', '--id', 'same']);
    await other.ok(['note', 'add', 'target side']);
    const before = await events(other, { dir: other.store }, 'same');
    const r = await ws.run(['migrate-store', '--from', ws.store, '--to', other.store]);
    expect(r.code).toBe(EXIT_CODES.CONFLICT);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('[1/1] same: skipped');
    expect(r.stderr).toMatch(
      /error\[CONFLICT\]: The copy did not verify: .*Session same already exists on the target with a different history/,
    );
    expect(r.stderr).toMatch(/\nhint: .+\n$/);
    expect(await events(other, { dir: other.store }, 'same')).toEqual(before);
    const j = await ws.run(['migrate-store', '--from', ws.store, '--to', other.store, '--json']);
    expect(j.code).toBe(EXIT_CODES.CONFLICT);
    expect((JSON.parse(j.stdout) as { error: { code: string } }).error.code).toBe('CONFLICT');

    expectError(await ws.run(['migrate-store', '--from', ws.store, '--to', ws.store]), 'BAD_INPUT');
    expectError(await ws.run(['migrate-store', '--from', ws.path('nowhere'), '--to', ws.path('t')]), 'NO_STORE');
    expectError(await ws.run(['migrate-store', '--from', ws.store]), 'BAD_INPUT');
    expectError(await ws.run(['migrate-store', '--from', ws.store, '--to', ws.path('u'), '--chunk', '0']), 'BAD_INPUT');
    ws.write('notastore/readme.txt', 'hello');
    expectError(await ws.run(['migrate-store', '--from', ws.store, '--to', ws.path('notastore')]), 'BAD_INPUT');
    expect(fs.readdirSync(ws.path('notastore'))).toEqual(['readme.txt']);
  }, 120_000);
});

describe.skipIf(!PG_URL)('baton migrate-store with PostgreSQL', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  it('file → PostgreSQL → file: everything copied and verified both ways, the round trip equal to the source', async () => {
    const ws = await richSource();
    const schema = freshSchema('mig');
    schemas.push(schema);
    const url = urlWith({ schema });
    const up = await ws.run(['migrate-store', '--from', ws.store, '--to', url, '--json']);
    expect(up.code, up.stderr).toBe(0);
    expect((JSON.parse(up.stdout) as MigrateJson).verified).toBe(true);
    await sameContent(ws, { dir: ws.store }, { url });
    const back = ws.path('back', '.baton');
    const down = await ws.run(['migrate-store', '--from', url, '--to', back, '--json']);
    expect(down.code, down.stderr).toBe(0);
    const out = JSON.parse(down.stdout) as MigrateJson;
    expect(out.verified).toBe(true);
    expect(out.totals).toMatchObject({ sessions: 3, tombstones: 1, checkpoints: 2 });
    await sameContent(ws, { dir: ws.store }, { dir: back });
  }, 180_000);

  /** A file store of 20 sessions of 21 events each (plus a `session.paused` for all but the last). */
  async function bigSource(): Promise<Workspace> {
    const ws = workspace();
    const m = openManager({ cwd: ws.dir, create: true, agent: 'gen' });
    for (let i = 0; i < 20; i++) {
      const id = `s${String(i).padStart(2, '0')}`;
      await m.start({ title: `Session ${i}`, id, switch: true });
      for (let k = 0; k < 20; k++) await m.note(id, { text: `note ${k}` });
    }
    await m.store.close();
    return ws;
  }

  /** `baton migrate-store --chunk 1`, killed with SIGKILL once it reported session 5 of 20 done. */
  async function killedCopy(ws: Workspace, from: string, to: string): Promise<string> {
    const child = spawn(process.execPath, [BATON, 'migrate-store', '--from', from, '--to', to, '--chunk', '1'], {
      cwd: ws.dir,
      env: baseEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c;
        if (err.includes('[5/20]')) resolve();
      });
      child.once('exit', () => reject(new Error(`the copy ended before it could be killed: ${err}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    return err;
  }

  /** The second run finished what the killed one began: it copied only the rest. */
  function resumed(err: string, out: MigrateJson): void {
    expect(err).not.toContain('[20/20]');
    expect(out.verified).toBe(true);
    expect(out.sessions.filter((s) => s.action === 'identical').length).toBeGreaterThanOrEqual(5);
    expect(out.sessions.filter((s) => s.action === 'copied').length).toBeGreaterThan(0);
    const total = out.totals.events;
    expect(total).toBe(20 * 21 + 19);
    // Every event was appended once: the first run's (at least 5 whole sessions) plus the second's make the whole.
    expect(out.totals.eventsCopied).toBeLessThan(total);
    expect(total - out.totals.eventsCopied).toBeGreaterThanOrEqual(5 * 22);
  }

  it('a copy into PostgreSQL killed with SIGKILL half-way is finished by running it again: nothing copied twice, the result verified', async () => {
    const ws = await bigSource();
    const schema = freshSchema('migk');
    schemas.push(schema);
    const url = urlWith({ schema });
    const err = await killedCopy(ws, ws.store, url);
    const r = await ws.run(['migrate-store', '--from', ws.store, '--to', url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    resumed(err, JSON.parse(r.stdout) as MigrateJson);
    for (const id of ['s00', 's10', 's19'])
      expect(await events(ws, { url }, id)).toEqual(await events(ws, { dir: ws.store }, id));
  }, 180_000);

  it('a copy from PostgreSQL to a file store killed with SIGKILL half-way is finished by running it again', async () => {
    const ws = await bigSource();
    const schema = freshSchema('migd');
    schemas.push(schema);
    const url = urlWith({ schema });
    const up = await ws.run(['migrate-store', '--from', ws.store, '--to', url, '--json']);
    expect(up.code, up.stderr).toBe(0);
    const target = ws.path('down', '.baton');
    const err = await killedCopy(ws, url, target);
    const r = await ws.run(['migrate-store', '--from', url, '--to', target, '--json']);
    expect(r.code, r.stderr).toBe(0);
    resumed(err, JSON.parse(r.stdout) as MigrateJson);
    for (const id of ['s00', 's10', 's19'])
      expect(await events(ws, { dir: target }, id)).toEqual(await events(ws, { url }, id));
  }, 180_000);
});
