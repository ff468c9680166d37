import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, parsePingOutput, PING_MISSING, type IcmpDocument, type RunnableCheckInput } from '../../../src/runner/index.js';
import { packetLossOf, pingArgs } from '../../../src/runner/icmp.js';
import { createSilentHost, type SilentHost } from '../../helpers/silent-host.js';

// Real echo requests through Debian's ping: to loopback (answers) and to an address on a link
// the test builds itself, whose far end has no address (never answers).
let silent: SilentHost;
beforeAll(() => {
  silent = createSilentHost();
});
afterAll(() => silent?.remove());

const icmp = (request: Record<string, unknown>, extra: Record<string, unknown> = {}): RunnableCheckInput =>
  ({ checkType: 'ICMP', name: 'ping', doubleCheck: false, ...extra, request: { pingCount: 3, ...request } }) as RunnableCheckInput;

const doc = (r: { apiCheckResult: { response: { body: string } } | null }) => JSON.parse(r.apiCheckResult!.response.body) as IcmpDocument;

// Each case waits on ping (seconds against the silent address), not on the CPU: they run at once.
describe.concurrent('ICMP runs', () => {
  it('passes against 127.0.0.1 with 0% loss and latency figures', async () => {
    const [r] = await runCheck(icmp({ hostname: '127.0.0.1', pingCount: 4 }));
    expect(r).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, errorMessage: null });
    const d = doc(r);
    expect(d).toMatchObject({ hostname: '127.0.0.1', resolvedIp: '127.0.0.1', ipFamily: 'IPv4', pingCount: 4, packetsSent: 4, packetsReceived: 4, packetLoss: 0, packetSize: 56 });
    expect(d.pingResults.map((p) => p.sequence)).toEqual([1, 2, 3, 4]);
    const { min, avg, max, stdDev } = d.latency;
    expect(min).toBeGreaterThan(0);
    expect(min!).toBeLessThanOrEqual(avg!);
    expect(avg!).toBeLessThanOrEqual(max!);
    expect(stdDev).toBeGreaterThanOrEqual(0);
    expect(r.responseTime).toBe(avg);
    expect(r.apiCheckResult).toMatchObject({
      request: { method: 'ICMP', url: 'icmp://127.0.0.1', data: '', headers: {}, params: {} },
      response: { status: 0, statusText: 'OK', headers: {}, timings: null },
      requestError: null,
    });
  });

  it('resolves a host name first and pings the address it found', async () => {
    const [r] = await runCheck(icmp({ hostname: 'localhost', pingCount: 1 }));
    expect(r.hasFailures).toBe(false);
    expect(doc(r)).toMatchObject({ hostname: 'localhost', resolvedIp: '127.0.0.1', packetsReceived: 1 });
  });

  it('fails with 100% loss against an address that does not answer', async () => {
    const [r] = await runCheck(icmp({ hostname: silent.address, pingCount: 3 }));
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false, networkError: true, errorMessage: 'Packet loss 100% reached 20%' });
    expect(doc(r)).toMatchObject({ resolvedIp: silent.address, packetsSent: 3, packetsReceived: 0, packetLoss: 100, latency: { min: null, avg: null, max: null, stdDev: null } });
    expect(r.apiCheckResult!.response.statusText).toBe('NO_REPLY');
    expect(r.apiCheckResult!.requestError).toBeNull();
  });

  it('judges latency assertions: min/avg/max/stdDev, case-insensitive, numeric', async () => {
    const passing = [
      { source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1000' },
      { source: 'LATENCY', property: 'stdDev', comparison: 'LESS_THAN', target: '1000' },
      { source: 'LATENCY', property: 'max', comparison: 'GREATER_THAN', target: '0' },
      { source: 'JSON_RESPONSE', property: '$.packetsReceived', comparison: 'EQUALS', target: '2' },
      { source: 'JSON_RESPONSE', property: '$.pingResults[0].ttl', comparison: 'NOT_NULL', target: '' },
    ];
    const [ok] = await runCheck(icmp({ hostname: '127.0.0.1', pingCount: 2, assertions: passing }));
    expect(ok.hasFailures).toBe(false);
    expect(ok.apiCheckResult!.assertions.every((a) => a.passed)).toBe(true);
    expect(Number(ok.apiCheckResult!.assertions[0].actual)).toBe(doc(ok).latency.avg);

    const [bad] = await runCheck(icmp({ hostname: '127.0.0.1', pingCount: 2, assertions: [{ source: 'LATENCY', property: 'min', comparison: 'GREATER_THAN', target: '5000' }] }));
    expect(bad.hasFailures).toBe(true);
    expect(bad.errorMessage).toMatch(/^LATENCY GREATER_THAN "5000" failed, actual "[\d.]+"$/);
  });

  it('a latency assertion fails when nothing came back (no figures to compare)', async () => {
    const [r] = await runCheck(
      icmp({ hostname: silent.address, pingCount: 1, assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1000' }] }, { maxPacketLossThreshold: null }),
    );
    expect(r.hasFailures).toBe(true);
    expect(r.apiCheckResult!.assertions[0]).toMatchObject({ actual: null, passed: false });
  });

  it('degrades and fails by packet loss and average latency thresholds', async () => {
    const [degraded] = await runCheck(icmp({ hostname: '127.0.0.1', pingCount: 1 }, { degradedResponseTime: 0 }));
    expect(degraded).toMatchObject({ hasFailures: false, isDegraded: true });
    const [lossOk] = await runCheck(icmp({ hostname: silent.address, pingCount: 1 }, { maxPacketLossThreshold: null, degradedPacketLossThreshold: 50 }));
    expect(lossOk).toMatchObject({ hasFailures: false, isDegraded: true });
    const [inverted] = await runCheck(icmp({ hostname: silent.address, pingCount: 1 }, { shouldFail: true }));
    expect(inverted.hasFailures).toBe(false);
  });

  it('a name that does not resolve is a request error', async () => {
    const [r] = await runCheck(icmp({ hostname: 'no-such-host.invalid', pingCount: 1 }));
    expect(r.hasFailures).toBe(true);
    expect(r.apiCheckResult!.requestError).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(doc(r)).toMatchObject({ resolvedIp: null, packetsSent: 0, packetLoss: 100 });
  });

  it('an IPv6 monitor of an IPv4 literal says so, without running ping', async () => {
    const [r] = await runCheck(icmp({ hostname: '127.0.0.1', ipFamily: 'IPv6', pingCount: 1 }));
    expect(r.apiCheckResult!.requestError).toBe('127.0.0.1 is not an IPv6 address');
  });

  it('without ping the run errors naming the package to install', async () => {
    const [r] = await runCheck(icmp({ hostname: '127.0.0.1', pingCount: 1 }), { icmp: { command: '/nonexistent/ping' } });
    expect(r.hasErrors).toBe(true);
    expect(r.errorMessage).toContain(PING_MISSING);
    expect(r.errorMessage).toContain('apt-get install -y iputils-ping');
  });

  it('kills ping at the attempt time limit', async () => {
    const t0 = Date.now();
    const [r] = await runCheck(icmp({ hostname: silent.address, pingCount: 50 }), { limits: { timeoutMs: 1500 } });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.hasFailures).toBe(true);
  });
});

describe('ping output', () => {
  it('reads counts, errors and duplicates, and the statistics', () => {
    const text = [
      'PING 10.0.0.9 (10.0.0.9) 56(84) bytes of data.',
      '64 bytes from 10.0.0.9: icmp_seq=1 ttl=63 time=1.50 ms',
      'From 10.0.0.1 icmp_seq=2 Destination Host Unreachable',
      '',
      '--- 10.0.0.9 ping statistics ---',
      '3 packets transmitted, 1 received, +2 errors, 66.6667% packet loss, time 2003ms',
      'rtt min/avg/max/mdev = 1.500/1.500/1.500/0.000 ms',
    ].join('\n');
    expect(parsePingOutput(text)).toEqual({
      packetsSent: 3,
      packetsReceived: 1,
      packetSize: 56,
      latency: { min: 1.5, avg: 1.5, max: 1.5, stdDev: 0 },
      replies: [{ sequence: 1, ttl: 63, time: 1.5 }],
    });
    expect(packetLossOf(3, 1)).toBe(66.67);
    expect(parsePingOutput('ping: connect: Network is unreachable\n')).toBeUndefined();
    expect(parsePingOutput('--- x ---\n2 packets transmitted, 0 received, 100% packet loss, time 1001ms\n')?.latency.avg).toBeNull();
  });

  it('passes the address after -- so it is never read as an option', () => {
    expect(pingArgs('127.0.0.1', 4, 10)).toEqual(['-n', '-c', '10', '-i', '0.2', '-W', '2', '-4', '--', '127.0.0.1']);
  });
});
