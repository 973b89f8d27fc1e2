import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Without BATON_TEST_PG_URL, starts an embedded PostgreSQL (PGlite) for the PostgreSQL tests;
    // installs the real agent CLIs the hook end-to-end tests run (test/e2e), once, into a cache folder.
    globalSetup: ['test/setup/postgres.ts', 'test/e2e/global-setup.ts'],
    pool: 'forks',
    // Many test files mostly wait (on child processes, leases running out, file watchers):
    // one file more than there are cores keeps the CPUs busy (vitest's default is one less).
    maxWorkers: os.availableParallelism() + 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
