// Analytics on a month of results: a check with 40,000 results over 30 days (and 10,000 of other
// checks), on SQLite and on PostgreSQL. Each request is timed through a spawned `mac serve`
// (`--no-runs`), and side by side, in process, the reduction in JavaScript over the fields read
// from the same store (analytics computed in the process, as they were before).
// `node bench/analytics.mjs [--results N] [--sqlite-only]`; `npm run bench -- --only analytics`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from './lib/service.mjs';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';
import { createServer } from '../dist/server/server.js';
import { analyticsSeries, buildSeries } from '../dist/server/rundata/analytics.js';

// What the series read of a result, when they are computed in JavaScript.
const FIELDS = ['resultType', 'startedAt', 'hasFailures', 'attempts', 'responseTime', 'runLocation', 'apiCheckResult.response.status', 'apiCheckResult.response.timingPhases'];
import { parseMetrics } from '../dist/server/rundata/analytics-metrics.js';

const DAY = 86_400_000;
const QUERIES = {
  'daily avg+p95': 'quickRange=last30Days&metrics=responseTime_avg,responseTime_p95&aggregationInterval=1440',
  'hourly by location, 4 metrics': 'quickRange=last30Days&metrics=responseTime_p50,responseTime_p99,availability,dns_avg&aggregationInterval=60&groupBy=runLocation&limit=100',
};

async function get(base, path) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: 'Bearer mac-dev-key' } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.text();
}

const pct = (sorted, p) => sorted[Math.ceil((p / 100) * sorted.length) - 1];

/** One result like the TCP runner's, at `t`. */
function result(i, checkId, t) {
  const rt = 20 + ((i * 7919) % 400) + (i % 97 === 0 ? 3000 : 0);
  return {
    id: `r-${checkId}-${i}`, name: 'db', checkId, resultType: 'FINAL', hasFailures: i % 53 === 0, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: i % 2 ? 'eu-west-1' : 'us-east-1', startedAt: new Date(t).toISOString(), stoppedAt: new Date(t + rt).toISOString(), created_at: new Date(t + rt).toISOString(),
    responseTime: rt,
    apiCheckResult: { assertions: [], request: { method: 'TCP', url: 'tcp://db.internal:5432', data: '', headers: {}, params: {} }, response: { status: 0, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: { wait: 0, dns: 2, tcp: rt - 2, firstByte: 0, download: 0, total: rt } }, requestError: null, jobLog: null, jobAssets: null, pcapDataUrl: null },
    browserCheckResult: null, multiStepCheckResult: null, checkRunId: i, attempts: 0, sequenceId: `s-${i}`,
  };
}

/** Fills a store with `one` results of a new check over 30 days and `others` of ten other checks; returns the check's id. */
async function fill(database, one, others, now) {
  const mac = createServer({ stateFile: database.replace(/^sqlite:/, ''), runs: false, retentionDays: 0 });
  const res = await mac.request('/v1/checks/tcp', {
    method: 'POST',
    headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'db', request: { hostname: 'db.internal', port: 5432 } }),
  });
  const check = await res.json();
  const store = mac.ctx.store;
  const total = one + others;
  for (let i = 0; i < total; i += 1000) {
    const tx = store.begin('dev');
    for (let k = i; k < Math.min(total, i + 1000); k++) {
      const mine = k < one;
      const t = now - 60_000 - Math.floor(((mine ? k : k - one) * 30 * DAY) / (mine ? one : others));
      const r = result(k, mine ? check.id : `other-${k % 10}`, t);
      tx.put('checkResults', r.id, r);
    }
    tx.commit();
  }
  await mac.close();
  return check.id;
}

/** p50/p95 of 20 requests of each query through mac serve, and of the same in JavaScript in process. */
async function measure(name, database, checkId, now) {
  const figures = {};
  const s = await startService({ database, extra: ['--retention-days', '0'] });
  try {
    for (const [label, q] of Object.entries(QUERIES)) {
      await get(s.url, `/v1/analytics/url-monitors/${checkId}?${q}`);
      const times = [];
      for (let i = 0; i < 20; i++) {
        const a = performance.now();
        await get(s.url, `/v1/analytics/url-monitors/${checkId}?${q}`);
        times.push(performance.now() - a);
      }
      times.sort((a, b) => a - b);
      figures[label] = { p50: pct(times, 50), p95: pct(times, 95) };
    }
  } finally {
    await s.stop();
  }
  // Side by side: the database's reduction and the JavaScript one over the summaries, in process.
  const mac = createServer({ stateFile: database.replace(/^sqlite:/, ''), runs: false, retentionDays: 0 });
  try {
    const params = new URLSearchParams(QUERIES['daily avg+p95']);
    const parsed = parseMetrics([params.get('metrics')]);
    const sq = { metrics: parsed.metrics, window: { fromMs: now - 30 * DAY, toMs: now }, aggregationIntervalMin: 1440, filterByStatus: [], limit: 100, page: 1 };
    const inDb = [];
    const inJs = [];
    let a1;
    let a2;
    for (let i = 0; i < 10; i++) {
      let t = performance.now();
      a1 = analyticsSeries((agg) => mac.ctx.store.aggregate('dev', 'checkResults', agg), checkId, sq);
      inDb.push(performance.now() - t);
      t = performance.now();
      const rows = mac.ctx.store.query('dev', 'checkResults', { checkId, fromMs: sq.window.fromMs, toMs: sq.window.toMs, fields: FIELDS, limit: 50_000 });
      a2 = buildSeries(rows.map((r) => ({ ...r, checkId })), sq, checkId);
      inJs.push(performance.now() - t);
    }
    if (JSON.stringify(a1) !== JSON.stringify(a2)) throw new Error(`${name}: the database and JavaScript reductions differ`);
    inDb.sort((a, b) => a - b);
    inJs.sort((a, b) => a - b);
    figures.inProcess = { databaseMs: pct(inDb, 50), javascriptMs: pct(inJs, 50), ratio: pct(inJs, 50) / pct(inDb, 50) };
  } finally {
    await mac.close();
  }
  return figures;
}

export async function main({ one = 40_000, others = 10_000, postgres = true, log = console.error } = {}) {
  const now = Date.now();
  const out = { bench: 'serve-analytics', results: one, otherResults: others, stores: {} };
  const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mac-bench-analytics-')), 'state.db')}`;
  const stores = [['sqlite', async () => sqlite, async () => {}]];
  let pg;
  if (postgres) stores.push(['postgres', async () => (pg = await startPostgres()).url('analytics'), async () => pg?.stop()]);
  for (const [name, open, close] of stores) {
    const database = await open();
    try {
      const t0 = performance.now();
      const checkId = await fill(database, one, others, now);
      log(`analytics: ${name}: ${one + others} results stored in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const f = await measure(name, database, checkId, now);
      out.stores[name] = f;
      for (const [label, v] of Object.entries(f)) {
        if (label === 'inProcess') log(`analytics: ${name}: in process, daily avg+p95: database ${v.databaseMs.toFixed(1)} ms, JavaScript over the fields read ${v.javascriptMs.toFixed(1)} ms (${v.ratio.toFixed(1)}x)`);
        else log(`analytics: ${name}: ${label}: p50 ${v.p50.toFixed(1)} ms, p95 ${v.p95.toFixed(1)} ms`);
      }
    } finally {
      await close();
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--results');
  const r = await main({ one: at > 0 ? Number(process.argv[at + 1]) : 40_000, postgres: !process.argv.includes('--sqlite-only') });
  console.log(JSON.stringify(r));
  process.exit(0);
}
