import { freshDatabaseUrl } from './postgres.js';

/** A new database on the run's PostgreSQL (test/helpers/postgres-global.ts); the service creates it. */
export function pgDatabase(): string {
  const base = process.env.MAC_TEST_PG_URL;
  if (!base) throw new Error(`no PostgreSQL for the tests: ${process.env.MAC_TEST_PG_ERROR ?? 'vitest.config.ts starts one (test/helpers/postgres-global.ts)'}`);
  return freshDatabaseUrl(base);
}
