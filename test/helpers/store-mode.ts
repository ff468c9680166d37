import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgDatabase } from './pg-url.js';

/**
 * The store the service tests run against: memory (default), SQLite (`MAC_TEST_STORE=sqlite`,
 * set by the `sqlite` project of vitest.config.ts) or PostgreSQL (`MAC_TEST_STORE=postgres`, the
 * `postgres` project: a database on the run's server, started by test/helpers/postgres-global.ts). The helpers that start a
 * service (testServer, runsHarness, startServe) give it a fresh database unless the test names one.
 */
export const TEST_STORE: 'memory' | 'sqlite' | 'postgres' =
  process.env.MAC_TEST_STORE === 'sqlite' ? 'sqlite' : process.env.MAC_TEST_STORE === 'postgres' ? 'postgres' : 'memory';

/** A fresh database (a SQLite file, or a PostgreSQL URL), undefined in memory mode. */
export function testStateFile(): string | undefined {
  if (TEST_STORE === 'postgres') return pgDatabase();
  return TEST_STORE === 'sqlite' ? join(mkdtempSync(join(tmpdir(), 'mac-test-db-')), 'state.db') : undefined;
}
