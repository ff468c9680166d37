import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, type AttemptResult, type RunnableCheckInput } from '../../../src/runner/index.js';
import { startHttpTarget, type HttpTarget } from '../../helpers/http-target.js';
import { startTcpServer } from '../../helpers/tcp-server.js';

let server: HttpTarget;
let secure: HttpTarget;
beforeAll(async () => {
  server = await startHttpTarget();
  secure = await startHttpTarget({ tls: true, handler: (_req, res) => res.end('secret page') });
});
afterAll(async () => {
  await server.close();
  await secure.close();
});

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const api = (request: Record<string, unknown>, extra: Record<string, unknown> = {}): RunnableCheckInput =>
  ({ checkType: 'API', name: 'api', doubleCheck: false, ...extra, request: { method: 'GET', url: `${server.origin}/`, ...request } }) as RunnableCheckInput;
const urlMonitor = (request: Record<string, unknown>, extra: Record<string, unknown> = {}): RunnableCheckInput =>
  ({ checkType: 'URL', name: 'url', doubleCheck: false, ...extra, request: { url: `${server.origin}/`, ...request } }) as RunnableCheckInput;

const one = async (check: RunnableCheckInput, opts: Parameters<typeof runCheck>[1] = {}): Promise<AttemptResult> => {
  const all = await runCheck(check, opts);
  return all[all.length - 1];
};
const a = (source: string, comparison: string, target = '', property = '', regex = '') => ({ source, comparison, target, property, regex });

describe('HTTP runs: assertions', () => {
  it('STATUS_CODE passes and fails on a URL monitor; without one, an error status fails', async () => {
    server.set(json({ ok: true }, 204));
    expect((await one(urlMonitor({ assertions: [a('STATUS_CODE', 'EQUALS', '204')] }))).hasFailures).toBe(false);
    const failed = await one(urlMonitor({ assertions: [a('STATUS_CODE', 'EQUALS', '200')] }));
    expect([failed.hasFailures, failed.errorMessage]).toEqual([true, 'STATUS_CODE EQUALS "200" failed, actual "204"']);
    server.set(json({ error: 'down' }, 503));
    const implied = await one(urlMonitor({}));
    expect([implied.hasFailures, implied.errorMessage]).toEqual([true, 'STATUS_CODE LESS_THAN "400" failed, actual "503"']);
    expect((await one(urlMonitor({ assertions: [a('STATUS_CODE', 'GREATER_THAN', '499')] }))).hasFailures).toBe(false);
  });

  it('JSON_BODY reads a JSON path in property, and fails on a body that is not JSON', async () => {
    server.set(json({ data: [{ id: 7, name: 'web' }], meta: { next: null } }));
    const passing = await one(
      api({
        assertions: [
          a('JSON_BODY', 'EQUALS', '7', '$.data[0].id'),
          a('JSON_BODY', 'HAS_KEY', 'next', '$.meta'),
          a('JSON_BODY', 'IS_NULL', '', '$.meta.next'),
          a('JSON_BODY', 'HAS_VALUE', 'web', '$.data[0]'),
          a('JSON_BODY', 'GREATER_THAN', '5', 'data[0].id'),
        ],
      }),
    );
    expect(passing.apiCheckResult!.assertions.map((x) => [x.passed, x.actual])).toEqual([
      [true, '7'],
      [true, '{"next":null}'],
      [true, null],
      [true, '{"id":7,"name":"web"}'],
      [true, '7'],
      [true, '200'],
    ]);
    const failing = await one(api({ assertions: [a('JSON_BODY', 'EQUALS', 'api', '$.data[0].name')] }));
    expect(failing.errorMessage).toBe('JSON_BODY EQUALS "api" failed, actual "web"');
    server.set((_req, res) => res.end('<html>not json</html>'));
    const notJson = await one(api({ assertions: [a('JSON_BODY', 'NOT_NULL', '', '$.data')] }));
    expect([notJson.hasFailures, notJson.apiCheckResult!.assertions[0].actual]).toEqual([true, null]);
  });

  it('HEADERS reads the header named in property, case-insensitively; without property it is the header set', async () => {
    server.set(json({}, 200, { 'X-Cache': 'HIT from edge-3' }));
    const r = await one(
      api({
        assertions: [
          a('HEADERS', 'EQUALS', 'HIT', 'x-CACHE', '^(\\w+)'),
          a('HEADERS', 'CONTAINS', 'json', 'Content-Type'),
          a('HEADERS', 'HAS_KEY', 'x-cache'),
          a('HEADERS', 'NOT_HAS_KEY', 'x-powered-by'),
        ],
      }),
    );
    expect(r.apiCheckResult!.assertions.map((x) => x.passed)).toEqual([true, true, true, true, true]);
    const failing = await one(api({ assertions: [a('HEADERS', 'EQUALS', 'MISS', 'x-cache', '^(\\w+)')] }));
    expect(failing.errorMessage).toBe('HEADERS EQUALS "MISS" failed, actual "HIT"');
    const absent = await one(api({ assertions: [a('HEADERS', 'NOT_EMPTY', '', 'etag')] }));
    expect([absent.hasFailures, absent.apiCheckResult!.assertions[0].actual]).toEqual([true, null]);
  });

  it('TEXT_BODY compares the body text, with a regex where given', async () => {
    server.set((_req, res) => res.end('version=4.2.1 build ok'));
    const r = await one(api({ assertions: [a('TEXT_BODY', 'CONTAINS', 'build ok'), a('TEXT_BODY', 'EQUALS', '4.2.1', '', 'version=(\\S+)')] }));
    expect(r.hasFailures).toBe(false);
    const failing = await one(api({ assertions: [a('TEXT_BODY', 'NOT_CONTAINS', 'ok')] }));
    expect(failing.errorMessage).toBe('TEXT_BODY NOT_CONTAINS "ok" failed, actual "version=4.2.1 build ok"');
  });

  it('RESPONSE_TIME compares numerically with the attempt total', async () => {
    server.set((_req, res) => setTimeout(() => res.end('slow'), 150));
    const fast = await one(api({ assertions: [a('RESPONSE_TIME', 'LESS_THAN', '50')] }));
    expect(fast.hasFailures).toBe(true);
    expect(Number(fast.apiCheckResult!.assertions[0].actual)).toBeGreaterThanOrEqual(150);
    expect((await one(api({ assertions: [a('RESPONSE_TIME', 'GREATER_THAN', '100')] }))).hasFailures).toBe(false);
  });
});

describe('HTTP runs: the request', () => {
  it('sends method, query parameters, headers, a JSON body and basic auth; the result masks credentials', async () => {
    server.set(json({ created: true }, 201));
    const r = await one(
      api({
        method: 'POST',
        url: `${server.origin}/orders?src=mon`,
        queryParameters: [{ key: 'page', value: '2' }],
        headers: [{ key: 'X-Trace', value: 'abc' }, { key: 'X-Api-Key', value: 'k-123' }],
        body: '{"sku":"A1"}',
        bodyType: 'JSON',
        basicAuth: { username: 'ops', password: 'hunter2' },
        assertions: [a('STATUS_CODE', 'EQUALS', '201')],
      }),
    );
    expect(r.hasFailures).toBe(false);
    const got = server.received.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/orders?src=mon&page=2', body: '{"sku":"A1"}' });
    expect(got.headers).toMatchObject({
      'x-trace': 'abc',
      'x-api-key': 'k-123',
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from('ops:hunter2').toString('base64')}`,
    });
    expect(r.apiCheckResult!.request).toEqual({
      method: 'POST',
      url: `${server.origin}/orders?src=mon&page=2`,
      data: '{"sku":"A1"}',
      headers: { 'X-Trace': 'abc', 'X-Api-Key': '<redacted>', 'Content-Type': 'application/json', Authorization: '<redacted>', 'User-Agent': 'mac-monitoring' },
      params: { page: '2' },
    });
    expect(JSON.stringify(r)).not.toContain('hunter2');
    const locked = await one(
      api({
        queryParameters: [{ key: 'sig', value: 'sig-value-1', locked: true }, { key: 'page', value: '1' }],
        headers: [{ key: 'X-Tenant', value: 'tenant-secret', locked: true }],
      }),
    );
    expect(server.received.at(-1)).toMatchObject({ url: '/?sig=sig-value-1&page=1', headers: { 'x-tenant': 'tenant-secret' } });
    expect(locked.apiCheckResult!.request).toMatchObject({
      url: `${server.origin}/?sig=%3Credacted%3E&page=1`,
      params: { sig: '<redacted>', page: '1' },
      headers: { 'X-Tenant': '<redacted>' },
    });
    expect(JSON.stringify(locked)).not.toMatch(/sig-value-1|tenant-secret/);
    expect(JSON.stringify(r)).not.toContain(Buffer.from('ops:hunter2').toString('base64'));
  });

  it('sends a form body with its content type and no body when bodyType is NONE', async () => {
    server.set((_req, res) => res.end());
    await one(api({ method: 'PUT', body: 'a=1&b=2', bodyType: 'FORM' }));
    expect(server.received.at(-1)).toMatchObject({ method: 'PUT', body: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await one(api({ method: 'PATCH', body: 'ignored', bodyType: 'NONE' }));
    expect(server.received.at(-1)).toMatchObject({ method: 'PATCH', body: '' });
  });
});

describe('HTTP runs: redirects, TLS, timeouts, limits', () => {
  it('follows redirects when asked (303 after POST continues as GET), reports the 3xx when not', async () => {
    server.set((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { location: '/new' }).end();
      if (req.url === '/submit') return void res.writeHead(303, { location: `${server.origin}/done` }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      res.end(`${req.method} ${req.url}`);
    });
    const followed = await one(api({ url: `${server.origin}/old`, assertions: [a('TEXT_BODY', 'EQUALS', 'GET /new')] }));
    expect([followed.hasFailures, followed.apiCheckResult!.request.url]).toEqual([false, `${server.origin}/new`]);
    const post = await one(api({ method: 'POST', url: `${server.origin}/submit`, body: 'x', bodyType: 'RAW' }));
    expect(post.apiCheckResult!.response.body).toBe('GET /done');
    const stay = await one(urlMonitor({ url: `${server.origin}/old`, followRedirects: false, assertions: [a('STATUS_CODE', 'EQUALS', '301')] }));
    expect([stay.hasFailures, stay.apiCheckResult!.response.headers.location]).toEqual([false, '/new']);
    const loop = await one(urlMonitor({ url: `${server.origin}/loop` }));
    expect([loop.hasFailures, loop.errorMessage]).toEqual([true, 'more than 10 redirects']);
  });

  it('refuses a self-signed certificate unless skipSSL, and measures the TLS handshake', async () => {
    const strict = await one(urlMonitor({ url: `${secure.origin}/` }));
    expect(strict.hasFailures).toBe(true);
    expect(strict.errorMessage).toMatch(/self[- ]signed/i);
    expect(strict.networkError).toBe(true);
    const skipped = await one(urlMonitor({ url: `${secure.origin}/`, skipSSL: true }));
    expect(skipped.hasFailures).toBe(false);
    expect(skipped.apiCheckResult!.response.body).toBe('secret page');
    const t = skipped.apiCheckResult!.response.timings!;
    expect(t.secureConnect).not.toBeNull();
    expect(t.connect).toBeLessThanOrEqual(t.secureConnect!);
    expect(t.secureConnect!).toBeLessThanOrEqual(t.response);
  });

  it('times out after the attempt limit with requestError "timeout" and the time in firstByte', async () => {
    server.set(() => undefined); // never answers
    const r = await one(api({}), { limits: { timeoutMs: 300 } });
    expect([r.hasFailures, r.errorMessage, r.networkError]).toEqual([true, 'timeout', true]);
    const p = r.apiCheckResult!.response.timingPhases;
    expect(p.firstByte).toBeGreaterThanOrEqual(250);
    expect(p.download).toBe(0);
    expect(r.responseTime).toBeGreaterThanOrEqual(300);
    expect(r.responseTime).toBeLessThan(2000);
  });

  it('times out a body that never ends, with the time in download', async () => {
    let tick: NodeJS.Timeout | undefined;
    server.set((_req, res) => {
      res.writeHead(200);
      tick = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(tick));
    });
    const r = await one(api({}), { limits: { timeoutMs: 300 } });
    clearInterval(tick);
    expect([r.hasFailures, r.errorMessage]).toEqual([true, 'timeout']);
    expect(r.apiCheckResult!.response.timingPhases.download).toBeGreaterThanOrEqual(200);
    expect(r.responseTime).toBeLessThan(2000);
  });

  it('times out a TLS handshake that never completes', async () => {
    const silent = net.createServer((s) => s.on('error', () => undefined)).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const r = await one(urlMonitor({ url: `https://127.0.0.1:${port}/` }), { limits: { timeoutMs: 300 } });
      expect([r.hasFailures, r.errorMessage]).toEqual([true, 'timeout']);
      expect(r.apiCheckResult!.response.timingPhases.tcp).toBeGreaterThanOrEqual(250);
    } finally {
      silent.close();
    }
  });

  it('marks degraded and failing by the check thresholds', async () => {
    server.set((_req, res) => setTimeout(() => res.end('ok'), 120));
    const degraded = await one(api({}, { degradedResponseTime: 50, maxResponseTime: 5000 }));
    expect([degraded.hasFailures, degraded.isDegraded, degraded.overMaxResponseTime]).toEqual([false, true, false]);
    const over = await one(api({}, { degradedResponseTime: 50, maxResponseTime: 100 }));
    expect([over.hasFailures, over.isDegraded, over.overMaxResponseTime]).toEqual([true, false, true]);
    expect(over.errorMessage).toMatch(/^Response time \d+ms exceeded 100ms$/);
    const quick = await one(api({}, { degradedResponseTime: 5000 }));
    expect(quick.isDegraded).toBe(false);
  });

  it('records timing phases in order that add up to the response time', async () => {
    server.set((_req, res) => {
      res.writeHead(200);
      res.write('a'.repeat(1000));
      setTimeout(() => res.end('b'.repeat(1000)), 120);
    });
    const r = await one(urlMonitor({ url: `http://localhost:${server.port}/` }));
    const p = r.apiCheckResult!.response.timingPhases;
    const t = r.apiCheckResult!.response.timings!;
    expect(p.wait + p.dns + p.tcp + p.firstByte + p.download).toBe(p.total);
    expect(r.responseTime).toBe(p.total);
    expect(p.download).toBeGreaterThanOrEqual(50);
    expect([t.socket, t.lookup, t.connect, t.response, t.end]).toEqual([t.socket, t.lookup, t.connect, t.response, t.end].sort((x, y) => x - y));
    expect(t.secureConnect).toBeNull();
    expect(r.apiCheckResult!.response.body).toHaveLength(2000);
  });

  it('reads at most maxBodyBytes and keeps at most maxBytes in the result', async () => {
    server.set((_req, res) => res.end('x'.repeat(3 * 1024 * 1024)));
    const r = await one(api({ assertions: [a('TEXT_BODY', 'NOT_EMPTY')] }), { limits: { maxBodyBytes: 10_000, maxBytes: 1000 } });
    expect(r.hasFailures).toBe(false);
    expect(r.apiCheckResult!.response.body).toHaveLength(1000);
    const len = await one(api({ assertions: [a('TEXT_BODY', 'EQUALS', '10000', '', '^(x{10000})$')] }), { limits: { maxBodyBytes: 10_000 } });
    // The regex matched exactly 10,000 x's: TEXT_BODY held them all; the result keeps 4096 characters of what it found.
    expect(len.apiCheckResult!.assertions[0].actual).toBe(`${'x'.repeat(4096)}…`);
  });

  it('turns what a hostile or absent server does into a requestError, never a throw', async () => {
    server.set((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const cut = await one(api({}));
    expect([cut.hasFailures, cut.hasErrors, cut.networkError]).toEqual([true, false, true]);
    expect(cut.errorMessage).toBeTruthy();
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const refused = await one(urlMonitor({ url: `http://127.0.0.1:${closed}/` }));
    expect(refused.errorMessage).toMatch(/ECONNREFUSED/);
    expect(refused.apiCheckResult!.response.timingPhases.firstByte).toBe(0);
    const bad = await one(api({ url: 'ftp://user:pw@example.com/file' }));
    expect([bad.hasFailures, bad.hasErrors, bad.errorMessage]).toEqual([true, false, 'unsupported URL scheme "ftp": only http and https are requested']);
    expect(JSON.stringify(bad)).not.toContain('pw@');
    const garbage = await startTcpServer({ banner: 'SSH-2.0-OpenSSH\r\n\r\n' });
    try {
      const notHttp = await one(urlMonitor({ url: `http://127.0.0.1:${garbage.port}/` }));
      expect([notHttp.hasFailures, notHttp.hasErrors, notHttp.apiCheckResult!.response.status]).toEqual([true, false, 0]);
      expect(notHttp.errorMessage).toBeTruthy();
    } finally {
      await garbage.close();
    }
    const unresolvable = await one(urlMonitor({ url: 'http://does-not-exist.invalid/' }));
    expect([unresolvable.hasFailures, unresolvable.networkError]).toEqual([true, true]);
  });

  it('connects over the address family of ipFamily', async () => {
    let v6: HttpTarget;
    try {
      v6 = await startHttpTarget({ host: '::1', handler: (_req, res) => res.end('six') });
    } catch {
      return; // no IPv6 loopback on this machine
    }
    try {
      const six = await one(urlMonitor({ url: `${v6.origin}/`, ipFamily: 'IPv6', assertions: [a('STATUS_CODE', 'EQUALS', '200')] }));
      expect([six.hasFailures, six.apiCheckResult!.response.body]).toEqual([false, 'six']);
      const four = await one(urlMonitor({ url: `${v6.origin}/`, ipFamily: 'IPv4' }));
      expect([four.hasFailures, four.errorMessage]).toEqual([true, 'address ::1 is not IPv4 (ipFamily)']);
      const v4 = await one(urlMonitor({ url: `${server.origin}/`, ipFamily: 'IPv6' }));
      expect([v4.hasFailures, v4.errorMessage]).toEqual([true, 'address 127.0.0.1 is not IPv6 (ipFamily)']);
    } finally {
      await v6.close();
    }
  });
});
