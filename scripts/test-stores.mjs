// The service's tests (test/unit/server, test/unit/runs, test/e2e/serve*) on SQLite and/or
// PostgreSQL: `node scripts/test-stores.mjs sqlite postgres` runs vitest once per store with
// MAC_TEST_STORE set; the helpers then give each service a fresh database on that store
// (test/helpers/store-mode.ts). `npm test` runs it after the main run (on memory); the files that
// pick their stores themselves already ran there and are left out here.
import { spawnSync } from 'node:child_process';

const SUITE = ['test/unit/server', 'test/unit/runs', 'test/e2e/serve'];
// Each of these opens the stores it tests (all three, or SQLite or PostgreSQL by name).
const OWN_STORES = [
  'test/unit/server/store*.test.ts',
  'test/unit/server/aggregate.test.ts',
  'test/unit/server/percentiles.test.ts',
  'test/e2e/serve-postgres*.test.ts',
  'test/e2e/serve-stores.test.ts',
  'test/e2e/serve-database.test.ts',
  'test/e2e/serve-alerts-durable.test.ts',
  'test/e2e/serve-group-commit.test.ts',
];

const stores = process.argv.slice(2);
if (stores.length === 0 || stores.some((s) => s !== 'sqlite' && s !== 'postgres')) {
  console.error('usage: node scripts/test-stores.mjs sqlite|postgres [...]');
  process.exit(2);
}
for (const store of stores) {
  console.log(`\nThe service's tests on ${store} (MAC_TEST_STORE=${store})`);
  const args = ['vitest', 'run', ...SUITE, ...OWN_STORES.flatMap((glob) => ['--exclude', glob])];
  const r = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, MAC_TEST_STORE: store } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
