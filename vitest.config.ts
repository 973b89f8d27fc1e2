import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs the real agent CLIs the hook end-to-end tests run (test/e2e), once, into a cache folder.
    globalSetup: ['test/e2e/global-setup.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
