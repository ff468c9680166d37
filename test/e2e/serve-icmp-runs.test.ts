import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiValidator, type Schema } from '../helpers/openapi-validate.js';
import { callApi, startServe, waitFor, type Served } from '../helpers/serve.js';
import { createSilentHost, type SilentHost } from '../helpers/silent-host.js';

// mac serve runs ICMP monitors with real echo requests: 127.0.0.1 answers; `silent.address` is on
// a veth link the test builds to an empty network namespace, so it never answers (no dependence
// on how this machine's network treats outside addresses). Results, sessions, error groups and
// analytics, and the reference's schemas. Run on memory only: the ICMP runs do not depend on the store.

const doc = JSON.parse(readFileSync(new URL('../reference/openapi.json', import.meta.url), 'utf8')) as Schema;
const validator = new OpenApiValidator(doc);
const responseSchema = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema as Schema;
// api-decisions §5.3: protocol results carry timings null; §2.15 has no traceId.
const decided = (problems: string[]) => problems.filter((p) => !/response\.timings: null|traceId: required|isCancelled: required/.test(p));

let silent: SilentHost;
let served: Served | undefined;
beforeAll(() => {
  silent = createSilentHost();
});
afterAll(() => silent?.remove());
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

const api = (method: string, path: string, body?: unknown) => callApi(served!, method, path, body);

describe('mac serve runs ICMP monitors', () => {
  it('pings 127.0.0.1 on schedule: 0% loss and latency figures, reference-shaped results; an address that does not answer fails with 100% loss and an error group', async () => {
    // frequency 1 minute at time scale 300 = a run every 0.2 s.
    served = await startServe(['--time-scale', '300']);
    const ok = await api('POST', '/v1/checks/icmp', {
      name: 'loopback',
      frequency: 1,
      doubleCheck: false,
      request: { hostname: '127.0.0.1', pingCount: 3, assertions: [{ source: 'LATENCY', property: 'max', comparison: 'LESS_THAN', target: '1000' }] },
    });
    expect(ok.status).toBe(201);
    const lost = await api('POST', '/v1/checks/icmp', { name: 'silent', frequency: 1, doubleCheck: false, request: { hostname: silent.address, pingCount: 2 } });
    expect(lost.status).toBe(201);

    const passing = await waitFor(async () => {
      const r = await api('GET', `/v1/check-results/${ok.body.id}?limit=10`);
      return r.body.length >= 2 ? r.body : undefined;
    });
    const first = passing[0];
    expect(first).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false });
    expect(first.apiCheckResult).toMatchObject({
      request: { method: 'ICMP', url: 'icmp://127.0.0.1' },
      response: { status: 0, statusText: 'OK' },
      assertions: [{ source: 'LATENCY', property: 'max', passed: true }],
      requestError: null,
    });
    const body = JSON.parse(first.apiCheckResult.response.body);
    expect(body).toMatchObject({ hostname: '127.0.0.1', resolvedIp: '127.0.0.1', packetsSent: 3, packetsReceived: 3, packetLoss: 0 });
    expect(body.latency.min).toBeGreaterThan(0);
    expect(body.latency.max).toBeGreaterThanOrEqual(body.latency.avg);
    expect(first.responseTime).toBe(body.latency.avg);
    const one = await api('GET', `/v1/check-results/${ok.body.id}/${first.id}`);
    expect(decided(validator.validate(one.body, responseSchema('/v1/check-results/{checkId}/{checkResultId}', 'get', '200')))).toEqual([]);
    const list = await api('GET', `/v1/check-results/${ok.body.id}`);
    expect(decided(validator.validate(list.body, responseSchema('/v1/check-results/{checkId}', 'get', '200')))).toEqual([]);
    const check = await api('GET', `/v1/checks/${ok.body.id}`);
    expect(validator.validate(check.body, { $ref: '#/components/schemas/ChecksV1IcmpMonitor' })).toEqual([]);
    // The loopback monitor stops here: its analytics below are of the results it has by then, and
    // a run of it under way ends while the silent monitor's first failure is awaited.
    await api('PUT', `/v1/checks/icmp/${ok.body.id}`, { activated: false });
    const okStopped = Date.now();

    const failing = await waitFor(async () => {
      const r = await api('GET', `/v1/check-results/${lost.body.id}?limit=10`);
      return r.body.find((x: { resultType: string }) => x.resultType === 'FINAL');
    });
    expect(failing).toMatchObject({ hasFailures: true, hasErrors: false, apiCheckResult: { requestError: null, response: { statusText: 'NO_REPLY' } } });
    expect(JSON.parse(failing.apiCheckResult.response.body)).toMatchObject({ resolvedIp: silent.address, packetsSent: 2, packetsReceived: 0, packetLoss: 100 });
    const groups = await waitFor(async () => {
      const r = await api('GET', `/v1/error-groups/checks/${lost.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    });
    expect(groups[0]).toMatchObject({ rawErrorMessage: 'Packet loss 100% reached 20%' });
    // Analytics: latencyAvg is each run's average latency (its stored responseTime when it had replies).
    await api('PUT', `/v1/checks/icmp/${lost.body.id}`, { activated: false });
    // 1.5 s after the loopback monitor stopped, as many as it will ever have are stored. (What
    // the silent one adds meanwhile changes none of its figures: every run of it loses all.)
    await new Promise((r) => setTimeout(r, Math.max(0, okStopped + 1500 - Date.now())));
    const stored = (await api('GET', `/v1/check-results/${ok.body.id}?limit=100`)).body as Array<{ responseTime: number }>;
    const analytics = await api('GET', `/v1/analytics/icmp/${ok.body.id}?metrics=latencyAvg,latencyAvg_max,availability,retries`);
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({ checkType: 'ICMP', metadata: { latencyAvg: { unit: 'milliseconds', aggregation: 'avg' } } });
    const point = JSON.parse(analytics.body.series[0]).data[0];
    const times = stored.map((r) => r.responseTime);
    expect(point.availability).toBe(100);
    expect(point.retries).toBe(0);
    expect(point.latencyAvg_max).toBe(Math.round(Math.max(...times) * 100) / 100);
    // Rounded to 2 decimals: off by half a hundredth at most (and a binary fraction's rounding error).
    expect(Math.abs(point.latencyAvg - times.reduce((x, y) => x + y, 0) / times.length)).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(decided(validator.validate(analytics.body, responseSchema('/v1/analytics/icmp/{id}', 'get', '200'))).filter((p) => !/series\[\d+\]: string/.test(p))).toEqual([]);
    // Packet loss and the latency figures of each run, from its document: every metric of the reference answers.
    const docs = ((await api('GET', `/v1/check-results/${ok.body.id}?limit=100`)).body as Array<{ resultType: string; apiCheckResult: { response: { body: string } } }>)
      .filter((r) => r.resultType === 'FINAL')
      .map((r) => JSON.parse(r.apiCheckResult.response.body) as { packetLoss: number; latency: { min: number; max: number; stdDev: number } });
    const all = ['packetLoss', 'latencyMin', 'latencyMax', 'latencyAvg', 'latencyStdDev', 'availability', 'retries'];
    const suffixed = ['packetLoss_max', 'latencyMin_min', 'latencyMax_max', 'latencyStdDev_p95', 'latencyMin_stddev'];
    const figures = await api('GET', `/v1/analytics/icmp/${ok.body.id}?metrics=${[...all, ...suffixed].join(',')}`);
    expect(figures.status).toBe(200);
    expect(Object.keys(figures.body.metadata).sort()).toEqual([...all, ...suffixed].sort());
    expect(figures.body.metadata.packetLoss).toEqual({ unit: 'percentage', label: 'Packet loss (avg)', aggregation: 'avg' });
    expect(figures.body.metadata.latencyStdDev_p95).toMatchObject({ unit: 'milliseconds', aggregation: 'p95' });
    const fp = JSON.parse(figures.body.series[0]).data[0];
    const r2 = (x: number) => Math.round(x * 100) / 100;
    expect(fp.packetLoss).toBe(0);
    expect(fp.packetLoss_max).toBe(0);
    expect(fp.latencyMin_min).toBe(r2(Math.min(...docs.map((d) => d.latency.min))));
    expect(fp.latencyMax_max).toBe(r2(Math.max(...docs.map((d) => d.latency.max))));
    expect(Math.abs(fp.latencyMin - docs.reduce((x, d) => x + d.latency.min, 0) / docs.length)).toBeLessThanOrEqual(0.005);
    expect(Math.abs(fp.latencyStdDev - docs.reduce((x, d) => x + d.latency.stdDev, 0) / docs.length)).toBeLessThanOrEqual(0.005);
    expect(fp.latencyMin).toBeLessThanOrEqual(fp.latencyAvg);
    expect(fp.latencyAvg).toBeLessThanOrEqual(fp.latencyMax);
    expect(decided(validator.validate(figures.body, responseSchema('/v1/analytics/icmp/{id}', 'get', '200'))).filter((p) => !/series\[\d+\]: string/.test(p))).toEqual([]);
    // The monitor that gets no reply: 100% loss, no latency.
    const lostFigures = await api('GET', `/v1/analytics/icmp/${lost.body.id}?metrics=packetLoss,packetLoss_min,latencyMax,latencyAvg,availability`);
    expect(lostFigures.status).toBe(200);
    expect(JSON.parse(lostFigures.body.series[0]).data[0]).toMatchObject({ packetLoss: 100, packetLoss_min: 100, latencyMax: null, latencyAvg: null, availability: 0 });
    const unknown = await api('GET', `/v1/analytics/icmp/${ok.body.id}?metrics=packetLoss_p42`);
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('unknown metric');
    await api('PUT', `/v1/checks/icmp/${ok.body.id}`, { activated: true });

    // A triggered session: its results fit the reference's session schema once it has finished.
    const trigger = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: [ok.body.id] } });
    expect(trigger.status).toBe(201);
    const sessionId = trigger.body.sessions[0].checkSessionId as string;
    const session = await waitFor(async () => {
      const r = await api('GET', `/v1/check-sessions/${sessionId}`);
      return r.body.status === 'PASSED' ? r.body : undefined;
    });
    expect(session).toMatchObject({ checkType: 'ICMP', results: [{ checkType: 'ICMP', hasFailures: false, isDegraded: false }] });
    expect(decided(validator.validate(session, responseSchema('/v1/check-sessions/{checkSessionId}', 'get', '200')))).toEqual([]);
  });
});
