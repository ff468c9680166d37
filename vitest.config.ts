import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests spawn the built CLI and `mac serve`; on 2-core machines a generous timeout
    // avoids flakes without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // MAC_TEST_STORE=postgres: one PostgreSQL for the run (a fresh database per service).
    globalSetup: ['test/helpers/postgres-global.ts'],
  },
});
