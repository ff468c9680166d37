import pg from 'pg';
import { freshDatabaseUrl } from './postgres.js';
import { PG_MIGRATIONS, PostgresBackend } from '../../src/server/store/postgres.js';

/** A new database on the run's PostgreSQL (test/helpers/postgres-global.ts); the service creates it. */
export function pgDatabase(): string {
  const base = process.env.MAC_TEST_PG_URL;
  if (!base) throw new Error(`no PostgreSQL for the tests: ${process.env.MAC_TEST_PG_ERROR ?? 'vitest.config.ts starts one (test/helpers/postgres-global.ts)'}`);
  return freshDatabaseUrl(base);
}

/** One query on its own connection: the rows as objects. */
export async function pgQuery<T = any>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

/**
 * Creates the database of `url` (pgDatabase's names need no quoting) empty, as a server without
 * the tests' schema in template1 would (test/helpers/postgres.ts migrateTemplate): from template0.
 */
export async function pgCreateDatabase(url: string): Promise<void> {
  await pgQuery(new URL('/postgres', url).toString(), `CREATE DATABASE ${new URL(url).pathname.slice(1)} TEMPLATE template0`);
}

/** Creates the database of `url` as the first schema version left it: tables of migration 1, version 1. */
export async function pgSchemaV1Database(url: string): Promise<void> {
  await pgCreateDatabase(url);
  await pgQuery(url, `${PG_MIGRATIONS[0]}; CREATE TABLE mac_schema (version integer NOT NULL); INSERT INTO mac_schema VALUES (1)`);
}

/**
 * Creates the database of `url` as `mac serve` does on its first connect, with the store's own
 * code in this process (no service to start): at the latest schema version, without records.
 */
export function pgServiceDatabase(url: string): void {
  PostgresBackend.open(url, {}).close();
}
