import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, type RunnableCheckInput } from '../../../src/runner/index.js';
import { startDnsServer, type DnsServer } from '../../helpers/dns-server.js';
import { closedPort } from '../../helpers/tcp-server.js';

let dns: DnsServer;
const records = [
  { name: 'www.test', type: 'A', data: '192.0.2.10' },
  { name: 'www.test', type: 'A', data: '192.0.2.11' },
  { name: 'www.test', type: 'AAAA', data: '2001:db8::10' },
  { name: 'alias.test', type: 'CNAME', data: 'www.test.' },
  { name: 'test', type: 'MX', data: '10 mail.test.' },
  { name: 'test', type: 'TXT', data: 'v=spf1 -all' },
  { name: 'test', type: 'NS', data: 'ns1.test.' },
  { name: 'test', type: 'SOA', data: 'ns1.test. admin.test. 2024010101 7200 3600 1209600 300' },
  { name: 'test', type: 'HTTPS', data: '1 . alpn=h2,h3' },
];
beforeAll(async () => {
  dns = await startDnsServer({ records });
});
afterAll(() => dns.close());

const check = (request: Record<string, unknown>, extra: Record<string, unknown> = {}): RunnableCheckInput =>
  ({
    checkType: 'DNS',
    name: 'dns',
    doubleCheck: false,
    ...extra,
    request: { nameServer: '127.0.0.1', port: dns.port, ...request },
  }) as RunnableCheckInput;

describe('DNS runs', () => {
  it('resolves A records and asserts on the JSON and text answers', async () => {
    dns.set({ records });
    const [r] = await runCheck(
      check({
        query: 'www.test',
        recordType: 'A',
        assertions: [
          { source: 'JSON_ANSWER', comparison: 'EQUALS', target: '192.0.2.10', property: '$[0].data' },
          { source: 'TEXT_ANSWER', comparison: 'CONTAINS', target: 'www.test. 300 IN A 192.0.2.11' },
          { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '5000' },
        ],
      }),
    );
    expect(r).toMatchObject({ hasFailures: false, isDegraded: false, errorMessage: null });
    expect(r.apiCheckResult).toMatchObject({
      request: { method: 'DNS', url: `dns://127.0.0.1:${dns.port}/www.test?type=A`, data: '' },
      response: { status: 0, statusText: 'NOERROR', timings: null },
      requestError: null,
    });
    expect(JSON.parse(r.apiCheckResult!.response.body)).toEqual([
      { name: 'www.test.', type: 'A', ttl: 300, data: '192.0.2.10' },
      { name: 'www.test.', type: 'A', ttl: 300, data: '192.0.2.11' },
    ]);
    expect(r.apiCheckResult!.assertions.every((a) => a.passed)).toBe(true);
    expect(r.responseTime).toBe(r.apiCheckResult!.response.timingPhases.total);
  });

  it.each([
    ['AAAA', 'www.test', '2001:db8::10'],
    ['CNAME', 'alias.test', 'www.test.'],
    ['MX', 'test', '10 mail.test.'],
    ['TXT', 'test', 'v=spf1 -all'],
    ['NS', 'test', 'ns1.test.'],
    ['SOA', 'test', 'ns1.test. admin.test. 2024010101 7200 3600 1209600 300'],
    ['HTTPS', 'test', '1 . alpn=h2,h3'],
  ])('queries %s records', async (recordType, query, data) => {
    dns.set({ records });
    const [r] = await runCheck(check({ query, recordType, assertions: [{ source: 'JSON_ANSWER', comparison: 'EQUALS', target: data, property: '$[0].data' }] }));
    expect(r.apiCheckResult!.assertions[0]).toMatchObject({ actual: data, passed: true });
    expect(r.hasFailures).toBe(false);
  });

  it('fails a non-NOERROR response code unless the check asserts on the code', async () => {
    dns.set({ records });
    const [nx] = await runCheck(check({ query: 'missing.test', recordType: 'A' }));
    expect(nx).toMatchObject({ hasFailures: true, errorMessage: 'RESPONSE_CODE EQUALS "NOERROR" failed, actual "NXDOMAIN"' });
    expect(nx.apiCheckResult!.response).toMatchObject({ status: 3, statusText: 'NXDOMAIN' });
    const [expected] = await runCheck(check({ query: 'missing.test', recordType: 'A', assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }] }));
    expect(expected.hasFailures).toBe(false);
    dns.set({ records, rcodes: { 'www.test': 'SERVFAIL' } });
    const [servfail] = await runCheck(check({ query: 'www.test', recordType: 'A' }));
    expect(servfail.apiCheckResult!.response).toMatchObject({ status: 2, statusText: 'SERVFAIL' });
  });

  it('queries over TCP when asked', async () => {
    dns.set({ records });
    const before = dns.queries.length;
    const [r] = await runCheck(check({ query: 'www.test', recordType: 'A', protocol: 'TCP' }));
    expect(r.hasFailures).toBe(false);
    expect(dns.queries.slice(before).map((q) => q.protocol)).toEqual(['TCP']);
  });

  it('falls back to TCP when the UDP answer is truncated', async () => {
    dns.set({ records, truncateUdp: true });
    const before = dns.queries.length;
    const [r] = await runCheck(check({ query: 'www.test', recordType: 'A', assertions: [{ source: 'JSON_ANSWER', comparison: 'NOT_EMPTY' }] }));
    expect(r.hasFailures).toBe(false);
    expect(dns.queries.slice(before).map((q) => q.protocol)).toEqual(['UDP', 'TCP']);
  });

  it('is degraded and then failing as the answer slows down', async () => {
    dns.set({ records, delayMs: 150 });
    const [degraded] = await runCheck(check({ query: 'www.test', recordType: 'A' }, { degradedResponseTime: 100, maxResponseTime: 5000 }));
    expect(degraded).toMatchObject({ hasFailures: false, isDegraded: true });
    expect(degraded.responseTime).toBeGreaterThanOrEqual(100);
    const [failing] = await runCheck(check({ query: 'www.test', recordType: 'A' }, { degradedResponseTime: 50, maxResponseTime: 100 }));
    expect(failing).toMatchObject({ hasFailures: true, isDegraded: false, overMaxResponseTime: true });
    expect(failing.errorMessage).toMatch(/^Response time \d+ms exceeded 100ms$/);
  });

  it('times out when no answer comes', async () => {
    dns.set({ records, silentUdp: true });
    const [r] = await runCheck(check({ query: 'www.test', recordType: 'A' }), { limits: { timeoutMs: 200 } });
    expect(r).toMatchObject({ hasFailures: true, networkError: true, errorMessage: 'timeout' });
    expect(r.apiCheckResult!.response.statusText).toBe('ETIMEDOUT');
  });

  it('reports a refused TCP connection to the name server as a network error', async () => {
    const port = await closedPort();
    const [r] = await runCheck(check({ query: 'www.test', recordType: 'A', protocol: 'TCP', port }));
    expect(r).toMatchObject({ hasFailures: true, networkError: true, errorMessage: `connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('uses the system name server when the check names none', async () => {
    dns.set({ records });
    const [r] = await runCheck(
      { checkType: 'DNS', name: 'sys', doubleCheck: false, request: { query: 'www.test', recordType: 'A' } },
      { systemNameServer: async () => ({ server: '127.0.0.1', port: dns.port }) },
    );
    expect(r.hasFailures).toBe(false);
    expect(r.apiCheckResult!.request.url).toBe(`dns://127.0.0.1:${dns.port}/www.test?type=A`);
  });

  it('passes a failing lookup when the check should fail', async () => {
    dns.set({ records });
    const [r] = await runCheck(check({ query: 'missing.test', recordType: 'A' }, { shouldFail: true }));
    expect(r).toMatchObject({ hasFailures: false, errorMessage: null });
  });
});
