// Public pages under load: mac serve with --results N stored results (default 1,000,000, over 30
// days and 20 checks of one dashboard and one status page, plus 100 other checks), on SQLite and
// on PostgreSQL. Per store: the dashboard, its data.json and the status page, each requested in
// turn, p95 cold (--page-cache-seconds 0: every request rendered from the database; then a second
// pass) and cached (the default; again after the traffic); then page traffic at --rate requests/s (default 50) for --seconds (default 30)
// while the service reports its own event-loop delay (perf_hooks.monitorEventLoopDelay, scraped
// from --metrics-port every 2 s: the p99 and max of each scrape's window). Each pass also gives the
// service's CPU time per request (all its threads; the database server's own is not counted) and
// how long its threads waited for a CPU meanwhile (`service`: what the machine's load added).
// The results are copies of one real result recorded by the service, written by one SQL statement
// (ids, checks and times changed in SQL), not through the API (bench/lib/seed.mjs).
// `--baseline DIR` measures another build (DIR/bin/mac.js, e.g. a copy of main's) side by side on
// the same database: cold p50/p95 (--baseline-samples requests of each page) and the traffic with
// its cache; the ratios are of the cold p50s. `--reuse-sqlite FILE` measures a SQLite database
// seeded before (no configuration, no seeding).
// `node bench/pages.mjs [--results N] [--only sqlite|postgres] [--keep-sqlite FILE | --reuse-sqlite FILE] [--rate R] [--seconds S] [--samples N] [--baseline DIR] [--json FILE]`
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAC_BIN } from './lib/mac.mjs';
import { seedPostgres, seedSqlite } from './lib/seed.mjs';
import { stopChild, tempDir, track, cleanup } from './lib/resources.mjs';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';
import { createServer } from '../dist/server/server.js';
import { RunRecorder } from '../dist/server/rundata/recorder.js';

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const TOTAL = Number(arg('--results', 1_000_000));
const RATE = Number(arg('--rate', 50));
const SECONDS = Number(arg('--seconds', 30));
const ONLY = arg('--only', undefined);
const SAMPLES = Number(arg('--samples', 60));
// Another build measured side by side on the same database (`--baseline DIR`: DIR/bin/mac.js),
// cold with --baseline-samples requests of each page, then with its cache under the same traffic.
const BASELINE = arg('--baseline', undefined);
const BASELINE_SAMPLES = Number(arg('--baseline-samples', 5));
// A SQLite database seeded by an earlier run (kept with `--keep-sqlite FILE`), measured again without seeding.
const REUSE_SQLITE = arg('--reuse-sqlite', undefined);
const KEEP_SQLITE = arg('--keep-sqlite', undefined);
// `--no-cold-traffic`: no page traffic without the cache (when a cold page takes seconds, the
// requests of the traffic queue up for far longer than the run).
const COLD_TRAFFIC = !process.argv.includes('--no-cold-traffic');
const CHECKS = 20;
const DAY = 86_400_000;
const KEY = 'mac-dev-key';

function serve(args, bin = MAC_BIN) {
  const child = track(spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-runs', '--rate-limit', '0/60', '--page-rate-limit', '0/60', '--metrics-port', '0', '--retention-days', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mac serve exited (${code}): ${out}`)));
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      const metrics = /metrics: (http:\/\/\S+)/.exec(out);
      if (!m || !metrics) return;
      clearInterval(timer);
      resolve({ url: m[1], metrics: metrics[1], pid: child.pid, stop: () => stopChild(child, 20_000) });
    }, 5);
  });
}

async function get(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)];
};
const r1 = (x) => Math.round(x * 10) / 10;

/** The service's event-loop delay of the last scrape window: p99 and max (ms). */
async function loopDelay(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const v = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: v('nodejs_eventloop_lag_p99_seconds'), max: v('nodejs_eventloop_lag_max_seconds') };
}

/** Creates the checks, the dashboard and the status page, and one real result to copy; returns the check ids. */
async function configure(stateFile) {
  const now = Date.now();
  const mac = createServer({ stateFile, retentionDays: 0 });
  const call = async (method, path, body) => {
    const res = await mac.request(path, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const ids = [];
  const services = [];
  for (let i = 0; i < CHECKS; i++) {
    const service = await call('POST', '/v1/status-pages/services', { name: `service ${i}` });
    services.push(service.id);
    const check = await call('POST', '/v1/checks/tcp', { name: `db ${String(i).padStart(2, '0')}`, tags: ['shop'], request: { hostname: 'db.internal', port: 5432 }, triggerIncident: { serviceId: service.id, severity: 'MINOR', name: 'down', description: 'd', notifySubscribers: false } });
    ids.push(check.id);
  }
  await call('POST', '/v1/dashboards', { customUrl: 'shop', header: 'Shop', tags: ['shop'], checksPerPage: 20 });
  await call('POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [{ name: 'All', services: services.map((id) => ({ id })) }] });
  const recorder = new RunRecorder(mac.ctx.store, () => now);
  const s = recorder.openSession('dev', { check: { id: ids[0], name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1'] });
  recorder.finishLocation('dev', s.checkSessionId, {
    location: 'eu-west-1', runLocation: 'eu-west-1', startedAt: new Date(now - 1000).toISOString(), stoppedAt: new Date(now - 900).toISOString(), responseTime: 100,
    hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    apiCheckResult: { requestError: null, response: { status: 200, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: null } }, multiStepCheckResult: null,
  });
  await mac.close();
  return { ids, startedAt: new Date(now - 1000).toISOString(), now };
}

const PAGES = ['/dashboards/shop', '/dashboards/shop/data.json', '/status/shop'];

/**
 * CPU time (ms) the service's process used so far, all its threads (user + system, from
 * /proc/PID/stat), and the time its threads waited for a CPU (run queue, /proc/PID/task/TID/schedstat):
 * the first hardly moves with the machine's load, the second is what the load adds. Null off Linux.
 */
function serviceCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = 1000 / 100; // USER_HZ
    let waitNs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        waitNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
      } catch {
        // A thread that ended meanwhile.
      }
    }
    return { cpuMs: (Number(f[11]) + Number(f[12])) * tick, waitMs: waitNs / 1e6 };
  } catch {
    return null;
  }
}

/**
 * p50/p95/p99 (ms) of each page, SAMPLES requests each, in turn; with `pid`, the service's CPU
 * time per request over the pass and its threads' total wait for a CPU.
 */
async function latencies(url, samples = SAMPLES, pid = undefined) {
  const before = pid === undefined ? null : serviceCpu(pid);
  const times = Object.fromEntries(PAGES.map((p) => [p, []]));
  const errors = Object.fromEntries(PAGES.map((p) => [p, []]));
  // A failed answer (a 503 when the database took longer than its statement timeout) is counted, not timed.
  for (let i = 0; i < samples; i++) for (const p of PAGES) await get(`${url}${p}`).then((ms) => times[p].push(ms), (e) => errors[p].push(String(e.message)));
  const out = Object.fromEntries(PAGES.map((p) => [p, { p50: r1(pct(times[p], 50)), p95: r1(pct(times[p], 95)), p99: r1(pct(times[p], 99)), ...(errors[p].length ? { errors: errors[p].length } : {}) }]));
  const after = pid === undefined ? null : serviceCpu(pid);
  if (before && after) out.service = { cpuMsPerRequest: r1((after.cpuMs - before.cpuMs) / (samples * PAGES.length)), runQueueWaitMs: Math.round(after.waitMs - before.waitMs) };
  return out;
}

/** RATE requests/s of the pages for SECONDS, the service's event-loop delay scraped every 2 s. */
async function traffic(svc) {
  await loopDelay(svc.metrics); // starts a fresh window
  const windows = [];
  const times = [];
  const errors = [];
  const inflight = new Set();
  const start = performance.now();
  let sent = 0;
  const scraper = setInterval(() => loopDelay(svc.metrics).then((w) => windows.push(w), (e) => errors.push(String(e))), 2000);
  while (performance.now() - start < SECONDS * 1000) {
    const due = start + (sent * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const path = PAGES[sent % PAGES.length];
    sent++;
    const p = get(`${svc.url}${path}`).then((ms) => times.push(ms), (e) => errors.push(String(e)));
    inflight.add(p);
    p.finally(() => inflight.delete(p));
  }
  await Promise.all([...inflight]);
  clearInterval(scraper);
  windows.push(await loopDelay(svc.metrics));
  const p99s = windows.map((w) => w.p99).filter(Number.isFinite);
  return {
    requests: sent,
    rps: r1(sent / ((performance.now() - start) / 1000)),
    p95Ms: r1(pct(times, 95)),
    errors: errors.length,
    loopP99Ms: { max: r1(Math.max(...p99s)), median: r1(pct(p99s, 50)) },
    loopMaxMs: r1(Math.max(...windows.map((w) => w.max).filter(Number.isFinite))),
  };
}

/**
 * The bench's own first fetch starts undici in this process (a second or more on a loaded
 * machine): paid once on a local server, so that no pass counts it as the service's time.
 */
async function warmClient() {
  const { createServer: createHttp } = await import('node:http');
  const srv = createHttp((_req, res) => res.end('ok'));
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    await (await fetch(`http://127.0.0.1:${srv.address().port}/`)).text();
  } finally {
    srv.close();
  }
}

async function measure(name, stateArgs, stateFile, seed) {
  await warmClient();
  const out = { store: name };
  if (seed) {
    const setup = await configure(stateFile);
    const seeded = await seed({ ...setup, total: TOTAL, ids: setup.ids });
    console.error(`pages/${name}: ${seeded.count} results stored in ${seeded.seedS.toFixed(0)} s`);
    Object.assign(out, { results: seeded.count, seedS: r1(seeded.seedS) });
  }
  const cold = await serve([...stateArgs, '--page-cache-seconds', '0']);
  try {
    out.cold = await latencies(cold.url, SAMPLES, cold.pid);
    console.error(`pages/${name}: cold ${JSON.stringify(out.cold)}`);
    // The same again: the first pass starts as the service does (its start-up work beside it).
    out.coldAgain = await latencies(cold.url, SAMPLES, cold.pid);
    console.error(`pages/${name}: cold, a second pass ${JSON.stringify(out.coldAgain)}`);
    if (COLD_TRAFFIC) out.trafficCold = await traffic(cold);
    if (COLD_TRAFFIC) console.error(`pages/${name}: traffic without the cache ${JSON.stringify(out.trafficCold)}`);
  } finally {
    await cold.stop();
  }
  const cached = await serve(stateArgs);
  try {
    out.cached = await latencies(cached.url, SAMPLES, cached.pid);
    console.error(`pages/${name}: cached ${JSON.stringify(out.cached)}`);
    out.traffic = await traffic(cached);
    console.error(`pages/${name}: traffic ${JSON.stringify(out.traffic)}`);
    out.cachedAfterTraffic = await latencies(cached.url, SAMPLES, cached.pid);
    console.error(`pages/${name}: cached, after the traffic ${JSON.stringify(out.cachedAfterTraffic)}`);
  } finally {
    await cached.stop();
  }
  if (BASELINE) {
    const bin = join(BASELINE, 'bin', 'mac.js');
    const before = { store: name, build: BASELINE };
    const bcold = await serve([...stateArgs, '--page-cache-seconds', '0'], bin);
    try {
      before.cold = await latencies(bcold.url, BASELINE_SAMPLES, bcold.pid);
      console.error(`pages/${name} (baseline): cold ${JSON.stringify(before.cold)}`);
    } finally {
      await bcold.stop();
    }
    const bcached = await serve(stateArgs, bin);
    try {
      before.traffic = await traffic(bcached);
      console.error(`pages/${name} (baseline): traffic ${JSON.stringify(before.traffic)}`);
    } finally {
      await bcached.stop();
    }
    out.baseline = before;
    out.ratios = Object.fromEntries(PAGES.map((p) => [p, r1(before.cold[p].p50 / out.cold[p].p50)]));
    console.error(`pages/${name}: cold p50 before/after ${JSON.stringify(out.ratios)}`);
  }
  return out;
}

const results = [];
try {
  if (ONLY !== 'postgres') {
    if (REUSE_SQLITE) results.push(await measure('sqlite', ['--state', REUSE_SQLITE], REUSE_SQLITE, null));
    else {
      // `--keep-sqlite FILE`: seeded there and left in place (for `--reuse-sqlite FILE`).
      if (KEEP_SQLITE && existsSync(KEEP_SQLITE)) throw new Error(`--keep-sqlite ${KEEP_SQLITE}: the file exists (measure it with --reuse-sqlite)`);
      const file = KEEP_SQLITE ?? join(await tempDir('mac-bench-pages-'), 'state.db');
      results.push(await measure('sqlite', ['--state', file], file, (s) => seedSqlite(file, s)));
    }
  }
  if (ONLY !== 'sqlite') {
    const server = await startPostgres();
    try {
      const url = server.url('pages');
      results.push(await measure('postgres', ['--database', url], url, (s) => seedPostgres(url, s)));
    } finally {
      await server.stop();
    }
  }
} finally {
  await cleanup();
}
console.log(JSON.stringify(results, null, 2));
const json = arg('--json', undefined);
if (json) writeFileSync(json, JSON.stringify(results, null, 2));
