import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Plan } from '../../src/plan/types.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, type Served } from '../helpers/serve.js';
import { createSilentHost, type SilentHost } from '../helpers/silent-host.js';
import { writeProject } from '../e2e/apply-fixtures.js';

// ICMP monitors end to end, with real echo requests: 127.0.0.1 answers; `silent.address` is on a
// veth link the test builds to an empty network namespace, so it never answers (no dependence on
// how this machine's network treats outside addresses). `mac test` runs them; validate names
// their defects; plan, apply and import converge. The CLI and the service run in this process
// (the pings are real child processes); the service's runs: test/e2e/serve-icmp-runs.test.ts.

let silent: SilentHost;
const dirs: string[] = [];
beforeAll(() => {
  silent = createSilentHost();
});
afterAll(async () => {
  silent?.remove();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-icmp-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe.concurrent('mac test runs ICMP monitors', () => {
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
    const r = await runMacIn(['test', dir, '--format', 'json']);
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

    const text = await runMacIn(['test', dir]);
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
    const r = await runMacIn(['validate', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('pingCount');
    const fixed = await project({
      'mac.config.yaml': 'project: net\n',
      'checks.yaml': `kind: IcmpMonitor\nid: bad\nname: Bad\nrequest:\n  hostname: 127.0.0.1\n  assertions:\n    - { source: LATENCY, property: p99, comparison: LESS_THAN, target: "10" }\n`,
    });
    const v = await runMacIn(['validate', fixed]);
    expect(v.code).not.toBe(0);
    expect(v.stdout + v.stderr).toMatch(/checks\.yaml[\s\S]*request\.assertions\.0\.property|request\.assertions\[0\]\.property/);
    expect(v.stdout + v.stderr).toContain('avg, min, max, stdDev');
  });
});

describe('IcmpMonitor through the engine', () => {
  let served: Served;
  beforeAll(async () => {
    served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
  });
  afterAll(() => served?.stop());

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
    const env = { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey };
    const dir = writeProject({ 'mac.config.yaml': 'project: net\n', 'checks.yaml': icmpYaml() });
    dirs.push(dir);
    const apply = await runMacIn(['apply', dir, '--yes'], { env });
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const [live] = await apiOk(served, 'GET', '/v1/checks?checkType=ICMP');
    expect(live).toMatchObject({
      name: 'Gateway', frequency: 1, degradedPacketLossThreshold: 5, maxPacketLossThreshold: 20, degradedResponseTime: 10000, maxResponseTime: 20000,
      tags: ['mac:net/gateway'],
      request: { hostname: '10.0.0.1', ipFamily: 'IPv4', pingCount: 20 },
    });
    expect(live.request.assertions[1]).toEqual({ source: 'JSON_RESPONSE', comparison: 'GREATER_THAN', property: '$.packetsReceived', target: '0', regex: '' });

    const plan = async () => {
      const r = await runMacIn(['plan', dir, '--format', 'json', '--detailed-exitcode'], { env });
      return { code: r.code, plan: JSON.parse(r.stdout) as Plan, stderr: r.stderr };
    };
    let p = await plan();
    expect(p.code, p.stderr).toBe(0);
    expect(p.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0, noop: 1 });

    writeProject({ 'checks.yaml': icmpYaml('50') }, dir);
    p = await plan();
    expect(p.code).toBe(2);
    expect(p.plan.changes.find((c) => c.action === 'update')!.patch).toEqual([{ op: 'replace', path: '/request/assertions/0/target', value: '50', oldValue: '100' }]);
    expect((await runMacIn(['apply', dir, '--yes'], { env })).code).toBe(0);
    expect((await plan()).code).toBe(0);

    // Import from the service: the monitor as a definition (defaults left out), planning only the adoption.
    await apiOk(served, 'POST', '/v1/checks/icmp?autoAssignAlerts=false', { name: 'Edge v6', request: { hostname: '::1', ipFamily: 'IPv6', pingCount: 5 }, maxResponseTime: 500 });
    const imp = await mkdtemp(join(tmpdir(), 'mac-icmp-import-'));
    dirs.push(imp);
    const r = await runMacIn(['import', '--kind', 'icmp', '--out', join(imp, 'p')], { env, cwd: imp });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const docs = parseAllDocuments(await readFile(join(imp, 'p/checks/icmp.yaml'), 'utf8')).map((d) => d.toJS());
    expect(docs.find((d) => d.name === 'Edge v6')).toMatchObject({ kind: 'IcmpMonitor', id: 'edge-v6', name: 'Edge v6', maxResponseTime: 500, request: { hostname: '::1', ipFamily: 'IPv6', pingCount: 5 } });
    const again = await runMacIn(['plan', join(imp, 'p'), '--format', 'json', '--detailed-exitcode'], { env });
    const importedPlan = JSON.parse(again.stdout) as Plan;
    for (const c of importedPlan.changes.filter((x) => x.action !== 'noop')) {
      expect(c.action).toBe('update');
      expect(c.patch!.every((d) => d.path.startsWith('/tags')), JSON.stringify(c.patch)).toBe(true);
    }
    expect((await runMacIn(['apply', join(imp, 'p'), '--yes'], { env })).code).toBe(0);
    expect((await runMacIn(['plan', join(imp, 'p'), '--detailed-exitcode'], { env })).code).toBe(0);
  }, 240_000);
});
