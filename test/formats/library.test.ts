/**
 * The foreign layouts through the library entry point (src/index.ts), as a program that
 * imports `baton` uses them: inspect, import, export, and a mirror kept current by changes
 * made through the SessionManager (MirrorFiles wired to openManager's onChanged).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as baton from '../../src/index.js';
import { ADAPTERS, adapterFor, inspectPath, MirrorFiles, mirrorOf, openManager } from '../../src/index.js';
import { tmpDir } from './core-helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/formats');

describe('the library exports the foreign layouts', () => {
  it('names every adapter and reads, imports and exports through the entry point', async () => {
    expect(ADAPTERS.map((a) => a.name)).toEqual(['maestro', 'go-team', 'bmit', 'bmad', 'ccw']);
    expect(adapterFor('bmit')?.name).toBe('bmit');
    const ws = tmpDir('baton-lib-');
    made.push(ws);
    const src = path.join(FIXTURES, 'maestro', 'mid-run-yaml');
    const seen = await inspectPath(src, 'auto', { cwd: ws });
    expect(seen.format).toBe('maestro');
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton') });
    const imp = await m.formats.import(src, 'maestro', { cwd: ws });
    const id = imp.sessions[0]!.id!;
    expect(imp.sessions[0]!.action).toBe('created');
    const ex = await m.formats.export(id, 'maestro', 'out', { cwd: ws });
    expect(ex.written.length).toBeGreaterThan(0);
    const back = await inspectPath(path.join(ws, 'out'), 'maestro', { cwd: ws });
    expect(back.sessions.map((s) => s.id)).toEqual(seen.sessions.filter((s) => !s.archived).map((s) => s.id));
    await m.store.close();
  });

  it('a change made through the SessionManager rewrites the mirror once MirrorFiles is wired to onChanged and flushed', async () => {
    const ws = tmpDir('baton-lib-');
    made.push(ws);
    const mirror = new MirrorFiles();
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton'), onChanged: (id, events, state) => mirror.note(id, events, state) });
    await m.start({ title: 'library work', id: 'lib-1', phases: [{ id: 'plan', name: 'plan' }, { id: 'build', name: 'build' }] });
    await m.formats.setMirror('lib-1', { format: 'maestro', out: '.gemini' }, { cwd: ws });
    // The manager's own refresh (after each acknowledged change) is done before this flush.
    await m.derivedFiles.settled();
    expect(mirrorOf(await m.get('lib-1'))).toEqual({ format: 'maestro', out: path.join(ws, '.gemini') });
    expect((await mirror.flush(m, { cwd: ws })).map((r) => r.ok)).toEqual([true]);
    const units = async () => (await inspectPath(path.join(ws, '.gemini'), 'maestro', { cwd: ws })).sessions.find((s) => s.id === 'lib-1')!.units.map((u) => u.status);
    expect(await units()).toEqual(['pending', 'pending']);
    await m.phase('lib-1', 'plan', 'start');
    await m.derivedFiles.settled();
    expect(mirror.pending).toBe(true);
    const r = await mirror.flush(m, { cwd: ws });
    expect(r.map((x) => [x.id, x.ok])).toEqual([['lib-1', true]]);
    expect(await units()).toEqual(['in_progress', 'pending']);
    await m.close();
  });

  it('keeps the deprecated free functions of the library entry, as wrappers over the manager\'s sub-objects', async () => {
    const ws = tmpDir('baton-lib-');
    made.push(ws);
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton') });
    const src = path.join(FIXTURES, 'maestro', 'mid-run-yaml');
    const imp = await baton.importPath(m, src, 'maestro', { cwd: ws });
    const id = imp.sessions[0]!.id!;
    expect((await baton.exportSession(m, id, 'maestro', 'out', { cwd: ws })).id).toBe(id);
    expect((await baton.setMirror(m, id, { format: 'maestro', out: 'mir' }, { cwd: ws })).mirror).toEqual({ format: 'maestro', out: path.join(ws, 'mir') });
    expect((await baton.resumePlan(m, id)).plan.recovery).toEqual((await m.recovery.plan(id)).plan.recovery);
    const { result: lease } = await baton.acquireLease(m, id, { owner: 'lib', ttlMs: 60_000, force: true });
    await baton.releaseLease(m, id, lease.token);
    expect((await m.get(id)).lease).toBeNull();
    await m.store.close();
  });
});
