/** Opening the manager from plain JavaScript, where no type check names a bad option. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { openManager } from '../../src/manager/open.js';
import { FileStore } from '../../src/store/file/store.js';
import { tempDir } from '../support/temp.js';

describe('openManager and its folder', () => {
  it.each([
    ['an empty cwd', { cwd: '' }],
    ['a cwd that is no string', { cwd: 42 }],
  ])('%s: BAD_INPUT naming cwd and the way out, not a TypeError', (_name, o) => {
    let err: unknown;
    try {
      openManager(o as never);
    } catch (e) {
      err = e;
    }
    expect(isBatonError(err, 'BAD_INPUT')).toBe(true);
    expect((err as Error).message).toContain('cwd');
    expect(JSON.stringify(err)).toContain('process.cwd()');
  });

  it('without cwd works in the current folder (a library program names only its store)', async () => {
    const dir = path.join(tempDir('baton-open-'), '.baton');
    FileStore.init(dir);
    const m = openManager({ dir, agent: 'prog' });
    try {
      const s = await m.start({ title: 'no cwd', phases: [{ id: 'build', name: 'Build' }] });
      await m.note(s.id, { text: 'works' });
      expect((await m.get(s.id)).notes.map((n) => n.text)).toEqual(['works']);
    } finally {
      await m.close();
    }
  });
});
