import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests spawn the built CLI and `mac serve`; on 2-core machines a generous timeout
    // avoids flakes without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most of an e2e file's time is spent waiting on the processes it spawns (the CLI, mac serve,
    // Chromium, PostgreSQL): three files at once keep 2 cores busy, where the default of one
    // worker per spare core ran them one after the other.
    maxWorkers: 3,
    // MAC_TEST_STORE=postgres: one PostgreSQL for the run (a fresh database per service).
    globalSetup: ['test/helpers/postgres-global.ts'],
  },
});
