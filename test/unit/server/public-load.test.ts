import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusTextFormat } from './prometheus.js';
import { tcpBody, testServer, type TestClient } from './client.js';
import { RunRecorder } from '../../../src/server/rundata/recorder.js';
import { asyncResultsReducer, checkFigures } from '../../../src/server/rundata/figures.js';
import { Store } from '../../../src/server/store/store.js';
import { PERCENTILE_RELATIVE_ERROR } from '../../../src/server/store/rollup.js';
import { RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

// Public pages under load: shared for a few seconds, limited per client address, read through
// windowed reductions; the operator metrics in the Prometheus text format.

const HOUR = 3_600_000;
const open: TestClient[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.server.close();
});

function serve(options: Parameters<typeof testServer>[0] = {}): TestClient {
  const t = testServer(options);
  open.push(t);
  return t;
}

/** Stores a finished run of `checkId` at `atMs`. */
function record(t: TestClient, checkId: string, atMs: number, over: { hasFailures?: boolean; hasErrors?: boolean; isDegraded?: boolean; responseTime?: number } = {}): void {
  const recorder = new RunRecorder(t.server.ctx.store, () => atMs);
  const s = recorder.openSession('dev', { check: { id: checkId, name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1'] });
  recorder.finishLocation('dev', s.checkSessionId, {
    location: 'eu-west-1',
    runLocation: 'eu-west-1',
    startedAt: new Date(atMs).toISOString(),
    stoppedAt: new Date(atMs + 10).toISOString(),
    responseTime: over.responseTime ?? 100,
    hasFailures: over.hasFailures ?? false,
    hasErrors: over.hasErrors ?? false,
    isDegraded: over.isDegraded ?? false,
    overMaxResponseTime: false,
    apiCheckResult: null,
    multiStepCheckResult: null,
  });
  t.server.ctx.store.flush();
}

/** Percentiles read from the histogram: within 2.5 % of the exact value (0.5 ms under 1 ms), rounded to 2 decimals. */
function expectNear(figures: object | null, exact: Record<string, number>): void {
  expect(figures).not.toBeNull();
  for (const [name, v] of Object.entries(exact)) {
    const got = (figures as Record<string, number>)[name];
    expect(Math.abs(got - v), `${name}: ${got} for ${v}`).toBeLessThanOrEqual(Math.max(0.5, PERCENTILE_RELATIVE_ERROR * v) + 0.005);
  }
}

describe('check figures over a window', () => {
  it('buckets of a window with runs, failures (assertions or errors), degraded runs, availability and response times; empty buckets have no figures; in memory and on SQLite (read by the reader thread)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mac-figures-'));
    for (const store of [Store.memory(RUN_INDEX), Store.open(join(dir, 'state.db'), RUN_INDEX)]) {
      const now = Date.parse('2030-01-01T12:00:00Z');
      const put = (id: string, hoursAgo: number, rec: Record<string, unknown>) => {
        const tx = store.begin('a');
        tx.put('checkResults', id, { id, checkId: 'c', resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 100, startedAt: new Date(now - hoursAgo * HOUR).toISOString(), ...rec });
        tx.commit();
      };
      put('a', 2.5, { responseTime: 10 });
      put('b', 2.2, { hasFailures: true, responseTime: 30 });
      put('c', 0.5, { hasErrors: true, responseTime: 0 });
      put('d', 0.4, { isDegraded: true, responseTime: 50 });
      put('e', 0.3, { resultType: 'ATTEMPT', hasFailures: true });
      put('f', 5, {}); // before the window
      const f = await checkFigures(asyncResultsReducer(store, 'a'), 'c', { fromMs: now - 3 * HOUR, toMs: now, bucketMs: HOUR });
      expect(f.buckets.map((b) => [b.runs, b.failed, b.degraded, b.availability])).toEqual([
        [2, 1, 0, 50],
        [0, 0, 0, null],
        [2, 1, 1, 50],
      ]);
      // avg, min and max exact; percentiles from the histogram, within its bound of the exact nearest rank.
      expect(f.buckets[0].responseTime).toMatchObject({ avg: 20, min: 10, max: 30 });
      expectNear(f.buckets[0].responseTime, { p50: 10, p95: 30, p99: 30 });
      expect(f.buckets[1]).toMatchObject({ startMs: now - HOUR * 2, endMs: now - HOUR, responseTime: null });
      expect(f.total).toMatchObject({ runs: 4, failed: 2, degraded: 1, availability: 50, responseTime: { max: 50 } });
      expectNear(f.total.responseTime, { p50: 10, p95: 50 });
      // The whole window from cells of whole hours and the results of the edges' parts of an hour.
      const shifted = await checkFigures(asyncResultsReducer(store, 'a'), 'c', { fromMs: now - 2.6 * HOUR, toMs: now + 1, bucketMs: 2.6 * HOUR + 1 });
      expect(shifted.total).toMatchObject({ runs: 4, failed: 2, degraded: 1, responseTime: { avg: 22.5, min: 0, max: 50 } });
      expectNear(shifted.total.responseTime, { p50: 10, p95: 50 });
      // Without response times the total adds the buckets up.
      expect((await checkFigures(asyncResultsReducer(store, 'a'), 'c', { fromMs: now - 3 * HOUR, toMs: now, bucketMs: HOUR }, { responseTimes: false })).total).toMatchObject({ runs: 4, failed: 2, responseTime: null });
      await expect(checkFigures(asyncResultsReducer(store, 'a'), 'c', { fromMs: 0, toMs: now, bucketMs: HOUR })).rejects.toThrow(/buckets/);
      // The newest FINAL results, bounded, newest first (the same reads through the reader thread).
      expect((await store.queryAsync('a', 'checkResults', { checkId: 'c', where: [{ path: 'resultType', in: ['FINAL'] }], order: 'time-desc', limit: 2 })).map((r) => r.id)).toEqual(['d', 'c']);
      await expect(store.queryAsync('a', 'checkResults', { checkId: 'c' })).rejects.toThrow(/unbounded/);
      store.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('public pages under load', () => {
  async function dashboard(t: TestClient): Promise<string> {
    const check = await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'db' }));
    expect(check.status).toBe(201);
    const d = await t.call('POST', '/v1/dashboards', { customUrl: 'shop', header: 'Shop' });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    return check.body.id as string;
  }

  it('a rendered page is shared for the cache time, byte for byte with its headers; a change of the configuration on this instance shows at once', async () => {
    const t = serve({ pageCacheSeconds: 60 });
    const id = await dashboard(t);
    const first = await t.server.request('/dashboards/shop/data.json');
    expect(((await first.json()) as any).checks[0]).toMatchObject({ id, state: 'no-data' });
    record(t, id, Date.now() - 1000, { hasFailures: true });
    // A result stored since: the shared answer stays until the cache time ends.
    expect(((await (await t.server.request('/dashboards/shop/data.json')).json()) as any).checks[0].state).toBe('no-data');
    const a = await t.server.request('/dashboards/shop');
    const b = await t.server.request('/dashboards/shop');
    // No per-answer nonce: the styles are allowed by their hashes, so both answers are the same bytes.
    expect(a.headers.get('content-security-policy')).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(a.headers.get('content-security-policy')).toBe(b.headers.get('content-security-policy'));
    expect(a.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    // A public page may be kept by a browser, which asks again each time.
    expect(a.headers.get('cache-control')).toBe('no-cache');
    expect(await a.text()).toBe(await b.text());
    // A change of the dashboard (or of its checks) on this instance: rendered again.
    expect((await t.call('PUT', `/v1/dashboards/${(await t.call('GET', '/v1/dashboards')).body[0].dashboardId}`, { customUrl: 'shop', header: 'Shop 2' })).status).toBe(200);
    const after = (await (await t.server.request('/dashboards/shop/data.json')).json()) as any;
    expect(after.checks[0].state).toBe('failing');
    expect((await t.server.request('/dashboards/shop')).headers.get('etag')).not.toBe(a.headers.get('etag'));
  });

  it('answers 304 to a visitor whose If-None-Match names the page it holds, and the page again once it changed', async () => {
    const t = serve({ pageCacheSeconds: 60 });
    await dashboard(t);
    const page = await t.server.request('/dashboards/shop');
    const etag = page.headers.get('etag')!;
    const again = await t.server.request('/dashboards/shop', { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'));
    expect((await t.server.request('/dashboards/shop', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    // Changed on this instance: the held copy no longer matches.
    expect((await t.call('PUT', `/v1/dashboards/${(await t.call('GET', '/v1/dashboards')).body[0].dashboardId}`, { customUrl: 'shop', header: 'Shop 2' })).status).toBe(200);
    const changed = await t.server.request('/dashboards/shop', { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain('Shop 2');
    // Not found is never a 304.
    expect((await t.server.request('/dashboards/nope', { headers: { 'if-none-match': '*' } })).status).toBe(404);
  });

  it('sends a held page compressed (brotli, else gzip) to a visitor that accepts it, the same bytes once decoded', async () => {
    const t = serve({ pageCacheSeconds: 60 });
    await dashboard(t);
    const plain = await t.server.request('/dashboards/shop');
    const body = Buffer.from(await plain.arrayBuffer());
    expect(body.length).toBeGreaterThan(1024);
    expect(plain.headers.get('vary')).toContain('accept-encoding');
    // The page is compressed once, off the main thread, after it was rendered: wait for it.
    const raw = async (acceptEncoding: string) => {
      for (let i = 0; i < 200; i++) {
        const r = await t.server.request('/dashboards/shop', { headers: { 'accept-encoding': acceptEncoding } });
        if (r.headers.get('content-encoding')) return { coding: r.headers.get('content-encoding'), etag: r.headers.get('etag'), bytes: Buffer.from(await r.arrayBuffer()) };
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error(`never compressed for ${acceptEncoding}`);
    };
    const br = await raw('gzip, deflate, br');
    expect(br.coding).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(body)).toBe(true);
    expect(br.bytes.length).toBeLessThan(body.length / 3);
    const gz = await raw('gzip;q=1, br;q=0');
    expect(gz.coding).toBe('gzip');
    expect(gunzipSync(gz.bytes).equals(body)).toBe(true);
    // Each coding is a representation of its own, but the same page for If-None-Match.
    expect(new Set([plain.headers.get('etag'), br.etag, gz.etag]).size).toBe(3);
    expect((await t.server.request('/dashboards/shop', { headers: { 'accept-encoding': 'gzip', 'if-none-match': plain.headers.get('etag')! } })).status).toBe(304);
    // Refused or unknown codings: the bytes as they are.
    for (const ae of ['identity', 'br;q=0, gzip;q=0', 'compress', '*;q=0']) {
      const r = await t.server.request('/dashboards/shop', { headers: { 'accept-encoding': ae } });
      expect(r.headers.get('content-encoding'), ae).toBeNull();
      expect(Buffer.from(await r.arrayBuffer()).equals(body)).toBe(true);
    }
  });

  it('without the cache each request is rendered from the store', async () => {
    const t = serve({ pageCacheSeconds: 0 });
    const id = await dashboard(t);
    expect(((await (await t.server.request('/dashboards/shop/data.json')).json()) as any).checks[0].state).toBe('no-data');
    record(t, id, Date.now() - 1000, { isDegraded: true });
    expect(((await (await t.server.request('/dashboards/shop/data.json')).json()) as any).checks[0]).toMatchObject({ state: 'degraded', availability24h: 100 });
  });

  it('anonymous requests are limited per client address: 429 with Retry-After, pages of other paths included, the API not', async () => {
    const t = serve({ pageRateLimit: { limit: 3, windowSeconds: 60 } });
    await dashboard(t);
    const codes: number[] = [];
    for (const path of ['/dashboards/shop', '/dashboards/shop/data.json', '/status/none', '/dashboards/shop']) codes.push((await t.server.request(path)).status);
    expect(codes).toEqual([200, 200, 404, 429]);
    const refused = await t.server.request('/dashboards/shop/data.json');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await t.call('GET', '/v1/checks')).status).toBe(200);
  });
});

describe('operator metrics', () => {
  it('GET /metrics on --metrics-port: every metric in the Prometheus text format, parsed', async () => {
    const t = serve({ metricsPort: 0, runs: false });
    await t.server.listen();
    const id = (await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'db' }))).body.id as string;
    record(t, id, Date.now() - 1000);
    const m = t.server.ctx.metrics!;
    m.run({ checkType: 'TCP', location: 'eu-west-1', failed: true, degraded: false, responseTimeMs: 120 });
    m.run({ checkType: 'API', location: 'us-east-1', failed: false, degraded: false, responseTimeMs: 30 });
    m.runsShed(2);
    m.runsWaiting(1);
    expect(t.server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(t.server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const families = parsePrometheusTextFormat(await res.text());
    const byName = new Map(families.map((f) => [f.name, f]));
    for (const name of [
      'mac_check_runs_total',
      'mac_check_failures_total',
      'mac_check_run_duration_seconds',
      'mac_runs_shed_total',
      'mac_runs_waiting',
      'mac_notification_queue_depth',
      'mac_notification_deliveries_in_flight',
      'mac_store_call_duration_seconds',
      'mac_public_requests_refused_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_eventloop_lag_max_seconds',
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    const sample = (name: string, labels: Record<string, string>) => families.flatMap((f) => f.samples).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(sample('mac_check_runs_total', { check_type: 'TCP', location: 'eu-west-1', outcome: 'failed' })?.value).toBe(1);
    expect(sample('mac_check_failures_total', { check_type: 'TCP', location: 'eu-west-1' })?.value).toBe(1);
    expect(sample('mac_check_run_duration_seconds_count', { check_type: 'API', location: 'us-east-1' })?.value).toBe(1);
    expect(sample('mac_check_run_duration_seconds_bucket', { check_type: 'API', location: 'us-east-1', le: '0.05' })?.value).toBe(1);
    expect(sample('mac_runs_shed_total', {})?.value).toBe(2);
    expect(sample('mac_runs_waiting', {})?.value).toBe(1);
    expect(sample('mac_notification_queue_depth', {})?.value).toBe(0);
    // The store's calls are timed by operation: the commit of the check and the result above.
    expect(sample('mac_store_call_duration_seconds_count', { op: 'commitMany' })?.value ?? sample('mac_store_call_duration_seconds_count', { op: 'commit' })?.value).toBeGreaterThan(0);
    expect((await fetch(t.server.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    // Not on the service's port.
    expect((await t.server.request('/metrics')).status).not.toBe(200);
  });
});
