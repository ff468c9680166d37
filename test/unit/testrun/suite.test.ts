import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pc from 'picocolors';
import type { Definition } from '../../../src/config/types.js';
import { runSuite, testExitCode } from '../../../src/testrun/suite.js';
import { renderTestJson, renderTestText } from '../../../src/testrun/render.js';
import { startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';
import { startDnsServer, type DnsServer } from '../../helpers/dns-server.js';

let tcp: TcpServer;
let dns: DnsServer;
beforeAll(async () => {
  tcp = await startTcpServer({ banner: '+OK ready\r\n' });
  dns = await startDnsServer({ records: [{ name: 'api.test', type: 'A', data: '192.0.2.7' }] });
});
afterAll(async () => {
  await tcp.close();
  await dns.close();
});

const def = (kind: Definition['kind'], id: string, spec: Record<string, unknown>, state: Definition['state'] = 'present'): Definition => ({
  kind,
  id,
  state,
  spec: { name: id, doubleCheck: false, ...spec },
  refs: {},
  secretPaths: [],
  envSources: {},
  file: 'checks.yaml',
  line: 1,
  col: 1,
});

const RELAXED = { degradedResponseTime: 45_000, maxResponseTime: 45_000 };

describe('mac test suite', () => {
  it('runs TCP and DNS checks, skips heartbeats, and ignores tombstones', async () => {
    const defs = [
      // The passing checks' thresholds are the highest allowed: a loaded machine does not make them degraded.
      def('TcpCheck', 'cache', { ...RELAXED, request: { hostname: '127.0.0.1', port: tcp.port, assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: '+OK' }] } }),
      def('DnsCheck', 'api-dns', { ...RELAXED, request: { query: 'api.test', recordType: 'A', nameServer: '127.0.0.1', port: dns.port } }),
      def('DnsCheck', 'slow', { degradedResponseTime: 0, request: { query: 'api.test', recordType: 'A', nameServer: '127.0.0.1', port: dns.port } }),
      def('HeartbeatCheck', 'nightly', {}),
      def('TcpCheck', 'gone', { request: { hostname: '127.0.0.1', port: 1 } }, 'absent'),
      def('Snippet', 'helper', { script: 'x' }),
    ];
    const report = await runSuite(defs, { concurrency: 2, run: { limits: { idleMs: 100 } } });
    expect(report.checks.map((e) => [e.id, e.checkType, e.status])).toEqual([
      ['cache', 'TCP', 'pass'],
      ['api-dns', 'DNS', 'pass'],
      ['slow', 'DNS', 'degraded'],
      ['nightly', 'HEARTBEAT', 'skipped'],
    ]);
    expect(report.summary).toEqual({ pass: 2, fail: 0, degraded: 1, skipped: 1 });
    expect(testExitCode(report)).toBe(0);
    const text = renderTestText(report, pc.createColors(false));
    expect(text).toMatch(/^CHECK\s+TYPE\s+RESULT\s+TIME\s+DETAILS$/m);
    expect(text).toMatch(/^TcpCheck\/cache\s+TCP\s+pass\s+\d+ ms$/m);
    expect(text).toMatch(/2 passed, 0 failed, 1 degraded, 1 skipped$/);
  });

  it('fails the run on any failing check and lists its failed assertions', async () => {
    const defs = [
      def('TcpCheck', 'cache', {
        request: {
          hostname: '127.0.0.1',
          port: tcp.port,
          assertions: [
            { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' },
            { source: 'RESPONSE_DATA', comparison: 'IS_EMPTY', target: '' },
          ],
        },
      }),
      def('DnsCheck', 'missing', { request: { query: 'nope.test', recordType: 'A', nameServer: '127.0.0.1', port: dns.port } }),
    ];
    const report = await runSuite(defs, { concurrency: 4, run: { limits: { idleMs: 100 } } });
    expect(report.summary).toMatchObject({ fail: 2, pass: 0 });
    expect(testExitCode(report)).toBe(1);
    const [cache, missing] = report.checks;
    expect(cache.message).toBe('RESPONSE_DATA CONTAINS "PONG" failed, actual "+OK ready\r\n"');
    expect(cache.failedAssertions).toEqual(['RESPONSE_DATA CONTAINS "PONG" (actual "+OK ready\\r\\n")', 'RESPONSE_DATA IS_EMPTY "" (actual "+OK ready\\r\\n")']);
    expect(missing.message).toBe('RESPONSE_CODE EQUALS "NOERROR" failed, actual "NXDOMAIN"');
    const text = renderTestText(report, pc.createColors(false));
    expect(text).toContain('Failed assertions:\n  TcpCheck/cache (checks.yaml:1)\n    RESPONSE_DATA CONTAINS "PONG"');
    const json = JSON.parse(renderTestJson(report)) as { version: number; checks: Array<{ result: { apiCheckResult: unknown } }> };
    expect(json.version).toBe(1);
    expect(json.checks[0].result.apiCheckResult).toMatchObject({ request: { method: 'TCP' } });
  });
});
