import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startPostgres, migrateTemplate, type TestPostgres } from './postgres.js';

let server: TestPostgres | undefined;

/**
 * vitest globalSetup: one PostgreSQL for the whole run (MAC_TEST_PG_URL, unless already set):
 * the store suite, the PostgreSQL suites and MAC_TEST_STORE=postgres use it, each service on a
 * fresh database of its own. Several projects of vitest.config.ts name this file: the first one
 * whose selected files need PostgreSQL starts the server, the others find MAC_TEST_PG_URL set; a
 * run whose files do not need it (one e2e file alone, say) does not start it. It stops (by pid)
 * when the run ends.
 *
 * The server it starts has the service's schema in `template1` (see migrateTemplate): a database
 * the service creates on first connect is a copy of it, already at the latest schema version, so
 * a service of a test opens without running the migrations again. A server named by the caller
 * (MAC_TEST_PG_URL set) is used as it is.
 */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.MAC_TEST_PG_URL) return;
  if (!needsPostgres(project)) return;
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

/** The helpers whose use means a database on the run's server: a file that reaches one of them needs PostgreSQL. */
const HELPERS = fileURLToPath(new URL('.', import.meta.url));
const PG_HELPERS = ['pg-url.ts', 'postgres.ts'].map((f) => resolve(HELPERS, f));
/** The helper that gives each service a database on the store of MAC_TEST_STORE: PostgreSQL only in that mode. */
const STORE_MODE = resolve(HELPERS, 'store-mode.ts');

/**
 * Whether a file this project runs in this run needs PostgreSQL: every file when its store is
 * PostgreSQL (MAC_TEST_STORE, from the project or the environment), else a file that names
 * MAC_TEST_PG_URL or reaches a PostgreSQL helper through its relative imports. When the run's
 * files are not known (an API run), it is started, as before.
 */
export function needsPostgres(project: Pick<TestProject, 'config' | 'matchesTestGlob'> & { vitest: { state: { getFilepaths(): string[] } } }): boolean {
  const store = project.config.env?.MAC_TEST_STORE ?? process.env.MAC_TEST_STORE;
  if (store === 'postgres') return true;
  const files = project.vitest.state.getFilepaths().filter((f) => project.matchesTestGlob(f));
  if (files.length === 0) return true;
  const seen = new Set<string>();
  const reaches = (file: string): boolean => {
    if (seen.has(file)) return false;
    seen.add(file);
    if (PG_HELPERS.includes(file)) return true;
    if (file === STORE_MODE) return false;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false;
    }
    if (text.includes('MAC_TEST_PG_URL')) return true;
    return relativeImports(text).some((spec) => reaches(resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
  };
  return files.some(reaches);
}

/** The relative module specifiers of a test file (static imports and re-exports, dynamic import()). */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|[;\n}])\s*(?:import|export)\b(?:[^'";]*?\bfrom\s*)?\s*['"](\.[^'"]+)['"]/g)) found.push(m[1]);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g)) found.push(m[1]);
  // Only the test tree: src/ never needs the tests' PostgreSQL.
  return found.filter((s) => !s.includes('/src/'));
}
