import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../store/types.js';
import { expectCode, seed } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: active pointer. */
export function activePointerTests(suite: StoreSuite): void {
  describe('active pointer', () => {
    let store: SessionStore;
    beforeEach(() => {
      store = suite.store;
    });

    it('gets, sets and clears the active session', async () => {
      expect(await store.getActive()).toBeNull();
      await seed(store, 'one');
      await seed(store, 'two');
      await store.setActive('one');
      expect(await store.getActive()).toBe('one');
      await store.setActive('two');
      expect(await store.getActive()).toBe('two');
      await store.setActive(null);
      expect(await store.getActive()).toBeNull();
      await store.setActive(null);
      expect(await store.getActive()).toBeNull();
    });

    it('refuses to point at a session that does not exist', async () => {
      await seed(store, 'one');
      await store.setActive('one');
      await expectCode(store.setActive('nope'), 'NOT_FOUND');
      expect(await store.getActive()).toBe('one');
    });
  });
}
