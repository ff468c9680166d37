// mac serve on PostgreSQL with a million stored results: restart to the first answered request
// and analytics p95 (last30Days) on a check with 40,000 results. The results are copies of one
// real result recorded by the service (ids and times changed in SQL, bench/lib/seed.mjs), 40,000
// for the measured check over 30 days and the rest spread over 100 other checks.
// `node bench/pg-scale.mjs [--results N] [--restarts N] [--explain]` (starts a PostgreSQL of its
// own, fsync on). `--results 100000` loads in a tenth of the time; `--restarts N` measures the
// restart N times (the median is reported, each one printed); `--explain` prints PostgreSQL's plans
// of the summaries query and of the retention's DELETE.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { MAC_BIN } from './lib/mac.mjs';
import { seedPostgres } from './lib/seed.mjs';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';
import { createServer } from '../dist/server/server.js';
import { RunRecorder } from '../dist/server/rundata/recorder.js';

const at = process.argv.indexOf('--results');
const TOTAL = at > 0 ? Number(process.argv[at + 1]) : 1_000_000;
const rat = process.argv.indexOf('--restarts');
const RESTARTS = rat > 0 ? Number(process.argv[rat + 1]) : 1;
const ONE = 40_000;
const DAY = 86_400_000;

function serve(url) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [MAC_BIN, 'serve', '--port', '0', '--no-runs', '--rate-limit', '0/60', '--database', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mac serve exited (${code}): ${out}`)));
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearInterval(timer);
      resolve({ url: m[1], listenMs: performance.now() - t0, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    }, 2);
  });
}

const get = async (base, path) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: 'Bearer mac-dev-key' } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.text();
};

const server = await startPostgres();
try {
  const url = server.url('scale');
  const now = Date.now();
  const mac = createServer({ stateFile: url });
  const res = await mac.request('/v1/checks/tcp', {
    method: 'POST',
    headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'db', request: { hostname: 'db.internal', port: 5432 } }),
  });
  const check = await res.json();
  const recorder = new RunRecorder(mac.ctx.store, () => now);
  const s = recorder.openSession('dev', { check: { id: check.id, name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1'] });
  const startedAt = new Date(now - 1000).toISOString();
  recorder.finishLocation('dev', s.checkSessionId, {
    location: 'eu-west-1', runLocation: 'eu-west-1', startedAt, stoppedAt: new Date(now - 900).toISOString(), responseTime: 100,
    hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    apiCheckResult: { requestError: null, response: { status: 200, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: null } }, multiStepCheckResult: null,
  });
  await mac.close();
  const seeded = await seedPostgres(url, { startedAt, now, total: TOTAL, ids: [check.id], share: 'one', one: ONE, failures: false });
  const count = seeded.count;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const size = Number((await c.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n) / 1024 / 1024;
  if (process.argv.includes('--explain')) {
    const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS) SELECT (at - $2) / ${DAY} AS b, count(n2), sum(n2), string_agg(n2::text, ',') FROM records WHERE account = 'dev' AND kind = 'checkResults' AND check_id = $1 AND at >= $2 AND at < $3 AND k0 = '"FINAL"' GROUP BY b`, [check.id, now - 30 * DAY, now]);
    console.error(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    // The retention's first step at start (30 days kept): in a transaction rolled back.
    await c.query('BEGIN');
    const del = await c.query(`EXPLAIN (ANALYZE, BUFFERS) DELETE FROM records WHERE seq IN (SELECT seq FROM records WHERE kind = $1 AND at < $2 LIMIT $3)`, ['checkResults', Date.now() - 30 * DAY, 500]);
    await c.query('ROLLBACK');
    console.error(del.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  await c.end();
  console.error(`pg-scale: ${count} results stored in ${seeded.seedS.toFixed(0)} s, database ${size.toFixed(0)} MB`);
  // The database's reduction alone (in process), to tell it from the rest of the request.
  const direct = createServer({ stateFile: url, runs: false, retentionDays: 0 });
  const q0 = performance.now();
  const rows = direct.ctx.store.aggregate('dev', 'checkResults', { checkId: check.id, fromMs: now - 30 * DAY, toMs: now, bucketMs: DAY, filters: [{ path: 'resultType', in: ['FINAL'] }], values: [{ path: 'responseTime', percentiles: [95] }] });
  const queryMs = performance.now() - q0;
  await direct.close();
  console.error(`pg-scale: the store's reduction of the check's results (${rows.reduce((n, r) => n + r.values[0].n, 0)}) by day: ${queryMs.toFixed(0)} ms`);
  // Restart: spawn to the "listening" line, and to the first answered request.
  const restarts = [];
  let mac2;
  for (let i = 0; i < RESTARTS; i++) {
    if (mac2) await mac2.stop();
    const r0 = performance.now();
    mac2 = await serve(url);
    await get(mac2.url, '/v1/checks?limit=1');
    restarts.push({ listenMs: mac2.listenMs, answerMs: performance.now() - r0 });
    console.error(`pg-scale: restart ${i + 1}: listening after ${mac2.listenMs.toFixed(0)} ms, first answer after ${restarts[i].answerMs.toFixed(0)} ms`);
  }
  const restartMs = [...restarts.map((r) => r.answerMs)].sort((a, b) => a - b)[Math.floor((RESTARTS - 1) / 2)];
  const times = [];
  let body = '';
  const ANALYTICS = process.argv.includes('--no-analytics') ? 0 : 20;
  for (let i = 0; i < ANALYTICS; i++) {
    const a = performance.now();
    body = await get(mac2.url, `/v1/analytics/url-monitors/${check.id}?quickRange=last30Days&metrics=responseTime_avg,responseTime_p95&aggregationInterval=1440`);
    times.push(performance.now() - a);
  }
  await mac2.stop();
  times.sort((a, b) => a - b);
  const p95 = ANALYTICS ? times[Math.ceil(0.95 * times.length) - 1] : NaN;
  const p50 = ANALYTICS ? times[10] : NaN;
  const days = ANALYTICS ? JSON.parse(JSON.parse(body).series[0]).data.filter((d) => d.responseTime_avg !== null).length : 0;
  console.error(`pg-scale: restart to first answer ${restartMs.toFixed(0)} ms (median of ${RESTARTS}); analytics last30Days p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms (${days} daily buckets with data)`);
  console.log(JSON.stringify({ bench: 'serve-pg-scale', results: count, sizeMb: Math.round(size), restartMs: Math.round(restartMs), restarts: restarts.map((r) => Math.round(r.answerMs)), analyticsP50Ms: Math.round(p50), analyticsP95Ms: Math.round(p95), storeQueryMs: Math.round(queryMs) }));
} finally {
  await server.stop();
}
process.exit(0);
