/**
 * The foreign layouts through the library entry point (src/index.ts), as a program that
 * imports `baton-sessions` uses them: the manager's `formats` part reads, imports, exports and
 * mirrors, and the mirror is kept current by the changes made through the manager itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openManager, settingsOf } from '../../src/index.js';
import { tmpDir } from './core-helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/formats');

describe('the library reaches the foreign layouts through manager.formats', () => {
  it('reads, imports and exports a toolkit folder', async () => {
    const ws = tmpDir('baton-lib-');
    made.push(ws);
    const src = path.join(FIXTURES, 'maestro', 'mid-run-yaml');
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton') });
    const seen = await m.formats.inspect(src, 'auto', { cwd: ws });
    expect(seen.format).toBe('maestro');
    const imp = await m.formats.import(src, 'maestro', { cwd: ws });
    const id = imp.sessions[0]!.id!;
    expect(imp.sessions[0]!.action).toBe('created');
    const ex = await m.formats.export(id, 'maestro', 'out', { cwd: ws });
    expect(ex.written.length).toBeGreaterThan(0);
    const back = await m.formats.inspect(path.join(ws, 'out'), 'maestro', { cwd: ws });
    expect(back.sessions.map((s) => s.id)).toEqual(seen.sessions.filter((s) => !s.archived).map((s) => s.id));
    await m.close();
  });

  it('a mirror set through manager.formats is rewritten by each change made through the manager', async () => {
    const ws = tmpDir('baton-lib-');
    made.push(ws);
    const m = openManager({ cwd: ws, create: true, dir: path.join(ws, '.baton') });
    await m.start({
      title: 'library work',
      id: 'lib-1',
      phases: [
        { id: 'plan', name: 'plan' },
        { id: 'build', name: 'build' },
      ],
    });
    await m.formats.setMirror('lib-1', { format: 'maestro', out: '.gemini' }, { cwd: ws });
    await m.derivedFiles.settled();
    expect(settingsOf(await m.get('lib-1')).mirror).toEqual({ format: 'maestro', out: path.join(ws, '.gemini') });
    const units = async () =>
      (await m.formats.inspect(path.join(ws, '.gemini'), 'maestro', { cwd: ws })).sessions
        .find((s) => s.id === 'lib-1')!
        .units.map((u) => u.status);
    expect(await units()).toEqual(['pending', 'pending']);
    await m.phase('lib-1', 'plan', 'start');
    await m.derivedFiles.settled();
    expect(await units()).toEqual(['in_progress', 'pending']);
    await m.close();
  });
});
