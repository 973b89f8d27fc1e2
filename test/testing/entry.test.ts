import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import type { SessionStore } from '../../src/store/types.js';
import { runStoreConformance, seed } from '../../src/testing/index.js';

// The options form of the suite, as a store written elsewhere uses it (docs/testing-a-store.md).
const made: SessionStore[] = [];
const cleaned: SessionStore[] = [];

runStoreConformance({
  name: 'memory, through the baton/testing entry',
  create: async () => {
    const store = new MemoryStore();
    made.push(store);
    return { store, cleanup: async () => void cleaned.push(store) };
  },
  additionalTests: (suite) => {
    it('runs additional tests against a fresh store of their own', async () => {
      expect(suite.name).toBe('memory, through the baton/testing entry');
      expect(suite.store).toBe(made[made.length - 1]);
      expect((await suite.store.list()).summaries).toEqual([]);
      await seed(suite.store, 'extra', 1);
      expect((await suite.store.load('extra')).revision).toBe(2);
      // Every earlier test's store was cleaned up after it.
      expect(cleaned).toEqual(made.slice(0, -1));
    });
  },
});

it('is published as baton/testing, with its types', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    exports: Record<string, { types: string; import: string }>;
  };
  expect(pkg.exports['./testing']).toEqual({ types: './dist/types/testing/index.d.ts', import: './dist/testing.js' });
});
