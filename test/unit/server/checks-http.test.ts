import { describe, expect, it } from 'vitest';
import { apiBody, tcpBody, testServer, urlBody } from './client.js';

// URL monitors and API checks as stored resources: shapes, defaults and ranges of the reference
// OpenAPI document (POST/PUT /v1/checks/url, /v1/checks/api), the spec's shared check rules.

const SHARED_DEFAULTS = {
  activated: true, muted: false, doubleCheck: true, shouldFail: false, locations: [], privateLocations: [], tags: [],
  useGlobalAlertSettings: true, groupId: null, groupOrder: null, runtimeId: null, alertChannelSubscriptions: [],
  retryStrategy: null, triggerIncident: null, runParallel: false, frequency: 10, updated_at: null,
  alertChannels: { email: [], webhook: [], slack: [], sms: [] },
};

describe('URL monitors', () => {
  it('create applies the shared defaults, thresholds 3000/5000 and the request defaults', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/checks/url?autoAssignAlerts=false', urlBody({ request: { url: 'https://example.com/', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }));
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      ...SHARED_DEFAULTS,
      name: 'home', checkType: 'URL', degradedResponseTime: 3000, maxResponseTime: 5000,
      request: {
        method: 'GET', url: 'https://example.com/', followRedirects: true, skipSSL: false, ipFamily: 'IPv4',
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: '' }],
      },
    });
    expect(Object.keys(a.body.request).sort()).toEqual(['assertions', 'followRedirects', 'ipFamily', 'method', 'skipSSL', 'url']);
    for (const absent of ['frequencyOffset', 'setupSnippetId', 'environmentVariables', 'script']) expect(a.body).not.toHaveProperty(absent);
    expect((await t.call('GET', `/v1/checks/${a.body.id}`)).body).toEqual(a.body);
  });

  it('rejects what the reference and the spec forbid, with the field path', async () => {
    const t = testServer();
    const req = (extra: Record<string, unknown>) => urlBody({ request: { url: 'https://example.com/', ...extra } });
    const cases: Array<[unknown, string]> = [
      [{ request: { url: 'https://example.com/' } }, 'name'],
      [{ name: 'x' }, 'request'],
      [urlBody({ request: {} }), 'request.url'],
      [req({ url: '' }), 'request.url'],
      [req({ url: 'ftp://example.com/' }), 'request.url'],
      [req({ url: `https://example.com/${'a'.repeat(2030)}` }), 'request.url'],
      [req({ method: 'POST' }), 'request.method'],
      [req({ assertions: [{ source: 'JSON_BODY', comparison: 'EQUALS', target: '1' }] }), 'request.assertions.0.source'],
      [req({ assertions: [{ source: 'STATUS_CODE', comparison: 'CONTAINS', target: '1' }] }), 'request.assertions.0.comparison'],
      [req({ assertions: [{ comparison: 'EQUALS', target: '1' }] }), 'request.assertions.0.source'],
      [req({ ipFamily: 'IPv5' }), 'request.ipFamily'],
      [req({ skipSSL: 'yes' }), 'request.skipSSL'],
      [urlBody({ degradedResponseTime: 45001 }), 'degradedResponseTime'],
      [urlBody({ maxResponseTime: -1 }), 'maxResponseTime'],
      [urlBody({ frequency: 3 }), 'frequency'],
      [urlBody({ frequency: 0 }), 'frequency'],
      [urlBody({ frequency: 0, frequencyOffset: 15 }), 'frequencyOffset'],
      [urlBody({ frequency: 2, frequencyOffset: 21 }), 'frequencyOffset'],
      [urlBody({ groupId: 42 }), 'groupId'],
      [urlBody({ checkType: 'API' }), 'checkType'],
    ];
    for (const [body, path] of cases) {
      const a = await t.call('POST', '/v1/checks/url', body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.body.attributes.keys, JSON.stringify(body)).toContain(path);
    }
    expect(t.server.ctx.store.count('dev', 'checks')).toBe(0);
  });

  it('ranges: 0 and 45000 ms thresholds, null thresholds, sub-minute frequency with an offset', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/checks/url', urlBody({ degradedResponseTime: 0, maxResponseTime: 45000, frequency: 0, frequencyOffset: 30 }));
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ degradedResponseTime: 0, maxResponseTime: 45000, frequency: 0, frequencyOffset: 30 });
    const n = await t.call('POST', '/v1/checks/url', urlBody({ degradedResponseTime: null, maxResponseTime: null }));
    expect(n.body).toMatchObject({ degradedResponseTime: null, maxResponseTime: null });
  });

  it('PUT merges top-level fields; a request sent replaces the stored one with its defaults', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/url', urlBody({ tags: ['web'], request: { url: 'https://example.com/', followRedirects: false, skipSSL: true } }))).body;
    const u = await t.call('PUT', `/v1/checks/url/${c.id}`, { muted: true });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ name: 'home', tags: ['web'], muted: true, request: { followRedirects: false, skipSSL: true } });
    const r = await t.call('PUT', `/v1/checks/url/${c.id}`, { request: { url: 'https://example.com/health' } });
    expect(r.body.request).toEqual({ method: 'GET', url: 'https://example.com/health', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', assertions: [] });
    expect((await t.call('PUT', `/v1/checks/url/${c.id}`, { request: { followRedirects: true } })).body.attributes.keys).toEqual(['request.url']);
    // The rules hold on the merged check: an offset valid for 10 minutes is not for 1.
    await t.call('PUT', `/v1/checks/url/${c.id}`, { frequencyOffset: 50 });
    expect((await t.call('PUT', `/v1/checks/url/${c.id}`, { frequency: 1 })).body.attributes.keys).toEqual(['frequencyOffset']);
  });
});

describe('API checks', () => {
  it('create applies thresholds 5000/20000, the snippet and script fields, and the request defaults', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/checks/api?autoAssignAlerts=false', apiBody());
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      ...SHARED_DEFAULTS,
      name: 'orders', checkType: 'API', degradedResponseTime: 5000, maxResponseTime: 20000,
      setupSnippetId: null, tearDownSnippetId: null, localSetupScript: null, localTearDownScript: null,
    });
    expect(a.body.request).toEqual({
      method: 'GET', url: 'https://api.example.com/orders', followRedirects: true, skipSSL: false, ipFamily: 'IPv4',
      body: '', bodyType: 'NONE', headers: [], queryParameters: [], assertions: [], basicAuth: null,
    });
  });

  it('stores methods, body, headers, query parameters, basic auth and every assertion source', async () => {
    const t = testServer();
    const snip = (await t.call('POST', '/v1/snippets', { name: 'login', script: 'request.headers.t = 1' })).body;
    const assertions = [
      { source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '300' },
      { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.items[0].id', target: '7' },
      { source: 'HEADERS', comparison: 'CONTAINS', property: 'content-type', target: 'json', regex: null },
      { source: 'TEXT_BODY', comparison: 'NOT_CONTAINS', target: 'error', regex: '"status":"(\\w+)"' },
      { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '800' },
      { source: 'JSON_BODY', comparison: 'IS_NULL', property: '$.deletedAt' },
    ];
    const a = await t.call('POST', '/v1/checks/api', apiBody({
      setupSnippetId: snip.id, tearDownSnippetId: snip.id, localSetupScript: 'x()', localTearDownScript: 'y()',
      frequency: 0, frequencyOffset: 10,
      request: {
        method: 'POST', url: 'https://api.example.com/orders', body: '{"sku":"a"}', bodyType: 'JSON', ipFamily: 'IPv6', skipSSL: true, followRedirects: false,
        headers: [{ key: 'Authorization', value: 'Bearer abc', locked: true }, { key: 'X-Trace', value: '1' }],
        queryParameters: [{ key: 'page', value: '1' }],
        basicAuth: { username: 'user', password: 'pw' },
        assertions,
      },
    }));
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ setupSnippetId: snip.id, tearDownSnippetId: snip.id, localSetupScript: 'x()', localTearDownScript: 'y()', frequency: 0, frequencyOffset: 10 });
    expect(a.body.request).toMatchObject({
      method: 'POST', body: '{"sku":"a"}', bodyType: 'JSON', ipFamily: 'IPv6', skipSSL: true, followRedirects: false,
      headers: [{ key: 'Authorization', value: 'Bearer abc', locked: true }, { key: 'X-Trace', value: '1', locked: false }],
      queryParameters: [{ key: 'page', value: '1', locked: false }],
      basicAuth: { username: 'user', password: 'pw' },
    });
    expect(a.body.request.assertions).toEqual(assertions.map((x) => ({ property: '', target: '', regex: '', ...x })));
    // Locked values only hide in a UI (api-decisions §1.7): reads return them, like webhook headers.
    const read = (await t.call('GET', `/v1/checks/${a.body.id}`)).body;
    expect(read.request.headers[0].value).toBe('Bearer abc');
    expect(read.request.basicAuth).toEqual({ username: 'user', password: 'pw' });
    // A deleted snippet is cleared from the check.
    await t.call('DELETE', `/v1/snippets/${snip.id}`);
    expect((await t.call('GET', `/v1/checks/${a.body.id}`)).body).toMatchObject({ setupSnippetId: null, tearDownSnippetId: null });
  });

  it('rejects what the reference and the spec forbid, with the field path', async () => {
    const t = testServer();
    const req = (extra: Record<string, unknown>) => apiBody({ request: { method: 'GET', url: 'https://api.example.com/', ...extra } });
    const cases: Array<[unknown, string]> = [
      [{ request: { method: 'GET', url: 'https://x.example/' } }, 'name'],
      [{ name: 'x' }, 'request'],
      [apiBody({ request: { url: 'https://x.example/' } }), 'request.method'],
      [req({ method: 'TRACE' }), 'request.method'],
      [req({ url: 'example.com' }), 'request.url'],
      [req({ bodyType: 'XML' }), 'request.bodyType'],
      [req({ headers: [{ key: 'Bad Header', value: 'x' }] }), 'request.headers.0.key'],
      [req({ headers: [{ key: 'X-A', value: 'a\r\nInjected: 1' }] }), 'request.headers.0.value'],
      [req({ headers: [{ value: 'x' }] }), 'request.headers.0.key'],
      [req({ headers: Array.from({ length: 51 }, (_, i) => ({ key: `X-${i}`, value: '' })) }), 'request.headers'],
      [req({ queryParameters: [{ key: '', value: 'x' }] }), 'request.queryParameters.0.key'],
      [req({ basicAuth: { username: 'u' } }), 'request.basicAuth.password'],
      [req({ assertions: [{ source: 'BODY', comparison: 'EQUALS' }] }), 'request.assertions.0.source'],
      [req({ assertions: [{ source: 'JSON_BODY', comparison: 'MATCHES' }] }), 'request.assertions.0.comparison'],
      [apiBody({ degradedResponseTime: 50000 }), 'degradedResponseTime'],
      [apiBody({ frequency: 0, frequencyOffset: 5 }), 'frequencyOffset'],
      [apiBody({ frequency: 120, frequencyOffset: 3 }), 'frequencyOffset'],
      [apiBody({ setupSnippetId: 999 }), 'setupSnippetId'],
      [apiBody({ tearDownSnippetId: 0 }), 'tearDownSnippetId'],
      [apiBody({ retryStrategy: { type: 'SINGLE_RETRY', maxRetries: 2 } }), 'retryStrategy.maxRetries'],
      [apiBody({ privateLocations: ['nowhere'] }), 'privateLocations.0'],
    ];
    for (const [body, path] of cases) {
      const a = await t.call('POST', '/v1/checks/api', body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.body.attributes.keys, JSON.stringify(body)).toContain(path);
      expect(a.body.statusCode).toBe(400);
    }
    expect(t.server.ctx.store.count('dev', 'checks')).toBe(0);
  });

  it('PUT /v1/checks/api/{id} and the deprecated PUT /v1/checks/{id} update stored API checks', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/api', apiBody({ request: { method: 'POST', url: 'https://api.example.com/', basicAuth: { username: 'u', password: 'p' } } }))).body;
    const u = await t.call('PUT', `/v1/checks/api/${c.id}`, { maxResponseTime: 30000, localSetupScript: 'a()' });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ maxResponseTime: 30000, localSetupScript: 'a()', request: { method: 'POST', basicAuth: { username: 'u', password: 'p' } } });
    // A request replaces the stored one: basic auth left out is cleared; method and url are required.
    const r = await t.call('PUT', `/v1/checks/api/${c.id}`, { request: { method: 'DELETE', url: 'https://api.example.com/x' } });
    expect(r.body.request).toMatchObject({ method: 'DELETE', basicAuth: null, headers: [] });
    expect((await t.call('PUT', `/v1/checks/api/${c.id}`, { request: { url: 'https://api.example.com/x' } })).body.attributes.keys).toEqual(['request.method']);
    const d = await t.call('PUT', `/v1/checks/${c.id}`, { checkType: 'API', name: 'renamed', degradedResponseTime: 100 });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ name: 'renamed', degradedResponseTime: 100, maxResponseTime: 30000 });
    expect((await t.call('PUT', `/v1/checks/${c.id}`, { checkType: 'URL', name: 'x' })).body.attributes.keys).toEqual(['checkType']);
    expect((await t.call('PUT', `/v1/checks/${c.id}`, { degradedResponseTime: 46000 })).body.attributes.keys).toEqual(['degradedResponseTime']);
    // A type-specific PUT on a check of another type is 400 at the path's id; unknown ids 404.
    const tcp = (await t.call('POST', '/v1/checks/tcp', tcpBody())).body;
    const wrong = await t.call('PUT', `/v1/checks/api/${tcp.id}`, { name: 'x' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.attributes).toMatchObject({ source: 'params', keys: ['id'] });
    const other = await t.call('PUT', `/v1/checks/url/${c.id}`, { name: 'x' });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('"id" is an API check; update it with PUT /v1/checks/api/{id}');
    expect((await t.call('PUT', '/v1/checks/api/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await t.call('PUT', `/v1/checks/browser/${c.id}`, {})).status).toBe(400);
  });
});

describe('lists and deletes of HTTP checks', () => {
  it('checkType and apiCheckUrlFilterPattern filter; delete removes the check', async () => {
    const t = testServer();
    await t.call('POST', '/v1/checks/url', urlBody({ name: 'Home page' }));
    const api = (await t.call('POST', '/v1/checks/api', apiBody({ name: 'Orders API' }))).body;
    await t.call('POST', '/v1/checks/api', apiBody({ name: 'Users API', request: { method: 'GET', url: 'https://users.example.org/v1' } }));
    await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'DB' }));
    const names = async (q: string) => (await t.call('GET', `/v1/checks?${q}`)).body.map((c: { name: string }) => c.name);
    expect(await names('checkType=URL')).toEqual(['Home page']);
    expect(await names('checkType=API')).toEqual(['Orders API', 'Users API']);
    expect(await names('apiCheckUrlFilterPattern=api.example.com')).toEqual(['Orders API']);
    // Only API checks: the URL monitor's URL contains "example" too.
    expect(await names('apiCheckUrlFilterPattern=example')).toEqual(['Orders API', 'Users API']);
    expect(await names('apiCheckUrlFilterPattern=nowhere')).toEqual([]);
    expect((await t.call('DELETE', `/v1/checks/${api.id}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/checks/${api.id}`)).status).toBe(404);
    expect(await names('checkType=API')).toEqual(['Users API']);
    expect((await t.call('DELETE', `/v1/checks/${api.id}`)).status).toBe(404);
  });

  it('a read-only key cannot create or update; another account does not see them', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/api', apiBody())).body;
    expect((await t.call('POST', '/v1/checks/url', urlBody(), { key: 'reader-key' })).status).toBe(403);
    expect((await t.call('PUT', `/v1/checks/api/${c.id}`, { name: 'x' }, { key: 'reader-key' })).status).toBe(403);
    expect((await t.call('GET', `/v1/checks/${c.id}`, undefined, { key: 'other-key' })).status).toBe(404);
  });
});
