import { describe, expect, it } from 'vitest';
import { noteEvent, seed, sleep } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: workspace lock. */
export function workspaceLockTests(suite: StoreSuite): void {
  describe('workspace lock', () => {
    it('serialises two concurrent critical sections', async () => {
      const log: string[] = [];
      let inside = 0;
      let overlap = false;
      const section = (name: string) => async (): Promise<string> => {
        inside += 1;
        if (inside > 1) overlap = true;
        log.push(`${name}:in`);
        await sleep(30);
        await Promise.resolve();
        await sleep(5);
        log.push(`${name}:out`);
        inside -= 1;
        return name;
      };
      const results = await Promise.all([
        suite.store.withWorkspaceLock(section('a')),
        suite.store.withWorkspaceLock(section('b')),
      ]);
      expect(results).toEqual(['a', 'b']);
      expect(overlap).toBe(false);
      expect(log).toHaveLength(4);
      expect(
        log[0]!.endsWith(':in') && log[1]!.endsWith(':out') && log[0]!.split(':')[0] === log[1]!.split(':')[0],
      ).toBe(true);
    });

    it('releases the lock when a section throws', async () => {
      const boom = suite.store.withWorkspaceLock(async () => {
        await sleep(5);
        throw new Error('boom');
      });
      const after = suite.store.withWorkspaceLock(async () => 'after');
      await expect(boom).rejects.toThrow('boom');
      expect(await after).toBe('after');
      expect(await suite.store.withWorkspaceLock(async () => 'again')).toBe('again');
    });

    it('lets a critical section use the store', async () => {
      await seed(suite.store, 'w');
      const id = await suite.store.withWorkspaceLock(async () => {
        await suite.store.setActive('w');
        await suite.store.append('w', 1, [noteEvent(1)]);
        return suite.store.getActive();
      });
      expect(id).toBe('w');
      expect((await suite.store.load('w')).revision).toBe(2);
    });
  });
}
