import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The suite in tiers (vitest projects), run together by `npm test` and one by one with
// `npm run test:unit|service|e2e|stores` (`vitest run --project NAME`). CONTRIBUTING.md ("Tests")
// says which tier a new test file belongs to; the tiers are chosen by path, so a new file lands
// in one without touching this file, unless it is a unit file that drives live things.
//
// No tier isolates its files (`isolate: false`): the files a worker runs share one module graph,
// so src/ and the helpers are imported once per worker instead of once per file. Measured side by
// side (load 5-15): the service tier 271 s wall and 213 s CPU isolated, 195 s and 124 s not; the
// integration tier 165 s and 164 s, 51 s and 79 s; vitest's summed import time fell from 191 to
// 42 s and from 48 to 11 s. So every test file must leave no global state behind: no vi.mock, no
// spy on a module's export, no fake timers, no process.env, working directory or exit code it
// does not restore, no service, browser or child process left running after its last hook.

/**
 * unit: pure stages called in process: no child process, no service, no socket. A file under
 * test/unit that needs one goes to UNIT_LIVE (or lives under test/unit/server, test/unit/runs or
 * test/unit/runner, which are the service tier), which keeps the unit tier the edit-test loop.
 */
const UNIT = ['test/unit/**/*.test.ts'];
/** The runner's files that drive real targets (servers, ping, the sandbox, Chromium); its other files are pure. */
const RUNNER_LIVE = 'test/unit/runner/!(assertions|dns-codec|fair-pool|http-phases|retry).test.ts';
/** Files under test/unit that spawn processes, start a service or a browser, or use the file system's odd corners. */
const UNIT_LIVE = [
  'test/unit/action-bundle.test.ts', // spawns the Action's build (esbuild) and compares bundles
  'test/unit/cli/serve-heap.test.ts', // spawns node processes with their own V8 flags
  'test/unit/git/git.test.ts', // spawns git in scratch repositories
  'test/unit/loader-bounds.test.ts', // FIFOs and files that never end
  'test/unit/plan/http-kinds.test.ts', // an in-process service
];
/** The service tier: the service in process (test/unit/server, test/unit/runs) and the runners against real targets. */
const SERVICE = ['test/unit/server/**/*.test.ts', 'test/unit/runs/**/*.test.ts', RUNNER_LIVE, ...UNIT_LIVE];

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
  'test/unit/server/public-lookup.test.ts',
  'test/unit/runs/alert-delivery.test.ts',
  'test/unit/runs/alert-mail.test.ts',
  'test/unit/runs/service-runs.test.ts',
  'test/unit/runs/run-variables-cache.test.ts',
  'test/unit/runs/joined-session.test.ts',
  'test/e2e/serve-durability.test.ts',
  'test/e2e/serve-rundata-runs.test.ts',
  'test/e2e/serve-rundata-status-pages.test.ts',
  'test/e2e/serve-stop.test.ts',
];

/**
 * Seconds per file of the files that took 10 s or more (project:path) in the last fresh-clone CI
 * run of `npm test` (3 workers on a 2-core machine at load 6-8, 832 s of wall time); files split or
 * moved since then carry that figure scaled by their measured before/after ratio. Only an
 * order: the files of every project share one queue of `maxWorkers` slots, and a long file that
 * starts last ends last (the run's wall time is at least the longest file, and at most the mean
 * load plus the last file to start). A file missing here, or gone, costs nothing but its place in
 * the order; refresh the list from a run's per-file times (`vitest run --reporter=json`, each
 * file's end minus start) when the long files change. Tried, no gain shown: every file's seconds
 * from an idle run (only 7 files then count as long, and the rest run project by project): a fresh
 * clone on an idle machine took 285.1 s, where this table gave 264.6 and 285.1 s in two runs.
 */
const KNOWN_SECONDS: Record<string, number> = {
  'e2e:test/e2e/action-bundle.test.ts': 45,
  'e2e:test/e2e/apply-lock.test.ts': 80,
  'e2e:test/e2e/multistep.test.ts': 24,
  'e2e:test/e2e/sandbox-serve.test.ts': 46,
  'e2e:test/e2e/sandbox.test.ts': 28,
  'e2e:test/e2e/serve-postgres.test.ts': 73,
  'e2e:test/e2e/env-safety.test.ts': 20,
  'e2e:test/e2e/browser.test.ts': 63,
  'e2e:test/e2e/agent-postgres.test.ts': 52,
  'integration:test/integration/kinds-icmp.test.ts': 22,
  'e2e:test/e2e/pack-install.test.ts': 83,
  'e2e:test/e2e/pages-pictures-browser.test.ts': 45,
  'service:test/unit/runner/browser.test.ts': 44,
  'e2e:test/e2e/apply-chaos.test.ts': 43,
  'e2e:test/e2e/agent-kill.test.ts': 42,
  'e2e:test/e2e/agent-joined.test.ts': 27,
  'service:test/unit/cli/serve-heap.test.ts': 20,
  'service:test/unit/server/reference-responses.test.ts': 32,
  'service:test/unit/runner/multistep.test.ts': 39,
  'e2e:test/e2e/serve-database-password.test.ts': 28,
  'e2e:test/e2e/pages-browser.test.ts': 27,
  'e2e:test/e2e/agent-once.test.ts': 24,
  'e2e:test/e2e/demo.test.ts': 24,
  'e2e:test/e2e/serve-database.test.ts': 23,
  'e2e:test/e2e/sandbox-serve-accounts.test.ts': 23,
  'e2e:test/e2e/serve.test.ts': 22,
  'e2e:test/e2e/serve-alerts-durable.test.ts': 21,
  'service:test/unit/server/aggregate.test.ts': 19,
  'e2e:test/e2e/serve-netpolicy.test.ts': 19,
  'e2e:test/e2e/serve-postgres-unique.test.ts': 19,
  'postgres:test/e2e/serve-stop.test.ts': 18,
  'postgres:test/unit/runs/service-runs.test.ts': 17,
  'integration:test/integration/apply-lock-engine.test.ts': 10,
  'e2e:test/e2e/serve-assertion-budget.test.ts': 14,
  'e2e:test/e2e/destroy-tty.test.ts': 14,
  'service:test/unit/runner/sandbox.test.ts': 5,
  'e2e:test/e2e/serve-postgres-outage.test.ts': 13,
  'postgres:test/unit/server/subscribers.test.ts': 13,
  'service:test/unit/runner/api-scripts.test.ts': 3,
  'integration:test/integration/apply-chaos.test.ts': 12,
  'e2e:test/e2e/serve-group-commit.test.ts': 12,
  'unit:test/unit/cli/help.test.ts': 12,
  'e2e:test/e2e/serve-stop.test.ts': 11,
  'sqlite:test/e2e/serve-stop.test.ts': 11,
  'integration:test/integration/init.test.ts': 11,
  'integration:test/integration/action-pull-request.test.ts': 25,
  'integration:test/integration/action-secrets.test.ts': 25,
  'integration:test/integration/action-apply.test.ts': 25,
  'integration:test/integration/browser-scriptfile.test.ts': 15,
  'integration:test/integration/apply-lock.test.ts': 12,
  'integration:test/integration/env-safety.test.ts': 10,
};

/** Files expected to take at least this many seconds start first, longest first, whatever their project. */
const LONG_FILE_SECONDS = 15;

/**
 * Long files first, longest first, over all projects (vitest's own order runs the projects one
 * after the other by name, and on a fresh clone, without its cache of durations, orders a
 * project's files by size: the longest file of the service tier started after every e2e file).
 * Then the shorter files, project by project: a worker that ends a file runs the next one in the
 * same process, with the modules it already imported, only when the next file in the queue is of
 * the same project (vitest's pool, without isolation); with the projects interleaved, as a plain
 * longest-first order leaves them, nearly every file started a new worker that imported src/
 * again. Each project's short files keep their longest-first order, and the projects come in the
 * order of their longest short file. A file's duration is the one vitest cached from the last
 * run on this machine, else KNOWN_SECONDS; the files of neither come after the others of their
 * project, the larger first.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(root, f.moduleId)}`;
    const seconds = (f: TestSpecification): number | undefined => {
      const cached = this.ctx.cache.getFileTestResults(key(f))?.duration;
      return cached !== undefined ? cached / 1000 : KNOWN_SECONDS[key(f)];
    };
    const size = (f: TestSpecification) => this.ctx.cache.getFileStats(key(f))?.size ?? 0;
    const longestFirst = [...files].sort((a, b) => {
      const [sa, sb] = [seconds(a), seconds(b)];
      if (sa !== undefined && sb !== undefined) return sb - sa;
      if (sa !== undefined || sb !== undefined) return sa !== undefined ? -1 : 1;
      return size(b) - size(a);
    });
    const long: TestSpecification[] = [];
    const byProject = new Map<string, TestSpecification[]>();
    for (const f of longestFirst) {
      if ((seconds(f) ?? 0) >= LONG_FILE_SECONDS) {
        long.push(f);
        continue;
      }
      let group = byProject.get(f.project.name);
      if (!group) byProject.set(f.project.name, (group = []));
      group.push(f);
    }
    return [...long, ...[...byProject.values()].flat()];
  }
}

/**
 * How many files run at once: three on this project's 2-core machines.
 *
 * Most of a file's time is waiting: on the processes it spawns (the CLI, mac serve, Chromium,
 * PostgreSQL), on leases, retries and schedules. Measured on an idle 2-core machine, each file's
 * CPU (its own and its children's) against its wall time: the files used 69% of the two cores
 * with 3 at once and 75% with 4 (326 and 288 s of wall with that accounting). After the waits
 * were cut, fresh clones took 264.6 s with 3, and 239.2, 280.4 and 270.5 s with 4 (the last with
 * one failure: a browser run's failure screenshot missing at load 12). A 4th file gains too little
 * for what it costs in contention: start-up limits of 20-30 s were missed at load 30 with 4 earlier.
 * A 2nd file alone leaves a core idle while a file waits. The wall time is at least the longest
 * file: what brings it down is cutting the waits in the long files and starting them first
 * (LongestFirst). `vitest run --maxWorkers N` overrides it.
 */
const WORKERS = 3;

// One PostgreSQL for the whole run (MAC_TEST_PG_URL, a fresh database per service): the first
// project whose selected files need it starts it, the others find it started; a run of files that
// do not need it (one e2e file alone) does not start it. The unit tier does not start it.
const postgres = ['test/helpers/postgres-global.ts'];

export default defineConfig({
  test: {
    // e2e tests spawn the built CLI and `mac serve`; on 2-core machines a generous timeout
    // avoids flakes without hiding hangs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    isolate: false,
    // Files at once: see WORKERS.
    maxWorkers: WORKERS,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, exclude: SERVICE },
      },
      { extends: true, test: { name: 'service', include: SERVICE, globalSetup: postgres } },
      // integration: the CLI's main() and `mac serve` in the test's own process (test/helpers/mac-inprocess.ts),
      // and the Action's bundle (test/helpers/action-bundle.ts), each imported by Node itself.
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], server: { deps: { external: [/\/dist\//, /\/dist-action\//] } } },
      },
      // e2e: real processes where the process is the point; the commands of such a file that only
      // read or repair what the processes left run in process (macIn), dist/ imported by Node as in integration.
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: postgres, server: { deps: { external: [/\/dist\//] } } },
      },
      { extends: true, test: { name: 'sqlite', include: STORE_MATRIX, env: { MAC_TEST_STORE: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', include: STORE_MATRIX, env: { MAC_TEST_STORE: 'postgres' }, globalSetup: postgres } },
    ],
  },
});
