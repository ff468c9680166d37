import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The store the service tests run against: memory (default) or SQLite (`MAC_TEST_STORE=sqlite`,
 * see `npm run test:sqlite`). The helpers that start a service (testServer, runsHarness,
 * startServe) give it a fresh database file in SQLite mode unless the test names one itself.
 */
export const TEST_STORE: 'memory' | 'sqlite' = process.env.MAC_TEST_STORE === 'sqlite' ? 'sqlite' : 'memory';

/** A fresh database file in SQLite mode, undefined in memory mode. */
export function testStateFile(): string | undefined {
  return TEST_STORE === 'sqlite' ? join(mkdtempSync(join(tmpdir(), 'mac-test-db-')), 'state.db') : undefined;
}
