/**
 * The formats core end to end below the CLI, with the test-only toy adapter and a real file
 * store: detection, inspect, import (create / unchanged / update / archive / EXISTS), the
 * read-only guarantee (bytes and mtimes), export through SafeDir (plans, backups, removes,
 * links), and the mirror.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import type { BatonError } from '../../src/domain/errors.js';
import { detect, DETECT_THRESHOLD, namedAdapter } from '../../src/formats/detect.js';
import { UNATTRIBUTED } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter } from '../../src/formats/types.js';
import { settingsOf } from '../../src/domain/settings.js';
import { inspectFolder, MIRROR_ERROR_KEY, mirrorOf } from '../../src/manager/toolkits/formats.js';
import { importIsIncomplete } from '../../src/manager/toolkits/foreign-formats.js';
import type { SessionManager } from '../../src/manager/manager.js';
import { MirrorFiles } from '../../src/manager/toolkits/mirror-files.js';
import { openManager } from '../../src/manager/open.js';
import { put, snapshotTree, tmpDir, toyAdapter, toyDoc } from './core-helpers.js';
import { cliHint } from '../../src/cli/hint-words.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tmpDir();
  made.push(d);
  return d;
}

const NOW = new Date('2026-03-01T12:00:00.000Z');

function setup(adapters: FormatAdapter[] = [toyAdapter()]) {
  const ws = dir();
  const src = path.join(ws, 'src');
  fs.mkdirSync(src);
  const mirror = new MirrorFiles();
  const m = openManager({
    cwd: ws,
    create: true,
    dir: path.join(ws, '.baton'),
    now: () => NOW,
    onChanged: (id, ev, st) => mirror.note(id, ev, st),
  });
  const o = { cwd: ws, now: () => NOW, adapters };
  return { ws, src, m, o, mirror };
}

async function expectCode(p: Promise<unknown>, code: string): Promise<Error> {
  try {
    await p;
  } catch (e) {
    if (isBatonError(e)) {
      expect(e.code).toBe(code);
      return e;
    }
    throw e;
  }
  throw new Error(`expected ${code}, got success`);
}

describe('detection', () => {
  it('takes the surest adapter at or above the threshold', async () => {
    const d = await SafeDir.open(dir());
    const r = await detect(d, [
      toyAdapter({ name: 'a', score: 0.6 }),
      toyAdapter({ name: 'b', score: 0.9 }),
      toyAdapter({ name: 'c', score: 0.2 }),
    ]);
    expect(r.kind).toBe('found');
    expect(r.kind === 'found' && r.adapter.name).toBe('b');
    expect(r.scores).toEqual([
      { format: 'b', score: 0.9 },
      { format: 'a', score: 0.6 },
      { format: 'c', score: 0.2 },
    ]);
  });

  it('refuses a tie and anything below the threshold, naming the scores and --format', async () => {
    const d = await SafeDir.open(dir());
    const tie = await detect(d, [toyAdapter({ name: 'a', score: 0.8 }), toyAdapter({ name: 'b', score: 0.8 })]);
    expect(tie.kind).toBe('tie');
    expect(tie.kind !== 'found' && tie.problem.code).toBe('UNKNOWN_FORMAT');
    expect(tie.kind !== 'found' && tie.problem.message).toMatch(/a and b.*a 0\.80, b 0\.80/);
    const low = await detect(d, [toyAdapter({ name: 'a', score: DETECT_THRESHOLD - 0.01 })]);
    expect(low.kind).toBe('none');
    expect(low.kind !== 'found' && low.problem.hint).toMatch(/--format/);
  });

  it('counts an adapter that throws or answers nonsense as 0', async () => {
    const d = await SafeDir.open(dir());
    const r = await detect(d, [
      toyAdapter({
        name: 'a',
        score: () => {
          throw new Error('x');
        },
      }),
      toyAdapter({ name: 'b', score: Number.NaN }),
      toyAdapter({ name: 'c', score: 7 }),
    ]);
    expect(r.scores).toEqual([
      { format: 'c', score: 1 },
      { format: 'a', score: 0 },
      { format: 'b', score: 0 },
    ]);
  });

  it('names the available layouts for an unknown --format', () => {
    try {
      namedAdapter('nope', [toyAdapter()]);
      throw new Error('no error');
    } catch (e) {
      expect(isBatonError(e, 'BAD_INPUT')).toBe(true);
      expect((e as { hint: string }).hint).toMatch(/toy/);
    }
    expect(() => namedAdapter('maestro', [])).toThrow(/not available/);
  });
});

describe('inspect and import', () => {
  it('inspect reports UNKNOWN_FORMAT for an unrecognised folder and for a named layout with nothing in it', async () => {
    const { src, o } = setup();
    const auto = await inspectFolder(src, 'auto', o);
    expect(auto.format).toBeNull();
    expect(auto.problems.map((p) => p.code)).toEqual(['UNKNOWN_FORMAT']);
    const named = await inspectFolder(src, 'toy', o);
    expect(named.format).toBe('toy');
    expect(named.problems.map((p) => [p.code, p.severity])).toEqual([['UNKNOWN_FORMAT', 'error']]);
  });

  it('import with auto-detection that finds nothing is BAD_INPUT and creates nothing', async () => {
    const { src, m, o } = setup();
    const e = await expectCode(m.formats.import(src, 'auto', o), 'BAD_INPUT');
    expect(e.message).toMatch(/toy 0\.00/);
    expect(await m.list({ all: true })).toEqual([]);
  });

  it('never writes inside the imported folder: bytes and mtimes are unchanged after inspect and import', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    put(src, 'toy/archive/T-0.json', JSON.stringify(toyDoc({ id: 'T-0', status: 'done' })));
    put(src, 'toy/broken.json', '{"id": ');
    put(src, 'notes.txt', 'other\r\n');
    const past = new Date('2020-01-01T00:00:00Z');
    for (const f of ['toy/T-1.json', 'toy/archive/T-0.json', 'toy/broken.json', 'notes.txt'])
      fs.utimesSync(path.join(src, f), past, past);
    const before = snapshotTree(src);
    const r1 = await inspectFolder(src, 'auto', o);
    expect(r1.sessions.map((s) => s.id).sort()).toEqual(['T-0', 'T-1']);
    expect(r1.problems.map((p) => p.code)).toEqual(['CORRUPT_FILE']);
    await m.formats.import(src, 'auto', o);
    await m.formats.import(src, 'toy', o);
    expect(snapshotTree(src)).toEqual(before);
  });

  it('creates one baton session per foreign session, with provenance, archived ones in the archive', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    put(src, 'toy/archive/T-0.json', JSON.stringify(toyDoc({ id: 'T-0', status: 'done' })));
    const r = await m.formats.import(src, 'auto', o);
    expect(r.format).toBe('toy');
    expect(r.sessions.map((s) => [s.foreignId, s.id, s.action, s.archived]).sort()).toEqual([
      ['T-0', 'T-0', 'created', true],
      ['T-1', 'T-1', 'created', false],
    ]);
    const s = await m.get('T-1');
    expect(s.phases.map((p) => [p.id, p.status])).toEqual([
      ['plan', 'completed'],
      ['build', 'in_progress'],
      ['test', 'pending'],
    ]);
    expect(s.phases[1]!.retryCount).toBe(1);
    expect(s.phases[1]!.subStep).toBe('compile');
    expect(s.tokens.byAgent).toEqual({
      coder: { input: 800, output: 150, cached: 50 },
      [UNATTRIBUTED]: { input: 200, output: 50, cached: 0 },
    });
    expect((s.metadata['provenance'] as { root: string; foreignId: string }).root).toBe(src);
    expect(await m.store.isArchived('T-0')).toBe(true);
    expect(await m.store.isArchived('T-1')).toBe(false);
    // Import does not take over the active pointer.
    expect(await m.store.getActive()).toBeNull();
    const log = await m.log('T-1');
    expect(log[0]!.time).toBe('2026-01-10T09:00:00.000Z');
    expect(log.at(-1)!.time).toBe(NOW.toISOString());
  });

  it('running it again appends nothing when the files are unchanged, and only what moved forward when they changed', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    await m.formats.import(src, 'toy', o);
    const rev = (await m.get('T-1')).revision;
    const again = await m.formats.import(src, 'toy', o);
    expect(again.sessions.map((s) => s.action)).toEqual(['unchanged']);
    expect((await m.get('T-1')).revision).toBe(rev);
    const doc = toyDoc();
    doc.units![1] = {
      id: 'build',
      status: 'completed',
      retries: 1,
      subStep: 'compile',
      started: '2026-01-10T09:31:00.000Z',
      completed: '2026-01-10T11:00:00.000Z',
      errors: [{ type: 'runtime', message: 'boom', resolved: true, resolution: 'fixed' }],
    };
    doc.notes = ['first note', 'second note'];
    put(src, 'toy/T-1.json', JSON.stringify(doc));
    const upd = await m.formats.import(src, 'toy', o);
    expect(upd.sessions.map((s) => [s.action, s.problems])).toEqual([['updated', []]]);
    const s = await m.get('T-1');
    expect(s.phases[1]!.status).toBe('completed');
    expect(s.phases[1]!.errors[0]!.resolution).toBe('fixed');
    expect(s.notes.map((n) => n.text)).toEqual(['first note', 'second note']);
    const added = (await m.log('T-1', rev)).map((e) => e.type);
    expect(added).toEqual(['error.resolved', 'phase.completed', 'note.added', 'metadata.set']);
  });

  it('reports what cannot be expressed (a unit back to pending) and applies the rest', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    await m.formats.import(src, 'toy', o);
    const doc = toyDoc({ notes: ['first note', 'later'] });
    doc.units![0]!.status = 'pending';
    put(src, 'toy/T-1.json', JSON.stringify(doc));
    const r = await m.formats.import(src, 'toy', o);
    expect(r.sessions[0]!.action).toBe('updated');
    expect(r.sessions[0]!.problems.map((p) => [p.code, (p.details as { kind: string }).kind])).toEqual([
      ['REIMPORT_DIVERGED', 'status_backwards'],
    ]);
    const s = await m.get('T-1');
    expect(s.phases[0]!.status).toBe('completed');
    expect(s.notes.map((n) => n.text)).toEqual(['first note', 'later']);
  });

  it('archives a session the toolkit archived since the last import', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc({ status: 'done' })));
    await m.formats.import(src, 'toy', o);
    fs.rmSync(path.join(src, 'toy/T-1.json'));
    put(src, 'toy/archive/T-1.json', JSON.stringify(toyDoc({ status: 'done' })));
    const r = await m.formats.import(src, 'toy', o);
    expect(r.sessions.map((s) => [s.action, s.archived])).toEqual([['updated', true]]);
    expect(await m.store.isArchived('T-1')).toBe(true);
  });

  it('imports the live copy of a session that is also archived (copied, not moved) and skips the other', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    put(src, 'toy/archive/T-1.json', JSON.stringify(toyDoc({ status: 'done' })));
    const r = await m.formats.import(src, 'toy', o);
    expect(r.sessions.map((s) => [s.action, s.archived]).sort()).toEqual([
      ['created', false],
      ['skipped', true],
    ]);
    expect(r.sessions.find((s) => s.action === 'skipped')!.problems.map((p) => p.code)).toContain('DUPLICATE_SESSION');
  });

  it('refuses, before writing anything, a session id taken by a session not imported from there (EXISTS, hint --id-prefix)', async () => {
    const { src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    put(src, 'toy/T-2.json', JSON.stringify(toyDoc({ id: 'T-2', status: 'paused' })));
    await m.start({ title: 'mine', id: 'T-2' });
    const e = await expectCode(m.formats.import(src, 'toy', o), 'EXISTS');
    expect(e.message).toMatch(/T-2 \(not imported\)/);
    expect(cliHint(e as BatonError)).toMatch(/--id-prefix/);
    expect(await m.store.exists('T-1')).toBe(false);
    const r = await m.formats.import(src, 'toy', { ...o, idPrefix: 'imp-' });
    expect(r.sessions.map((s) => s.id).sort()).toEqual(['imp-T-1', 'imp-T-2']);
    expect((await m.get('T-2')).title).toBe('mine');
    await expectCode(m.formats.import(src, 'toy', { ...o, idPrefix: '../' }), 'BAD_INPUT');
  });
});

describe('import: complete or not', () => {
  const ok = { foreignId: 'T-1', id: 'T-1', action: 'created' as const, revision: 3, archived: false, problems: [] };
  const err = (code: string) => ({
    code,
    severity: 'error' as const,
    sessionId: 'T-1',
    path: null,
    message: code,
    hint: null,
  });
  it('is incomplete when a session failed, an error-severity problem was found, or nothing was imported', () => {
    const base = { format: 'toy' as never, root: '/x', problems: [] };
    expect(importIsIncomplete({ ...base, sessions: [ok] })).toBe(false);
    expect(importIsIncomplete({ ...base, sessions: [{ ...ok, action: 'unchanged' }] })).toBe(false);
    expect(
      importIsIncomplete({
        ...base,
        sessions: [{ ...ok, problems: [{ ...err('REIMPORT_DIVERGED'), severity: 'warning' }] }],
      }),
    ).toBe(false);
    expect(
      importIsIncomplete({
        ...base,
        sessions: [
          ok,
          { ...ok, foreignId: 'T-2', id: 'T-2', action: 'skipped', revision: null, problems: [err('IMPORT_FAILED')] },
        ],
      }),
    ).toBe(true);
    expect(importIsIncomplete({ ...base, sessions: [ok], problems: [err('CORRUPT_FILE')] })).toBe(true);
    expect(importIsIncomplete({ ...base, sessions: [] })).toBe(true);
    expect(
      importIsIncomplete({
        ...base,
        sessions: [{ ...ok, action: 'skipped', problems: [{ ...err('ID_COLLISION'), severity: 'warning' }] }],
      }),
    ).toBe(true);
  });

  it('skips a session whose own file cannot be read (what is shown is a template or an older backup), as an error', async () => {
    const toy = toyAdapter();
    // An adapter that could not read T-1's file: it shows the session as it could (here from
    // the toy file) but reports the file UNREADABLE, as the bmit and ccw readers do.
    const locked: FormatAdapter = {
      ...toy,
      async inspect(dir, now) {
        const r = await toy.inspect(dir, now);
        for (const x of r.sessions)
          x.problems.push({
            code: 'UNREADABLE',
            severity: 'error',
            sessionId: x.id,
            path: x.path,
            message: `${x.path} cannot be read (permission denied).`,
            hint: 'Check the permissions.',
          });
        return r;
      },
    };
    const { src, m, o } = setup([locked]);
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    const r = await m.formats.import(src, 'toy', o);
    expect(r.sessions.map((x) => [x.action, x.id])).toEqual([['skipped', null]]);
    const failed = r.sessions[0]!.problems.find((p) => p.code === 'IMPORT_FAILED')!;
    expect(failed.message).toMatch(/cannot be read/);
    expect(failed.hint).toMatch(/read toy\/T-1\.json/);
    expect(importIsIncomplete(r)).toBe(true);
    expect(await m.store.exists('T-1')).toBe(false);
  });

  it('a named layout under which nothing was found is an UNKNOWN_FORMAT error, as for inspect', async () => {
    const { src, m, o } = setup();
    fs.mkdirSync(path.join(src, 'toy'));
    const r = await m.formats.import(src, 'toy', o);
    expect(r.sessions).toEqual([]);
    expect(r.problems.map((p) => [p.code, p.severity])).toEqual([['UNKNOWN_FORMAT', 'error']]);
  });
});

describe('import: provenance', () => {
  it('a session of the same name from another folder is another session: EXISTS naming --id-prefix and --moved; nothing changes', async () => {
    const { ws, src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc({ notes: ['from A'] })));
    await m.formats.import(src, 'toy', o);
    const b = path.join(ws, 'other');
    put(b, 'toy/T-1.json', JSON.stringify(toyDoc({ notes: ['from B'], status: 'done' })));
    const before = await m.get('T-1');
    const e = await expectCode(m.formats.import(b, 'toy', o), 'EXISTS');
    expect(e.message).toContain(`T-1 (imported from toy session T-1 in ${fs.realpathSync(src)}, another folder)`);
    expect(cliHint(e as BatonError)).toMatch(/--id-prefix .*--moved/);
    expect((await m.get('T-1')).revision).toBe(before.revision);
    expect((await m.get('T-1')).notes.map((n) => n.text)).toEqual(['from A']);
    // Beside it under a prefix…
    const r = await m.formats.import(b, 'toy', { ...o, idPrefix: 'b-' });
    expect(r.sessions.map((s) => [s.id, s.action])).toEqual([['b-T-1', 'created']]);
    // …or, said to be the same session moved, brought forward with the new folder recorded.
    const moved = await m.formats.import(b, 'toy', { ...o, moved: true });
    expect(moved.sessions.map((s) => [s.id, s.action])).toEqual([['T-1', 'updated']]);
    const after = await m.get('T-1');
    expect(after.notes.map((n) => n.text)).toEqual(['from A', 'from B']);
    expect((after.metadata['provenance'] as { root: string }).root).toBe(fs.realpathSync(b));
    // The original folder is now the other one.
    await expectCode(m.formats.import(src, 'toy', o), 'EXISTS');
  });
});

describe('export', () => {
  it('writes the session in the layout, keeps a .bak when the plan asks, and round-trips through import', async () => {
    const { ws, src, m, o } = setup();
    put(src, 'toy/T-1.json', JSON.stringify(toyDoc()));
    await m.formats.import(src, 'toy', o);
    const out = path.join(ws, 'out');
    const r1 = await m.formats.export('T-1', 'toy', out, o);
    expect(r1).toMatchObject({
      id: 'T-1',
      format: 'toy',
      foreignId: 'T-1',
      out,
      written: ['toy/T-1.json'],
      backups: [],
      removed: [],
    });
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'toy/T-1.json'), 'utf8'));
    expect(doc.extra).toEqual({ keep: 'me' });
    expect(doc.units[0].owner).toBe('ann');
    expect(doc.tokens.byAgent).toEqual({ coder: { input: 800, output: 150, cached: 50 } });
    expect(doc.tokens.input).toBe(1000);
    const r2 = await m.formats.export('T-1', 'toy', out, o);
    expect(r2.backups).toEqual(['toy/T-1.json.bak']);
    expect(fs.existsSync(path.join(out, 'toy/T-1.json.bak'))).toBe(true);
    // inspect(export(import(X))) gives the facts of inspect(X).
    const a = (await inspectFolder(src, 'toy', o)).sessions[0]!;
    const b = (await inspectFolder(out, 'toy', o)).sessions[0]!;
    const facts = (s: typeof a) => ({
      id: s.id,
      status: s.status,
      units: s.units.map((u) => ({ ...u, metadata: u.metadata })),
      tokens: s.tokens,
      notes: s.notes,
      decisions: s.decisions,
      unresolved: s.unresolvedErrors,
    });
    expect(facts(b)).toEqual(facts(a));
  });

  it("moves an archived session into the archive (the plan's removal runs)", async () => {
    const { ws, m, o } = setup();
    await m.start({ title: 'born here', id: 'b1', phases: [{ id: 'p', name: 'P' }] });
    const out = path.join(ws, 'out');
    await m.formats.export('b1', 'toy', out, o);
    expect(fs.existsSync(path.join(out, 'toy/b1.json'))).toBe(true);
    await m.lifecycle('b1', 'complete', null, { force: true });
    await m.archive('b1');
    const r = await m.formats.export('b1', 'toy', out, o);
    expect(r).toMatchObject({ written: ['toy/archive/b1.json'], removed: ['toy/b1.json'] });
    expect(fs.existsSync(path.join(out, 'toy/b1.json'))).toBe(false);
    const doc = JSON.parse(fs.readFileSync(path.join(out, 'toy/archive/b1.json'), 'utf8'));
    expect(doc.status).toBe('done');
  });

  it('refuses an --out that is a file', async () => {
    const { ws, m, o } = setup();
    await m.start({ title: 'x', id: 'b1' });
    const f = put(ws, 'afile', 'x');
    const e = await expectCode(m.formats.export('b1', 'toy', f, o), 'BAD_INPUT');
    expect(e.message).toMatch(/is a file/);
    expect(fs.readFileSync(f, 'utf8')).toBe('x');
  });

  it('writes nothing when a planned path goes through a link out of --out, or climbs out', async () => {
    const { ws, m } = setup();
    await m.start({ title: 'x', id: 'b1' });
    const out = path.join(ws, 'out');
    const outside = path.join(ws, 'outside');
    fs.mkdirSync(outside);
    fs.mkdirSync(out);
    fs.symlinkSync(outside, path.join(out, 'toy'));
    const o = { cwd: ws, now: () => NOW, adapters: [toyAdapter()] };
    const e = await expectCode(m.formats.export('b1', 'toy', out, o), 'BAD_INPUT');
    expect(e.message).toMatch(/toy\/b1\.json/);
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.unlinkSync(path.join(out, 'toy'));
    const o2 = {
      ...o,
      adapters: [toyAdapter({ extraWrites: [{ path: '../escape.txt', content: 'x', backup: false }] })],
    };
    await expectCode(m.formats.export('b1', 'toy', out, o2), 'BAD_INPUT');
    expect(fs.existsSync(path.join(ws, 'escape.txt'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'toy/b1.json'))).toBe(false);
  });

  it('accepts an --out that is itself a link (the root may be one)', async () => {
    const { ws, m, o } = setup();
    await m.start({ title: 'x', id: 'b1' });
    const real = path.join(ws, 'real');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(ws, 'link'));
    await m.formats.export('b1', 'toy', path.join(ws, 'link'), o);
    expect(fs.existsSync(path.join(real, 'toy/b1.json'))).toBe(true);
  });
});

describe('mirror', () => {
  it('rewrites the mirrored file once per flush after changes, and stops when turned off', async () => {
    const { ws, m, o, mirror } = setup();
    await m.start({
      title: 'mirrored',
      id: 'b1',
      phases: [
        { id: 'p1', name: 'one' },
        { id: 'p2', name: 'two' },
      ],
    });
    const out = path.join(ws, 'mirror');
    await m.formats.setMirror('b1', { format: 'toy', out: 'mirror' }, o);
    expect(mirrorOf(await m.get('b1'))).toEqual({ format: 'toy', out });
    let r = await mirror.flush(m, o);
    expect(r.map((x) => [x.id, x.ok, x.written])).toEqual([['b1', true, ['toy/b1.json']]]);
    const read = () => JSON.parse(fs.readFileSync(path.join(out, 'toy/b1.json'), 'utf8'));
    expect(read().units.map((u: { status: string }) => u.status)).toEqual(['pending', 'pending']);
    await m.phase('b1', 'p1', 'start');
    await m.tokens('b1', { agent: 'a', input: 5 });
    expect(mirror.pending).toBe(true);
    r = await mirror.flush(m, o);
    expect(r).toHaveLength(1);
    expect(read().units[0].status).toBe('in_progress');
    expect(read().tokens.input).toBe(5);
    expect(mirror.pending).toBe(false);
    await m.formats.setMirror('b1', null, o);
    await m.phase('b1', 'p1', 'complete');
    expect(await mirror.flush(m, o)).toEqual([]);
    expect(read().units[0].status).toBe('in_progress');
  });

  it('a failing mirror never fails the change: it is reported, recorded, and cleared once it works again', async () => {
    const { ws, m, o, mirror } = setup();
    await m.start({ title: 'mirrored', id: 'b1', phases: [{ id: 'p1', name: 'one' }] });
    await m.formats.setMirror('b1', { format: 'toy', out: 'mirror' }, o);
    await mirror.flush(m, o);
    // The folder is replaced by a file: rewriting fails.
    fs.rmSync(path.join(ws, 'mirror'), { recursive: true });
    put(ws, 'mirror', 'not a folder');
    const change = await m.phase('b1', 'p1', 'start');
    expect(change.state.phases[0]!.status).toBe('in_progress');
    const r = await mirror.flush(m, o);
    expect(r.map((x) => x.ok)).toEqual([false]);
    expect(r[0]!.error).toMatch(/is a file/);
    const err = (await m.get('b1')).metadata[MIRROR_ERROR_KEY] as { message: string };
    expect(err.message).toMatch(/is a file/);
    // Recording the failure is not itself a change to mirror.
    expect(mirror.pending).toBe(false);
    fs.rmSync(path.join(ws, 'mirror'));
    await m.phase('b1', 'p1', 'complete');
    const ok = await mirror.flush(m, o);
    expect(ok.map((x) => x.ok)).toEqual([true]);
    expect((await m.get('b1')).metadata[MIRROR_ERROR_KEY]).toBeNull();
  });

  it('with a store without session folders (memory:) it remembers what it wrote in metadata and still keeps a changed file', async () => {
    const ws = dir();
    const mirror = new MirrorFiles();
    const m = openManager({
      url: 'memory:',
      cwd: ws,
      now: () => NOW,
      onChanged: (id, ev, st) => mirror.note(id, ev, st),
    });
    const o = { cwd: ws, now: () => NOW, adapters: [toyAdapter()] };
    await m.start({ title: 'mirrored', id: 'b1', phases: [{ id: 'p1', name: 'one' }] });
    await m.formats.setMirror('b1', { format: 'toy', out: 'mirror' }, o);
    await mirror.flush(m, o);
    const file = path.join(ws, 'mirror/toy/b1.json');
    const written = settingsOf(await m.get('b1')).mirrorWritten as { files: Record<string, string> };
    expect(Object.keys(written.files)).toEqual(['toy/b1.json']);
    // The record is bookkeeping: recording it is not a change to mirror.
    expect(mirror.pending).toBe(false);
    fs.writeFileSync(file, '{"theirs": 1}\n');
    await m.phase('b1', 'p1', 'start');
    const r = await mirror.flush(m, o);
    expect(r.map((x) => [x.ok, x.code])).toEqual([[false, 'CONFLICT']]);
    expect(r[0]!.error).toContain(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"theirs": 1}\n');
    expect(((await m.get('b1')).metadata[MIRROR_ERROR_KEY] as { code: string }).code).toBe('CONFLICT');
    await m.formats.setMirror('b1', { format: 'toy', out: 'mirror' }, { ...o, force: true });
    expect((await mirror.flush(m, o)).map((x) => x.ok)).toEqual([true]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).units[0].status).toBe('in_progress');
  });

  it('refuses a mirror into a file and a layout that is not available', async () => {
    const { ws, m, o } = setup();
    await m.start({ title: 'x', id: 'b1' });
    put(ws, 'f', 'x');
    await expectCode(m.formats.setMirror('b1', { format: 'toy', out: 'f' }, o), 'BAD_INPUT');
    await expectCode(m.formats.setMirror('b1', { format: 'bmad', out: 'd' }, o), 'BAD_INPUT');
    await expectCode(m.formats.setMirror('b1', null, o), 'INVALID_TRANSITION');
  });
});

export type { SessionManager };
