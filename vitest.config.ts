import { defineConfig } from 'vitest/config';

// The suite in tiers (vitest projects), run together by `npm test` and one by one with
// `npm run test:unit|service|e2e|stores` (`vitest run --project NAME`). CONTRIBUTING.md ("Tests")
// says which tier a new test file belongs to; the tiers are chosen by path, so a new file lands
// in one without touching this file, unless it is a unit file that must keep its isolation.

/**
 * unit: pure stages called in process, without per-file isolation (one module graph per worker:
 * the files share it, which saves re-importing src/ for each file). A file here must leave no
 * global state behind: no vi.mock or vi.spyOn, no fake timers, no process.env or cwd it does not
 * restore, no child process, no service, no socket. Such a file goes to UNIT_ISOLATED (or lives
 * under test/unit/server, test/unit/runs or test/unit/runner, which are the service tier).
 */
const UNIT = ['test/unit/**/*.test.ts'];
/** The runner's files that drive real targets (servers, ping, the sandbox, Chromium); its other files are pure. */
const RUNNER_LIVE = 'test/unit/runner/!(assertions|dns-codec|fair-pool|http-phases|retry).test.ts';
/** Files under test/unit that spawn processes, start a service or a browser, or change global state. */
const UNIT_ISOLATED = [
  'test/unit/action-bundle.test.ts', // spawns the Action's build (esbuild) and compares bundles
  'test/unit/cli/serve-heap.test.ts', // spawns node processes with their own V8 flags
  'test/unit/git/git.test.ts', // spawns git in scratch repositories
  'test/unit/loader-bounds.test.ts', // FIFOs and files that never end
  'test/unit/plan/http-kinds.test.ts', // an in-process service
];
/** The service tier: the service in process (test/unit/server, test/unit/runs) and the runners against real targets. */
const SERVICE = ['test/unit/server/**/*.test.ts', 'test/unit/runs/**/*.test.ts', RUNNER_LIVE, ...UNIT_ISOLATED];

/**
 * The store matrix: the files whose tests exercise what a store keeps (records and their
 * uniqueness, counters, order and paging, run data, the persisted queues, a restart), run again on
 * SQLite and on PostgreSQL (MAC_TEST_STORE: the helpers give each service a fresh database on that
 * store, see test/helpers/store-mode.ts). Every other service file runs once, in memory; the
 * files that open the stores they test themselves (test/unit/server/store*.test.ts,
 * aggregate, percentiles, test/e2e/serve-postgres*, serve-stores, serve-database,
 * serve-alerts-durable, serve-group-commit) cover all three stores in their one run.
 */
export const STORE_MATRIX = [
  'test/unit/server/resources.test.ts',
  'test/unit/server/checks.test.ts',
  'test/unit/server/custom-domains.test.ts',
  'test/unit/server/fidelity.test.ts',
  'test/unit/server/fuzz-status.test.ts',
  'test/unit/server/maintenance-windows.test.ts',
  'test/unit/server/spec-order.test.ts',
  'test/unit/server/subscribers.test.ts',
  'test/unit/runs/alert-delivery.test.ts',
  'test/unit/runs/alert-mail.test.ts',
  'test/unit/runs/service-runs.test.ts',
  'test/e2e/serve-durability.test.ts',
  'test/e2e/serve-rundata-runs.test.ts',
  'test/e2e/serve-rundata-status-pages.test.ts',
  'test/e2e/serve-stop.test.ts',
];

// One PostgreSQL for the whole run (MAC_TEST_PG_URL, a fresh database per service): the first
// project that needs it starts it, the others find it started. The unit tier does not start it.
const postgres = ['test/helpers/postgres-global.ts'];

export default defineConfig({
  test: {
    // e2e tests spawn the built CLI and `mac serve`; on 2-core machines a generous timeout
    // avoids flakes without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most of an e2e file's time is spent waiting on the processes it spawns (the CLI, mac serve,
    // Chromium, PostgreSQL): three files at once keep 2 cores busy, where the default of one
    // worker per spare core ran them one after the other.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, exclude: SERVICE, isolate: false },
      },
      { extends: true, test: { name: 'service', include: SERVICE, globalSetup: postgres } },
      // integration: the CLI's main() and `mac serve` in the test's own process (test/helpers/mac-inprocess.ts).
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], server: { deps: { external: [/\/dist\//] } } },
      },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: postgres } },
      { extends: true, test: { name: 'sqlite', include: STORE_MATRIX, env: { MAC_TEST_STORE: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', include: STORE_MATRIX, env: { MAC_TEST_STORE: 'postgres' }, globalSetup: postgres } },
    ],
  },
});
