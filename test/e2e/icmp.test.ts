import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Plan } from '../../src/plan/types.js';
import { runMac } from '../helpers/cli.js';
import { OpenApiValidator, type Schema } from '../helpers/openapi-validate.js';
import { apiOk, callApi, startServe, waitFor, type Served } from '../helpers/serve.js';
import { createSilentHost, type SilentHost } from '../helpers/silent-host.js';
import { writeProject } from './apply-fixtures.js';

// ICMP monitors end to end, with real echo requests: 127.0.0.1 answers; `silent.address` is on a
// veth link the test builds to an empty network namespace, so it never answers (no dependence on
// how this machine's network treats outside addresses). The service runs them on schedule and
// the answers fit the reference's schemas; `mac test` runs them; plan, apply and import converge.

const doc = JSON.parse(readFileSync(new URL('../reference/openapi.json', import.meta.url), 'utf8')) as Schema;
const validator = new OpenApiValidator(doc);
const responseSchema = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema as Schema;
// api-decisions §5.3: protocol results carry timings null; §2.15 has no traceId.
const decided = (problems: string[]) => problems.filter((p) => !/response\.timings: null|traceId: required|isCancelled: required/.test(p));

let silent: SilentHost;
let served: Served | undefined;
const dirs: string[] = [];
beforeAll(() => {
  silent = createSilentHost();
});
afterAll(async () => {
  silent?.remove();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
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
    // Analytics: latencyAvg is the stored responseTime (the average latency of each run).
    await api('PUT', `/v1/checks/icmp/${ok.body.id}`, { activated: false });
    await new Promise((r) => setTimeout(r, 1500));
    const stored = (await api('GET', `/v1/check-results/${ok.body.id}?limit=100`)).body as Array<{ responseTime: number }>;
    const analytics = await api('GET', `/v1/analytics/icmp/${ok.body.id}?metrics=latencyAvg,latencyAvg_max,availability,retries`);
    expect(analytics.status).toBe(200);
    expect(analytics.body).toMatchObject({ checkType: 'ICMP', metadata: { latencyAvg: { unit: 'milliseconds', aggregation: 'avg' } } });
    const point = JSON.parse(analytics.body.series[0]).data[0];
    const times = stored.map((r) => r.responseTime);
    expect(point.availability).toBe(100);
    expect(point.retries).toBe(0);
    expect(point.latencyAvg_max).toBe(Math.round(Math.max(...times) * 100) / 100);
    expect(Math.abs(point.latencyAvg - times.reduce((x, y) => x + y, 0) / times.length)).toBeLessThanOrEqual(0.005);
    expect(decided(validator.validate(analytics.body, responseSchema('/v1/analytics/icmp/{id}', 'get', '200'))).filter((p) => !/series\[\d+\]: string/.test(p))).toEqual([]);
    const unrecorded = await api('GET', `/v1/analytics/icmp/${ok.body.id}?metrics=packetLoss_p95`);
    expect(unrecorded.status).toBe(400);
    expect(JSON.stringify(unrecorded.body)).toContain('does not record yet');
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

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-icmp-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('mac test runs ICMP monitors', () => {
  it('loopback passes with figures; the silent address fails with 100% loss; a latency assertion fails where it should', async () => {
    const dir = await project({
      'mac.config.yaml': 'project: net\n',
      'checks.yaml': `kind: IcmpMonitor
id: loopback
name: Loopback
request:
  hostname: 127.0.0.1
  pingCount: 3
  assertions:
    - { source: LATENCY, property: avg, comparison: LESS_THAN, target: "1000" }
    - { source: JSON_RESPONSE, property: $.packetLoss, comparison: EQUALS, target: "0" }
---
kind: IcmpMonitor
id: silent
name: Silent host
doubleCheck: false
request:
  hostname: ${silent.address}
  pingCount: 2
---
kind: IcmpMonitor
id: too-fast
name: Impossible latency
doubleCheck: false
request:
  hostname: 127.0.0.1
  pingCount: 2
  assertions:
    - { source: LATENCY, property: min, comparison: LESS_THAN, target: "0" }
`,
    });
    const r = await runMac(['test', dir, '--format', 'json']);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { summary: Record<string, number>; checks: Array<Record<string, any>> };
    expect(report.summary).toEqual({ pass: 1, fail: 2, degraded: 0, skipped: 0 });
    const [loop, quiet, fast] = report.checks;
    expect(loop).toMatchObject({ kind: 'IcmpMonitor', checkType: 'ICMP', status: 'pass', message: null });
    const figures = JSON.parse(loop.result.apiCheckResult.response.body);
    expect(figures).toMatchObject({ packetsSent: 3, packetsReceived: 3, packetLoss: 0 });
    expect(figures.latency.avg).toBeGreaterThan(0);
    expect(quiet).toMatchObject({ status: 'fail', message: 'Packet loss 100% reached 20%' });
    expect(fast.status).toBe('fail');
    expect(fast.failedAssertions[0]).toMatch(/^LATENCY min LESS_THAN "0" \(actual "[\d.]+"\)$/);

    const text = await runMac(['test', dir]);
    expect(text.stdout).toMatch(/IcmpMonitor\/loopback +ICMP +pass +[\d.]+ ms/);
    expect(text.stdout).toContain('Packet loss 100% reached 20%');
  });

  it('validate names a LATENCY assertion without avg/min/max/stdDev and a pingCount out of range', async () => {
    const dir = await project({
      'mac.config.yaml': 'project: net\n',
      'checks.yaml': `kind: IcmpMonitor
id: bad
name: Bad
request:
  hostname: 127.0.0.1
  pingCount: 51
  assertions:
    - { source: LATENCY, property: p99, comparison: LESS_THAN, target: "10" }
`,
    });
    const r = await runMac(['validate', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('pingCount');
    const fixed = await project({
      'mac.config.yaml': 'project: net\n',
      'checks.yaml': `kind: IcmpMonitor\nid: bad\nname: Bad\nrequest:\n  hostname: 127.0.0.1\n  assertions:\n    - { source: LATENCY, property: p99, comparison: LESS_THAN, target: "10" }\n`,
    });
    const v = await runMac(['validate', fixed]);
    expect(v.code).not.toBe(0);
    expect(v.stdout + v.stderr).toMatch(/checks\.yaml[\s\S]*request\.assertions\.0\.property|request\.assertions\[0\]\.property/);
    expect(v.stdout + v.stderr).toContain('avg, min, max, stdDev');
  });
});

describe('IcmpMonitor through the engine', () => {
  const icmpYaml = (target = '100') => `kind: IcmpMonitor
id: gateway
name: Gateway
frequency: 1
degradedPacketLossThreshold: 5
request:
  hostname: 10.0.0.1
  pingCount: 20
  assertions:
    - { source: LATENCY, property: avg, comparison: LESS_THAN, target: "${target}" }
    - { source: JSON_RESPONSE, property: $.packetsReceived, comparison: GREATER_THAN, target: "0", regex: null }
`;

  it('applies, plans no change, one edited assertion is one operation, and import writes what converges', async () => {
    served = await startServe(['--no-runs', '--rate-limit', '0/60']);
    const env = { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey };
    const dir = writeProject({ 'mac.config.yaml': 'project: net\n', 'checks.yaml': icmpYaml() });
    dirs.push(dir);
    const apply = await runMac(['apply', dir, '--yes'], { env });
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const [live] = await apiOk(served, 'GET', '/v1/checks?checkType=ICMP');
    expect(live).toMatchObject({
      name: 'Gateway', frequency: 1, degradedPacketLossThreshold: 5, maxPacketLossThreshold: 20, degradedResponseTime: 10000, maxResponseTime: 20000,
      tags: ['mac:net/gateway'],
      request: { hostname: '10.0.0.1', ipFamily: 'IPv4', pingCount: 20 },
    });
    expect(live.request.assertions[1]).toEqual({ source: 'JSON_RESPONSE', comparison: 'GREATER_THAN', property: '$.packetsReceived', target: '0', regex: '' });

    const plan = async () => {
      const r = await runMac(['plan', dir, '--format', 'json', '--detailed-exitcode'], { env });
      return { code: r.code, plan: JSON.parse(r.stdout) as Plan, stderr: r.stderr };
    };
    let p = await plan();
    expect(p.code, p.stderr).toBe(0);
    expect(p.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, noop: 1 });

    writeProject({ 'checks.yaml': icmpYaml('50') }, dir);
    p = await plan();
    expect(p.code).toBe(2);
    expect(p.plan.changes.find((c) => c.action === 'update')!.patch).toEqual([{ op: 'replace', path: '/request/assertions/0/target', value: '50', oldValue: '100' }]);
    expect((await runMac(['apply', dir, '--yes'], { env })).code).toBe(0);
    expect((await plan()).code).toBe(0);

    // Import from the service: the monitor as a definition (defaults left out), planning only the adoption.
    await apiOk(served, 'POST', '/v1/checks/icmp?autoAssignAlerts=false', { name: 'Edge v6', request: { hostname: '::1', ipFamily: 'IPv6', pingCount: 5 }, maxResponseTime: 500 });
    const imp = await mkdtemp(join(tmpdir(), 'mac-icmp-import-'));
    dirs.push(imp);
    const r = await runMac(['import', '--kind', 'icmp', '--out', join(imp, 'p')], { env, cwd: imp });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const docs = parseAllDocuments(await readFile(join(imp, 'p/checks/icmp.yaml'), 'utf8')).map((d) => d.toJS());
    expect(docs.find((d) => d.name === 'Edge v6')).toMatchObject({ kind: 'IcmpMonitor', id: 'edge-v6', name: 'Edge v6', maxResponseTime: 500, request: { hostname: '::1', ipFamily: 'IPv6', pingCount: 5 } });
    const again = await runMac(['plan', join(imp, 'p'), '--format', 'json', '--detailed-exitcode'], { env });
    const importedPlan = JSON.parse(again.stdout) as Plan;
    for (const c of importedPlan.changes.filter((x) => x.action !== 'noop')) {
      expect(c.action).toBe('update');
      expect(c.patch!.every((d) => d.path.startsWith('/tags')), JSON.stringify(c.patch)).toBe(true);
    }
    expect((await runMac(['apply', join(imp, 'p'), '--yes'], { env })).code).toBe(0);
    expect((await runMac(['plan', join(imp, 'p'), '--detailed-exitcode'], { env })).code).toBe(0);
  });
});
