import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Without BATON_TEST_PG_URL, starts an embedded PostgreSQL (PGlite) for the PostgreSQL tests.
    globalSetup: ['test/setup/postgres.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
