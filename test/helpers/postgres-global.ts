import { startPostgres, migrateTemplate, type TestPostgres } from './postgres.js';

let server: TestPostgres | undefined;

/**
 * vitest globalSetup: one PostgreSQL for the whole run (MAC_TEST_PG_URL, unless already set):
 * the store suite, the PostgreSQL suites and MAC_TEST_STORE=postgres use it, each service on a
 * fresh database of its own. Several projects of vitest.config.ts name this file: the first one
 * starts the server, the others find MAC_TEST_PG_URL set. It stops (by pid) when the run ends.
 *
 * The server it starts has the service's schema in `template1` (see migrateTemplate): a database
 * the service creates on first connect is a copy of it, already at the latest schema version, so
 * a service of a test opens without running the migrations again. A server named by the caller
 * (MAC_TEST_PG_URL set) is used as it is.
 */
export async function setup(): Promise<void> {
  if (process.env.MAC_TEST_PG_URL) return;
  try {
    server = await startPostgres();
    migrateTemplate(server.base);
    process.env.MAC_TEST_PG_URL = server.base;
  } catch (err) {
    // The tests that need PostgreSQL fail with this; the others run.
    process.env.MAC_TEST_PG_ERROR = err instanceof Error ? err.message : String(err);
  }
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
