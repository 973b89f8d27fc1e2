import { describe, expect, it } from 'vitest';
import { expectCode, seed } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: active pointer. */
export function activePointerTests(suite: StoreSuite): void {
  describe('active pointer', () => {
    it('gets, sets and clears the active session', async () => {
      expect(await suite.store.getActive()).toBeNull();
      await seed(suite.store, 'one');
      await seed(suite.store, 'two');
      await suite.store.setActive('one');
      expect(await suite.store.getActive()).toBe('one');
      await suite.store.setActive('two');
      expect(await suite.store.getActive()).toBe('two');
      await suite.store.setActive(null);
      expect(await suite.store.getActive()).toBeNull();
      await suite.store.setActive(null);
      expect(await suite.store.getActive()).toBeNull();
    });

    it('refuses to point at a session that does not exist', async () => {
      await seed(suite.store, 'one');
      await suite.store.setActive('one');
      await expectCode(suite.store.setActive('nope'), 'NOT_FOUND');
      expect(await suite.store.getActive()).toBe('one');
    });
  });
}
