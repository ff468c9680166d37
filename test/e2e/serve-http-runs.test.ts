import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type Served, callApi, waitFor } from '../helpers/serve.js';
import { startHttpTarget, type HttpTarget } from '../helpers/http-target.js';

let target: HttpTarget;
let hooks: HttpTarget;
let served: Served | undefined;
let healthy = true;

beforeAll(async () => {
  target = await startHttpTarget({
    handler: (req, res) => {
      if (!healthy) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"status":"down"}');
      // A little time on the server, so that firstByte and download carry real values.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-version': '7' });
        res.write('{"status":"ok",');
        setTimeout(() => res.end(`"path":${JSON.stringify(req.url)}}`), 3);
      }, 5);
    },
  });
  hooks = await startHttpTarget({ handler: (_req, res) => res.end() });
});
afterAll(async () => {
  await target.close();
  await hooks.close();
});
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

const api = (method: string, path: string, body?: unknown) => callApi(served!, method, path, body);


const alerting = { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 0, interval: 5 } };
const webhooks = (type: string) => hooks.received.filter((r) => r.body !== '' && JSON.parse(r.body).alertType === type);

// Nearest rank, as the analytics decisions define it.
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1];

describe('mac serve runs URL monitors and API checks', () => {
  it('runs a URL monitor on schedule: results with timing phases, a failure alert, an error group, a recovery, analytics from the stored results', async () => {
    healthy = true;
    // frequency 1 minute at time scale 300 = a run every 0.2 s.
    served = await startServe(['--time-scale', '300']);
    const channel = await api('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: `${hooks.origin}/alerts` } });
    expect(channel.status).toBe(201);
    const check = await api('POST', '/v1/checks/url', {
      name: 'home page',
      frequency: 1,
      doubleCheck: false,
      alertSettings: alerting,
      alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }],
      request: { url: `${target.origin}/home`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    });
    expect(check.status).toBe(201);
    const id = check.body.id as string;

    const passing = await waitFor(async () => {
      const r = await api('GET', `/v1/check-results/${id}?limit=100`);
      return r.body.length >= 4 ? r.body : undefined;
    });
    const first = passing[0];
    expect(first).toMatchObject({
      resultType: 'FINAL',
      hasFailures: false,
      hasErrors: false,
      apiCheckResult: {
        request: { method: 'GET', url: `${target.origin}/home` },
        response: { status: 200, statusText: 'OK', body: '{"status":"ok","path":"/home"}', headers: { 'x-version': '7' } },
        assertions: [{ source: 'STATUS_CODE', actual: '200', passed: true }],
        requestError: null,
      },
    });
    const phases = first.apiCheckResult.response.timingPhases;
    expect(phases.wait + phases.dns + phases.tcp + phases.firstByte + phases.download).toBe(phases.total);
    expect(phases.firstByte).toBeGreaterThanOrEqual(4);
    expect(first.responseTime).toBe(phases.total);
    const t = first.apiCheckResult.response.timings;
    expect(t.lookup <= t.connect && t.connect <= t.response && t.response <= t.end).toBe(true);

    // The target goes down: a failing session, an alert to the webhook, an error group.
    healthy = false;
    const failure = await waitFor(async () => webhooks('ALERT_FAILURE')[0]);
    expect(JSON.parse(failure.body)).toMatchObject({ checkId: id, checkType: 'URL', errorMessage: 'STATUS_CODE EQUALS "200" failed, actual "500"' });
    const groups = await api('GET', `/v1/error-groups/checks/${id}`);
    expect(groups.body).toEqual([expect.objectContaining({ checkId: id, rawErrorMessage: 'STATUS_CODE EQUALS "200" failed, actual "500"' })]);
    const trigger = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: [id] } });
    expect(trigger.status).toBe(201);
    const session = await waitFor(async () => {
      const s = await api('GET', `/v1/check-sessions/${trigger.body.sessions[0].checkSessionId}`);
      return ['FAILED', 'PASSED', 'DEGRADED'].includes(s.body.status) ? s.body : undefined;
    });
    expect(session).toMatchObject({ status: 'FAILED', results: [expect.objectContaining({ hasFailures: true })] });

    // Back up: a recovery alert.
    healthy = true;
    const recovery = await waitFor(async () => webhooks('ALERT_RECOVERY')[0]);
    expect(JSON.parse(recovery.body)).toMatchObject({ checkId: id, alertType: 'ALERT_RECOVERY' });

    // Analytics over a closed window match the stored FINAL results of that window.
    await waitFor(async () => ((await api('GET', `/v1/check-results/${id}?limit=100`)).body.length >= 12 ? true : undefined));
    const to = Math.floor(Date.now() / 1000);
    const from = to - 600;
    await new Promise((r) => setTimeout(r, 300));
    // Every stored result of the window (at a run every 0.2 s a loaded machine can pass 100 of them).
    const stored: any[] = [];
    for (let page = 1; ; page++) {
      const got = (await api('GET', `/v1/check-results/${id}?limit=100&page=${page}&from=${from}&to=${to}`)).body as any[];
      stored.push(...got);
      if (got.length < 100) break;
    }
    const inWindow = stored.filter((r) => Date.parse(r.startedAt) < to * 1000);
    expect(inWindow.length).toBeGreaterThanOrEqual(6);
    const metrics = ['dns_p95', 'tcp_p50', 'wait_max', 'firstByte_p99', 'download_p90', 'responseTime_avg', 'availability'];
    const analytics = await api('GET', `/v1/analytics/url-monitors/${id}?from=${from}&to=${to}&metrics=${metrics.join(',')}`);
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({ checkId: id, checkType: 'URL' });
    const row = JSON.parse(analytics.body.series[0]).data[0];
    const of = (k: string) => inWindow.map((r) => r.apiCheckResult.response.timingPhases[k] as number);
    expect(row.dns_p95).toBe(pct(of('dns'), 95));
    expect(row.tcp_p50).toBe(pct(of('tcp'), 50));
    expect(row.wait_max).toBe(Math.max(...of('wait')));
    expect(row.firstByte_p99).toBe(pct(of('firstByte'), 99));
    expect(row.download_p90).toBe(pct(of('download'), 90));
    // The service rounds to 2 decimals (half up): within 0.005 of the exact value, both ends
    // included (55.375 is answered 55.38).
    const near = (answered: number, exact: number) => expect(Math.abs(answered - exact), `${answered} against ${exact}`).toBeLessThanOrEqual(0.005 + 1e-9);
    near(row.responseTime_avg, inWindow.reduce((s, r) => s + r.responseTime, 0) / inWindow.length);
    const passed = inWindow.filter((r) => !r.hasFailures).length;
    near(row.availability, (100 * passed) / inWindow.length);
    expect(row.availability).toBeLessThan(100);
  });

  it('runs an API check every 10 s (sub-minute) with its request, and answers its analytics', async () => {
    healthy = true;
    // frequency 0 every 10 s at time scale 50 = a run every 0.2 s.
    served = await startServe(['--time-scale', '50']);
    const check = await api('POST', '/v1/checks/api', {
      name: 'orders api',
      frequency: 0,
      frequencyOffset: 10,
      doubleCheck: false,
      request: {
        method: 'POST',
        url: `${target.origin}/orders`,
        queryParameters: [{ key: 'probe', value: '1' }],
        headers: [{ key: 'X-Token', value: 'tok-secret' }],
        body: '{"n":1}',
        bodyType: 'JSON',
        assertions: [
          { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' },
          { source: 'HEADERS', property: 'X-Version', comparison: 'EQUALS', target: '7' },
          { source: 'TEXT_BODY', comparison: 'CONTAINS', target: '/orders?probe=1' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '5000' },
        ],
      },
    });
    expect(check.status).toBe(201);
    const id = check.body.id as string;
    const results = await waitFor(async () => {
      const r = await api('GET', `/v1/check-results/${id}?limit=100`);
      return r.body.length >= 3 ? r.body : undefined;
    });
    expect(results.every((r: any) => r.hasFailures === false)).toBe(true);
    expect(results[0].apiCheckResult.request).toMatchObject({ method: 'POST', data: '{"n":1}', params: { probe: '1' }, headers: { 'X-Token': '<redacted>' } });
    expect(JSON.stringify(results)).not.toContain('tok-secret');
    expect(target.received.some((r) => r.url === '/orders?probe=1' && r.headers['x-token'] === 'tok-secret' && r.body === '{"n":1}')).toBe(true);
    const analytics = await api('GET', `/v1/analytics/api-checks/${id}?metrics=responseTime_p50,dns,tcp,firstByte,download,retries`);
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({ checkId: id, checkType: 'API', metadata: { dns: { unit: 'milliseconds', aggregation: 'avg' } } });
    const row = JSON.parse(analytics.body.series[0]).data[0];
    expect(row.responseTime_p50).toBeGreaterThan(0);
    expect(row.retries).toBe(0);
  });
});
