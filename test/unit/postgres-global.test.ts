import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { needsPostgres } from '../helpers/postgres-global.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A project of a run that selected `files` (paths from the repository root), of which it runs those under `dir`. */
function project(files: string[], env: Record<string, string> = {}, dir = 'test/') {
  return {
    config: { env },
    matchesTestGlob: (f: string) => f.startsWith(resolve(ROOT, dir)),
    vitest: { state: { getFilepaths: () => files.map((f) => resolve(ROOT, f)) } },
  } as unknown as Parameters<typeof needsPostgres>[0];
}

describe('the global setup starts PostgreSQL only for a run that needs it', () => {
  it('does not for files that never reach a PostgreSQL helper (the store helper in its default mode does not count)', () => {
    expect(needsPostgres(project(['test/e2e/serve.test.ts']))).toBe(false);
    expect(needsPostgres(project(['test/unit/server/guards.test.ts', 'test/unit/server/checks.test.ts']))).toBe(false);
  });

  it('does for a file that reaches one, directly or through a helper', () => {
    expect(needsPostgres(project(['test/unit/server/store-lease.test.ts']))).toBe(true);
    expect(needsPostgres(project(['test/e2e/serve.test.ts', 'test/e2e/serve-netpolicy.test.ts']))).toBe(true);
    expect(needsPostgres(project(['test/e2e/serve-postgres.test.ts']))).toBe(true);
  });

  it('counts only the files of its own project', () => {
    expect(needsPostgres(project(['test/e2e/serve.test.ts', 'test/unit/server/store-lease.test.ts'], {}, 'test/e2e/'))).toBe(false);
  });

  it('does for every file when the store is PostgreSQL, and when the run does not say its files', () => {
    expect(needsPostgres(project(['test/unit/server/checks.test.ts'], { MAC_TEST_STORE: 'postgres' }))).toBe(true);
    expect(needsPostgres(project(['test/unit/server/checks.test.ts'], { MAC_TEST_STORE: 'sqlite' }))).toBe(false);
    expect(needsPostgres(project([]))).toBe(true);
  });
});
