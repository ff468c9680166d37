import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { startTcpServer, closedPort, type TcpServer } from '../helpers/tcp-server.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';

let tcp: TcpServer;
let dns: DnsServer;
const dirs: string[] = [];

beforeAll(async () => {
  tcp = await startTcpServer({ reply: (req) => (req.includes('PING') ? '+PONG\r\n' : null) });
  dns = await startDnsServer({ records: [{ name: 'www.shop.test', type: 'A', data: '192.0.2.20' }] });
});
afterAll(async () => {
  await tcp.close();
  await dns.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** Writes a project: mac.config.yaml plus `checks.yaml` holding `checks`. */
async function project(checks: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-test-'));
  dirs.push(dir);
  await writeFile(join(dir, 'mac.config.yaml'), 'project: shop\ndefaults:\n  check: { frequency: 10, tags: [team-shop] }\n');
  await writeFile(join(dir, 'checks.yaml'), checks);
  return dir;
}

const passingChecks = () => `kind: TcpCheck
id: redis
name: Redis answers PING
request:
  hostname: 127.0.0.1
  port: ${tcp.port}
  data: "PING\\r\\n"
  assertions:
    - { source: RESPONSE_DATA, comparison: CONTAINS, target: PONG }
---
kind: DnsCheck
id: www
name: www resolves
request:
  query: www.shop.test
  recordType: A
  nameServer: 127.0.0.1
  port: ${dns.port}
  assertions:
    - { source: JSON_ANSWER, property: "$[0].data", comparison: EQUALS, target: 192.0.2.20 }
---
kind: HeartbeatCheck
id: nightly
name: Nightly job
heartbeat: { period: 1, periodUnit: days, grace: 1, graceUnit: hours }
`;

describe('mac test', () => {
  it('exits 0 when every TCP and DNS check passes, listing the others as skipped', async () => {
    const dir = await project(passingChecks());
    const r = await runMacIn(['test', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TcpCheck\/redis\s+TCP\s+pass\s+\d+ ms/m);
    expect(r.stdout).toMatch(/^DnsCheck\/www\s+DNS\s+pass\s+\d+ ms/m);
    expect(r.stdout).toMatch(/^HeartbeatCheck\/nightly\s+HEARTBEAT\s+skipped\s+-\s+heartbeat checks wait for pings/m);
    expect(r.stdout).toContain('2 passed, 0 failed, 0 degraded, 1 skipped');
  });

  it('exits 1 when a check fails, naming the failed assertion', async () => {
    const port = await closedPort();
    const dir = await project(`${passingChecks()}---
kind: DnsCheck
id: api
name: api resolves
doubleCheck: false
request:
  query: api.shop.test
  recordType: A
  nameServer: 127.0.0.1
  port: ${dns.port}
---
kind: TcpCheck
id: db
name: Database reachable
doubleCheck: false
request: { hostname: 127.0.0.1, port: ${port} }
`);
    const r = await runMacIn(['test', dir, '--concurrency', '2']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^DnsCheck\/api\s+DNS\s+fail\s+\d+ ms\s+RESPONSE_CODE EQUALS "NOERROR" failed, actual "NXDOMAIN"$/m);
    expect(r.stdout).toMatch(new RegExp(`^TcpCheck/db\\s+TCP\\s+fail\\s+\\d+ ms\\s+connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`, 'm'));
    expect(r.stdout).toContain('Failed assertions:\n  DnsCheck/api (checks.yaml:');
    expect(r.stdout).toContain('2 passed, 2 failed, 0 degraded, 1 skipped');
  });

  it('prints one JSON document with --format json', async () => {
    const dir = await project(passingChecks());
    const r = await runMacIn(['test', dir, '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { version: number; summary: Record<string, number>; checks: Array<{ id: string; status: string; result: any }> };
    expect(report.version).toBe(1);
    expect(report.summary).toEqual({ pass: 2, fail: 0, degraded: 0, skipped: 1 });
    const redis = report.checks.find((c) => c.id === 'redis')!;
    expect(redis.result.apiCheckResult).toMatchObject({ request: { method: 'TCP', data: 'PING\r\n' }, response: { body: '+PONG\r\n' } });
  });

  it('exits 1 on invalid definitions, prints the diagnostics and runs nothing', async () => {
    const dir = await project(`kind: TcpCheck
id: broken
name: Broken
request: { hostname: 127.0.0.1, port: ${tcp.port}, ipFamily: IPv5 }
`);
    const before = tcp.received.length;
    const r = await runMacIn(['test', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/checks\.yaml:4:\d+.*request\.ipFamily/);
    expect(r.stderr).toContain('no check was run');
    expect(r.stdout).toBe('');
    expect(tcp.received.length).toBe(before);
  });

  it('rejects a bad --format or --concurrency as a usage error', async () => {
    const dir = await project(passingChecks());
    expect((await runMacIn(['test', dir, '--format', 'yaml'])).stderr).toContain('--format must be one of text, json, got "yaml"');
    const r = await runMacIn(['test', dir, '--concurrency', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--concurrency must be a whole number from 1 to 256, got "0"');
  });
});
