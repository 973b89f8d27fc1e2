import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLock } from '../../src/store/file/lock.js';
import { FileStore } from '../../src/store/file/store.js';
import { expectCode, noteEvent, seed } from '../../src/testing/conformance.js';
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

  it('a waiter marks the lock wanted; a marker left by a waiter that died goes stale', async () => {
    const dir = tempStoreDir();
    try {
      const file = path.join(dir.base, 'x.lock');
      const holder = new FileLock(file, 60_000);
      holder.acquire();
      expect(holder.contended).toBe(false);
      // A waiter in another process tries (and times out quickly): it leaves the marker.
      const waiter = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `
        import { FileLock } from ${JSON.stringify(path.resolve('src/store/file/lock.ts'))};
        try { new FileLock(${JSON.stringify(file)}, 30).acquire(); } catch (e) { console.log(e.code); }
      `,
        ],
        { encoding: 'utf8' },
      );
      expect(waiter.stdout.trim()).toBe('LOCKED');
      expect(fs.existsSync(`${file}.want`)).toBe(true);
      const now = new Date();
      fs.utimesSync(`${file}.want`, now, now); // as fresh as a waiter that is still trying
      expect(holder.contended).toBe(true);
      const past = new Date(Date.now() - 10_000);
      fs.utimesSync(`${file}.want`, past, past);
      expect(holder.contended).toBe(false);
      holder.release();
    } finally {
      dir.remove();
    }
  });

  it('removes snapshot temp files left by dead processes when it next writes a snapshot', async () => {
    const dir = tempStoreDir();
    try {
      const store = new FileStore({ root: dir.root });
      await seed(store, 's', 3);
      const sdir = path.join(dir.root, 'sessions', 's');
      const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // exited: its pid is free
      const deadTemp = path.join(sdir, `snapshot.json.tmp-${dead}-abc-1`);
      const liveTemp = path.join(sdir, `snapshot.json.tmp-${process.pid}-abc-1`);
      fs.writeFileSync(deadTemp, 'half a snapshot');
      fs.writeFileSync(liveTemp, 'being written');
      const loaded = await store.load('s');
      await store.writeSnapshot('s', { revision: 4, state: { probe: true } as never });
      expect(fs.existsSync(deadTemp)).toBe(false);
      expect(fs.existsSync(liveTemp)).toBe(true);
      expect(loaded.revision).toBe(4);
      await store.close();
    } finally {
      dir.remove();
    }
  });

  it('exists() while its lock is kept: true, and false once another store here deleted the session', async () => {
    // exists() trusts a lock this process keeps (nobody can move or delete the session under
    // it); a deletion by another store of this process first releases that lock.
    const dir = tempStoreDir();
    const a = new FileStore({ root: dir.root });
    const b = new FileStore({ root: dir.root });
    try {
      await seed(a, 'kept', 1);
      await a.append('kept', 2, [noteEvent(2)]); // the lock now lingers in `a`
      expect(fs.existsSync(path.join(dir.root, 'sessions', 'kept', 'lock'))).toBe(true);
      expect(await a.exists('kept')).toBe(true);
      await b.delete('kept', 3, { deletedAt: new Date().toISOString(), title: 'kept', status: 'active' });
      expect(await a.exists('kept')).toBe(false);
      expect(await b.exists('kept')).toBe(false);
      await expectCode(a.append('kept', 3, [noteEvent(3)]), 'NOT_FOUND');
    } finally {
      await a.close();
      await b.close();
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
      for (const f of ['journal.jsonl', 'snapshot.json'])
        expect(fs.statSync(path.join(sdir, f)).mode & 0o777).toBe(0o600);
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
      expect(() => new FileStore({ root: path.join(dir.base, 'nothing-here') })).toThrow(
        expect.objectContaining({ code: 'NO_STORE' }),
      );
    } finally {
      dir.remove();
    }
  });

  describe('session lock', () => {
    function writeLock(root: string, id: string, owner: object): void {
      fs.writeFileSync(path.join(root, 'sessions', id, 'lock'), JSON.stringify(owner));
    }

    it('waits for a lock held by a live process, then refuses with LOCKED naming it', async () => {
      const dir = tempStoreDir();
      try {
        const store = new FileStore({ root: dir.root, lockTimeoutMs: 300 });
        await seed(store, 'busy');
        await store.close();
        writeLock(dir.root, 'busy', { pid: process.pid, host: os.hostname(), time: Date.now(), nonce: 'someone-else' });
        const other = new FileStore({ root: dir.root, lockTimeoutMs: 300 });
        const t0 = Date.now();
        const e = await other.append('busy', 1, [noteEvent(1)]).catch((x: unknown) => x);
        expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
        expect(e).toMatchObject({
          code: 'LOCKED',
          message: expect.stringContaining(`pid ${process.pid}`),
          hint: expect.any(String),
        });
        expect((await other.readEvents('busy')).length).toBe(1);
        await other.close();
      } finally {
        dir.remove();
      }
    });

    it('breaks a lock left by a dead process or an old one from another host', async () => {
      const dir = tempStoreDir();
      try {
        const store = new FileStore({ root: dir.root, lockTimeoutMs: 5_000 });
        await seed(store, 'stale');
        await store.close();
        const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
          encoding: 'utf8',
        });
        writeLock(dir.root, 'stale', {
          pid: Number(dead.stdout),
          host: os.hostname(),
          time: Date.now(),
          nonce: 'dead',
        });
        const again = new FileStore({ root: dir.root, lockTimeoutMs: 5_000 });
        expect(await again.append('stale', 1, [noteEvent(1)])).toEqual({ revision: 2 });
        await again.close();
        writeLock(dir.root, 'stale', { pid: 1, host: 'some-other-host', time: Date.now() - 5 * 60_000, nonce: 'far' });
        const third = new FileStore({ root: dir.root, lockTimeoutMs: 5_000 });
        expect(await third.append('stale', 2, [noteEvent(2)])).toEqual({ revision: 3 });
        await third.close();
        expect(fs.existsSync(path.join(dir.root, 'sessions', 'stale', 'lock'))).toBe(false);
      } finally {
        dir.remove();
      }
    });
  });
});
