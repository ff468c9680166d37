// Write cost of check results on each store, in process (built modules): commits of one result
// for each of `CHECKS` checks (as a group commit of a round of scheduled runs writes them), on
// memory, SQLite (a file, synchronous=FULL) and PostgreSQL (a server of its own, fsync on). Per
// result: wall µs, CPU µs of this process (main thread and the PostgreSQL worker thread), and on
// PostgreSQL the CPU µs of the server's processes (where its triggers run).
// `node bench/rollup-writes.mjs [--dist DIR] [--stores memory,sqlite,postgres] [--commits N] [--json FILE]`
// (DIR: another build to measure, e.g. an older commit's checkout, for before/after side by side).
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dist = resolve(arg('--dist') ?? new URL('../dist', import.meta.url).pathname);
const { Store } = await import(pathToFileURL(join(dist, 'server/store/store.js')).href);
const { RUN_INDEX } = await import(pathToFileURL(join(dist, 'server/rundata/collections.js')).href);

const CHECKS = 20;
const COMMITS = Number(arg('--commits') ?? 400);
const WARM = 50;
const START = Date.UTC(2026, 0, 1);

/** Clock ticks of the processes whose parent is `ppid` (and of `ppid` itself), user + system. */
function serverTicks(ppid) {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // f[1] is the parent pid; f[11], f[12] utime, stime (fields 14 and 15 of stat(5)).
    if (Number(name) === ppid || Number(f[1]) === ppid) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks;
}
const TICK_US = 10_000; // USER_HZ 100

function result(check, n) {
  const failed = n % 50 === 0;
  return {
    id: `r-${check}-${n}`,
    checkId: `c${check}`,
    checkType: 'API',
    resultType: 'FINAL',
    runLocation: 'eu-west-1',
    startedAt: new Date(START + n * 60_000).toISOString(),
    stoppedAt: new Date(START + n * 60_000 + 120).toISOString(),
    hasFailures: failed,
    hasErrors: false,
    isDegraded: n % 17 === 0,
    responseTime: 50 + ((n * 37 + check * 11) % 400),
    attempts: 1,
  };
}

function measure(store, serverPid) {
  let n = 0;
  const round = () => {
    const tx = store.begin('dev');
    for (let c = 0; c < CHECKS; c++) tx.put('checkResults', `r-${c}-${n}`, result(c, n));
    tx.commit();
    n++;
  };
  for (let i = 0; i < WARM; i++) round();
  const s0 = serverPid ? serverTicks(serverPid) : 0;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < COMMITS; i++) round();
  const wall = Number(process.hrtime.bigint() - t0) / 1e3;
  const cpu = process.cpuUsage(c0);
  const results = COMMITS * CHECKS;
  const out = { results, wallUsPerResult: wall / results, cpuUsPerResult: (cpu.user + cpu.system) / results };
  if (serverPid) out.serverCpuUsPerResult = ((serverTicks(serverPid) - s0) * TICK_US) / results;
  return out;
}

const stores = (arg('--stores') ?? 'memory,sqlite,postgres').split(',');
const pg = stores.includes('postgres') ? await startPostgres() : undefined;
try {
  const rows = {};
  if (stores.includes('memory')) rows.memory = measure(Store.memory(RUN_INDEX));
  if (stores.includes('sqlite')) rows.sqlite = measure(Store.open(join(mkdtempSync(join(tmpdir(), 'mac-rollupw-')), 'state.db'), RUN_INDEX));
  if (pg) rows.postgres = measure(Store.open(pg.url('bench'), RUN_INDEX), pg.pid);
  for (const [name, r] of Object.entries(rows)) {
    console.log(
      `${name.padEnd(9)} ${r.results} results in commits of ${CHECKS}: wall ${r.wallUsPerResult.toFixed(1)} µs, process CPU ${r.cpuUsPerResult.toFixed(1)} µs` +
        (r.serverCpuUsPerResult !== undefined ? `, server CPU ${r.serverCpuUsPerResult.toFixed(1)} µs` : '') +
        ' per result',
    );
  }
  const json = arg('--json');
  if (json) writeFileSync(json, JSON.stringify({ bench: 'rollup-writes', dist, ...rows }, null, 1));
} finally {
  await pg?.stop();
}
process.exit(0);
