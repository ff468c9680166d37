import { describe, expect, it } from 'vitest';
import { testServer } from './client.js';
import { parseApiKey, parseFaults, parseRateLimit } from '../../../src/server/options.js';

describe('authentication and accounts', () => {
  it('401 Bad token without, with a malformed or with an unknown key', async () => {
    const t = testServer();
    for (const init of [{ key: null }, { key: 'nope' }, { key: null, headers: { authorization: 'Basic abc' } }]) {
      const a = await t.call('GET', '/v1/snippets', undefined, init);
      expect(a.status).toBe(401);
      expect(a.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad token', attributes: { error: 'Bad token' } });
    }
  });

  it('401 when x-service-account names another account; accepted when it matches', async () => {
    const t = testServer();
    const bad = await t.call('GET', '/v1/snippets', undefined, { headers: { 'x-service-account': 'other' } });
    expect(bad.status).toBe(401);
    expect(bad.body.message).toBe('API key does not belong to account "other"');
    const good = await t.call('GET', '/v1/snippets', undefined, { headers: { 'x-service-account': 'dev' } });
    expect(good.status).toBe(200);
  });

  it('token is checked before routing: an unknown path without a key is 401', async () => {
    const t = testServer();
    expect((await t.call('GET', '/v1/nothing', undefined, { key: null })).status).toBe(401);
  });

  it('read-only keys may GET but get 403 on any write, before body checks', async () => {
    const t = testServer();
    expect((await t.call('GET', '/v1/checks', undefined, { key: 'reader-key' })).status).toBe(200);
    const w = await t.call('POST', '/v1/snippets', undefined, { key: 'reader-key', raw: '{bad json' });
    expect(w.status).toBe(403);
    expect(w.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'This API key may only read' });
  });

  it("another account's resources are 404 on read, update and delete", async () => {
    const t = testServer();
    const s = await t.call('POST', '/v1/snippets', { name: 'a', script: 'x' });
    for (const [m, body] of [['GET'], ['PUT', { name: 'b', script: 'y' }], ['DELETE']] as const) {
      const a = await t.call(m, `/v1/snippets/${s.body.id}`, body, { key: 'other-key' });
      expect(a.status).toBe(404);
    }
    expect((await t.call('GET', `/v1/snippets/${s.body.id}`)).status).toBe(200);
  });
});

describe('routing and bodies', () => {
  it('unknown paths, other versions, trailing slashes and wrong methods are 404, never 405', async () => {
    const t = testServer();
    for (const [m, p] of [['GET', '/v1/nothing'], ['GET', '/v2/snippets'], ['GET', '/v1/snippets/'], ['PATCH', '/v1/snippets'], ['DELETE', '/v1/checks']]) {
      const a = await t.call(m, p);
      expect(a.status, `${m} ${p}`).toBe(404);
      expect(a.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Not Found' });
    }
  });

  it('413 over 1 MiB, 415 for another content type, 400 for bad JSON and non-object bodies', async () => {
    const t = testServer();
    const big = await t.call('POST', '/v1/snippets', { name: 'a', script: 'x'.repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.message).toBe('Request body exceeds 1048576 bytes');
    const type = await t.call('POST', '/v1/snippets', undefined, { raw: '{}', headers: { 'content-type': 'text/plain' } });
    expect(type.body).toEqual({ statusCode: 415, error: 'Unsupported Media Type', message: 'Expected application/json' });
    const json = await t.call('POST', '/v1/snippets', undefined, { raw: '{"name":' });
    expect(json.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Invalid JSON in request body' });
    const arr = await t.call('POST', '/v1/snippets', [1]);
    expect(arr.body.attributes).toEqual({ source: 'payload', keys: [''], errors: [{ path: '', message: 'must be a JSON object' }] });
    const none = await t.call('POST', '/v1/snippets');
    expect(none.status).toBe(400);
    expect(none.body.attributes.keys).toEqual(['']);
    expect((await t.call('POST', '/v1/snippets', { name: 'a', script: 'x' }, { headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(201);
  });

  it('validation precedes lookup: a bad body on a missing id is 400', async () => {
    const t = testServer();
    expect((await t.call('PUT', '/v1/snippets/999', { name: '' })).status).toBe(400);
    expect((await t.call('PUT', '/v1/snippets/999', { name: 'a', script: 'b' })).status).toBe(404);
  });

  it('400 message joins every problem and attributes list them', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/checks/tcp', { name: 'x', request: { hostname: 'h' }, frequency: 3 });
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('"frequency" must be one of 0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440; "request.port" is required');
    expect(a.body.attributes.keys).toEqual(['frequency', 'request.port']);
    expect(a.body.attributes.source).toBe('payload');
  });

  it('malformed integer path ids are 400 with source params; query problems have source query', async () => {
    const t = testServer();
    const p = await t.call('GET', '/v1/snippets/abc');
    expect(p.status).toBe(400);
    expect(p.body.attributes).toEqual({ source: 'params', keys: ['id'], errors: [{ path: 'id', message: 'must be an integer' }] });
    const q = await t.call('GET', '/v1/checks?checkType=NOPE');
    expect(q.body.attributes.source).toBe('query');
  });
});

describe('page-based lists', () => {
  it('limit 1..100 and page >= 1, else 400; content-range 0-based inclusive; empty page */total', async () => {
    const t = testServer();
    for (let i = 0; i < 23; i++) await t.call('POST', '/v1/snippets', { name: `s${i}`, script: 'x' });
    const p2 = await t.call('GET', '/v1/snippets?page=2&limit=10');
    expect(p2.headers.get('content-range')).toBe('10-19/23');
    expect(p2.body.map((s: { name: string }) => s.name)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i + 10}`));
    const def = await t.call('GET', '/v1/snippets');
    expect(def.body).toHaveLength(10);
    expect(def.headers.get('content-range')).toBe('0-9/23');
    const empty = await t.call('GET', '/v1/snippets?page=4&limit=10');
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('content-range')).toBe('*/23');
    for (const q of ['limit=0', 'limit=101', 'limit=1.5', 'page=0', 'page=x']) {
      const a = await t.call('GET', `/v1/snippets?${q}`);
      expect(a.status, q).toBe(400);
      expect(a.body.attributes.source).toBe('query');
    }
    expect((await t.call('GET', '/v1/snippets?limit=100&unknown=1')).body).toHaveLength(23);
  });
});

describe('rate limit, faults, latency', () => {
  it('429 with Retry-After past the limit; 401s are not counted; a new window opens after it', async () => {
    let now = 1_000_000;
    const t = testServer({ rateLimit: { limit: 2, windowSeconds: 60 }, now: () => now });
    await t.call('GET', '/v1/snippets', undefined, { key: 'bad' });
    expect((await t.call('GET', '/v1/snippets')).status).toBe(200);
    now += 10_500;
    expect((await t.call('GET', '/v1/nothing')).status).toBe(404);
    const limited = await t.call('GET', '/v1/snippets');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('50');
    expect(limited.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded, retry in 50 s' });
    expect((await t.call('GET', '/v1/snippets', undefined, { key: 'other-key' })).status).toBe(200);
    now += 50_000;
    expect((await t.call('GET', '/v1/snippets')).status).toBe(200);
  });

  it('503 and 429 faults answer before anything is done', async () => {
    const draws = [0.05, 0.15, 0.9];
    const t = testServer({ faults: parseFaults('503:0.1,429:0.1'), random: () => draws.shift() ?? 0.9 });
    const a = await t.call('POST', '/v1/snippets', { name: 'a', script: 'x' });
    expect(a.status).toBe(503);
    const b = await t.call('POST', '/v1/snippets', { name: 'a', script: 'x' });
    expect(b.status).toBe(429);
    expect(b.headers.get('retry-after')).toBe('1');
    expect(t.server.ctx.store.count('dev', 'snippets')).toBe(0);
    expect((await t.call('POST', '/v1/snippets', { name: 'a', script: 'x' })).status).toBe(201);
  });

  it('--latency delays every response by at least its value', async () => {
    const t = testServer({ latencyMs: 150 });
    const started = performance.now();
    await t.call('GET', '/v1/snippets', undefined, { key: null });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('flag parsers reject what they cannot read', () => {
    expect(parseFaults('503:0.1,reset:0.02')).toEqual([{ kind: '503', probability: 0.1 }, { kind: 'reset', probability: 0.02 }]);
    expect(() => parseFaults('418:0.1')).toThrow(/invalid fault "418:0.1"/);
    expect(() => parseFaults('503:0.7,429:0.5')).toThrow(/more than 1/);
    expect(parseRateLimit('10/5')).toEqual({ limit: 10, windowSeconds: 5 });
    expect(() => parseRateLimit('10')).toThrow(/N\/SECONDS/);
    expect(parseApiKey('k1:read-only', 'acme')).toEqual({ key: 'k1', accountId: 'acme', role: 'read-only' });
    expect(parseApiKey('k:1', 'acme').key).toBe('k:1');
  });
});
