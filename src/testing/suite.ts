import { afterEach, beforeEach } from 'vitest';
import type { SessionStore } from '../store/types.js';

/** What a factory hands the suite for one test. */
export interface StoreUnderTest {
  store: SessionStore;
  /** Removes everything the store left behind (temp dirs, schemas…). Called after `store.close()`. */
  cleanup: () => Promise<void>;
  /**
   * Opens a second, independent handle on the same data, as another process would. Required
   * when the store declares `capabilities.multiProcess`; the cross-handle tests use it.
   */
  reopen?: () => Promise<SessionStore>;
}

/** Makes a fresh, empty store for one test. */
export type StoreFactory = () => Promise<StoreUnderTest>;

/** The store of the running test, as each conformance group (and `additionalTests`) sees it. */
export interface StoreSuite {
  /** The name the suite was given. */
  readonly name: string;
  /** The fresh, empty store of the running test (read it inside a test or hook). */
  readonly store: SessionStore;
  /** The running test's `reopen`, when its factory gives one. */
  readonly reopen: (() => Promise<SessionStore>) | undefined;
  /** A second handle on the same data, closed after the test; fails the test when the factory gives none. */
  second(): Promise<SessionStore>;
}

/**
 * Registers, in the enclosing `describe`, the hooks that make a fresh store before each test
 * and close it (and every second handle) and clean up after it.
 */
export function storeSuite(name: string, makeStore: StoreFactory): StoreSuite {
  let sut: StoreUnderTest | null = null;
  const extra: SessionStore[] = [];
  beforeEach(async () => {
    sut = await makeStore();
  });
  afterEach(async () => {
    for (const s of extra.splice(0)) await s.close();
    if (!sut) return;
    await sut.store.close();
    await sut.cleanup();
    sut = null;
  });
  const current = (): StoreUnderTest => {
    if (!sut) throw new Error('the conformance store is only there inside a test or hook');
    return sut;
  };
  return {
    name,
    get store() {
      return current().store;
    },
    get reopen() {
      return current().reopen;
    },
    async second() {
      const { reopen } = current();
      if (!reopen) throw new Error(`${name} declares multiProcess but its factory gives no reopen()`);
      const s = await reopen();
      extra.push(s);
      return s;
    },
  };
}
