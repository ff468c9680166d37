// Cost of one store call on each store, in process (built modules): reading a run-data record
// (a database read on SQLite and PostgreSQL), listing configuration (memory on SQLite; on
// PostgreSQL a version check, then memory), and committing one record (durable).
// `node bench/store-calls.mjs` (starts a PostgreSQL of its own, fsync on).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../dist/server/store/store.js';
import { RUN_INDEX } from '../dist/server/rundata/collections.js';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';

const N = 2000;

function time(fn, n = N) {
  for (let i = 0; i < 50; i++) fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}

function measure(store) {
  const tx = store.begin('dev');
  for (let i = 0; i < 100; i++) tx.put('checks', `c${i}`, { id: `c${i}`, name: `check ${i}`, checkType: 'TCP', frequency: 1 });
  for (let i = 0; i < 100; i++) tx.put('checkResults', `r${i}`, { id: `r${i}`, checkId: 'c1', startedAt: new Date(Date.now() - i * 60_000).toISOString(), responseTime: i });
  tx.commit();
  return {
    getRunRecordUs: time((i) => store.get('dev', 'checkResults', `r${i % 100}`)),
    listChecksUs: time(() => store.list('dev', 'checks')),
    // A new turn of the event loop is not taken here: on PostgreSQL the versions are read once per turn.
    versionUs: time(() => store.version('checks')),
    commitUs: time((i) => {
      const t = store.begin('dev');
      t.put('snippets', `s${i}`, { id: i, name: `s${i}` });
      t.commit();
    }, 500),
  };
}

const pg = await startPostgres();
try {
  const rows = {
    memory: measure(Store.memory(RUN_INDEX)),
    sqlite: measure(Store.open(join(mkdtempSync(join(tmpdir(), 'mac-calls-')), 'state.db'), RUN_INDEX)),
    postgres: measure(Store.open(pg.url('bench'), RUN_INDEX)),
  };
  for (const [name, r] of Object.entries(rows)) {
    console.log(`${name.padEnd(9)} get run record ${r.getRunRecordUs.toFixed(1)} µs, list 100 checks ${r.listChecksUs.toFixed(1)} µs, version ${r.versionUs.toFixed(1)} µs, commit ${r.commitUs.toFixed(1)} µs`);
  }
  console.log(JSON.stringify({ bench: 'store-calls', ...rows }));
} finally {
  await pg.stop();
}
process.exit(0);
