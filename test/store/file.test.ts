import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file/store.js';
import { expectCode, seed } from '../../src/testing/conformance.js';
import { runStoreConformance } from '../../src/testing/conformance.js';
import { tempStoreDir } from './helpers.js';

runStoreConformance('file', async () => {
  const dir = tempStoreDir();
  return {
    store: new FileStore({ root: dir.root }),
    reopen: async () => new FileStore({ root: dir.root }),
    cleanup: async () => dir.remove(),
  };
});

describe('file store specifics', () => {
  it('never touches anything outside the store for invalid ids', async () => {
    const dir = tempStoreDir();
    try {
      const store = new FileStore({ root: dir.root });
      await seed(store, 'ok');
      for (const bad of ['../x', '../../x', 'x/../../y', '..', '.']) {
        await expectCode(store.create(bad, [], { id: bad } as never), 'BAD_INPUT');
        await expectCode(store.load(bad), 'BAD_INPUT');
      }
      await store.close();
      expect(fs.readdirSync(dir.base).sort()).toEqual(['.baton']);
      expect(fs.readdirSync(path.join(dir.root, 'sessions'))).toEqual(['ok']);
    } finally {
      dir.remove();
    }
  });

  it('creates owner-only directories and files', async () => {
    const dir = tempStoreDir();
    try {
      const store = new FileStore({ root: dir.root });
      const events = await seed(store, 'perm', 2);
      const { stateOf } = await import('../../src/testing/conformance.js');
      await store.writeSnapshot('perm', { revision: 3, state: stateOf('perm', events) });
      await store.setActive('perm');
      await store.close();
      const sdir = path.join(dir.root, 'sessions', 'perm');
      expect(fs.statSync(sdir).mode & 0o777).toBe(0o700);
      for (const f of ['journal.jsonl', 'snapshot.json']) expect(fs.statSync(path.join(sdir, f)).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(dir.root, 'active')).mode & 0o777).toBe(0o600);
    } finally {
      dir.remove();
    }
  });

  it('refuses a store written by a newer baton with UNSUPPORTED_VERSION', () => {
    const dir = tempStoreDir();
    try {
      fs.writeFileSync(path.join(dir.root, 'store.json'), JSON.stringify({ format: 'baton.store', version: 99 }));
      expect(() => new FileStore({ root: dir.root })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_VERSION' }));
    } finally {
      dir.remove();
    }
  });

  it('answers NO_STORE for a directory that is not a store', () => {
    const dir = tempStoreDir();
    try {
      expect(() => new FileStore({ root: path.join(dir.base, 'nothing-here') })).toThrow(expect.objectContaining({ code: 'NO_STORE' }));
    } finally {
      dir.remove();
    }
  });
});
