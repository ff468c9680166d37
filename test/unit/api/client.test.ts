import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  BadRequestError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  listAll,
  listCursor,
  type Clock,
} from '../../../src/api/index.js';
import { fakeApi, json } from '../../helpers/fake-api.js';

let client: ApiClient | undefined;

const { serve, close } = fakeApi();

/** A clock whose sleeps return at once and are recorded. */
function fakeClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

afterEach(async () => {
  await client?.close();
  client = undefined;
  await close();
});

describe('ApiClient', () => {
  it('sends Bearer auth, x-service-account and JSON, and parses the answer', async () => {
    let seen: IncomingMessage | undefined;
    let sent = '';
    const url = await serve((req, res, body) => {
      seen = req;
      sent = body;
      json(res, 201, { id: 7, name: 'x' });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k1', accountId: 'acc' });
    const out = await client.post('/v1/snippets', { name: 'x', script: 'y' }, { autoAssignAlerts: false });
    expect(out).toEqual({ id: 7, name: 'x' });
    expect(seen!.headers.authorization).toBe('Bearer k1');
    expect(seen!.headers['x-service-account']).toBe('acc');
    expect(seen!.headers['content-type']).toBe('application/json');
    expect(seen!.url).toBe('/v1/snippets?autoAssignAlerts=false');
    expect(JSON.parse(sent)).toEqual({ name: 'x', script: 'y' });
    expect(client.stats).toEqual({ total: 1, byMethod: { POST: 1 }, retries: 0 });
  });

  it('omits x-service-account when no account is configured', async () => {
    let headers: IncomingMessage['headers'] = {};
    const url = await serve((req, res) => {
      headers = req.headers;
      json(res, 200, []);
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    await client.get('/v1/checks');
    expect(headers['x-service-account']).toBeUndefined();
  });

  it('maps statuses to error classes and prints every 400 field problem', async () => {
    const answers: Record<string, [number, unknown]> = {
      '/400': [400, { statusCode: 400, error: 'Bad Request', message: '"request.port" is required', attributes: { errors: [{ path: 'request.port', message: 'is required' }, { path: 'name', message: 'must not be empty' }] } }],
      '/401': [401, { statusCode: 401, error: 'Unauthorized', message: 'Bad token' }],
      '/402': [402, { statusCode: 402, error: 'Payment Required', message: 'limit' }],
      '/404': [404, { statusCode: 404, error: 'Not Found', message: 'Not Found' }],
      '/409': [409, { statusCode: 409, error: 'Conflict', message: 'Variable "A" already exists' }],
      '/500': [500, { statusCode: 500, error: 'Internal Server Error', message: 'boom' }],
    };
    const url = await serve((req, res) => json(res, ...answers[req.url!.split('?')[0]]));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: fakeClock() });
    const err400: any = await client.post('/400', {}).catch((e: unknown) => e);
    expect(err400).toBeInstanceOf(BadRequestError);
    expect(err400.problems).toHaveLength(2);
    expect(err400.message).toContain('request.port: is required');
    expect(err400.message).toContain('name: must not be empty');
    await expect(client.get('/401')).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(client.get('/402')).rejects.toBeInstanceOf(PaymentRequiredError);
    await expect(client.get('/404')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.get('/409')).rejects.toThrow(ConflictError);
    const err500: any = await client.get('/500').catch((e: unknown) => e);
    expect(err500).toBeInstanceOf(ServerError);
    expect(err500.status).toBe(500);
    // 500 is not transient: one request each, no retries at all.
    expect(client.stats.retries).toBe(0);
    expect(client.stats.total).toBe(6);
  });

  it('waits Retry-After on 429 for any method, then succeeds', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      if (calls <= 2) json(res, 429, { statusCode: 429, message: 'slow down' }, { 'retry-after': '3' });
      else json(res, 201, { ok: true });
    });
    const clock = fakeClock();
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock });
    expect(await client.post('/v1/snippets', {})).toEqual({ ok: true });
    expect(clock.slept).toEqual([3000, 3000]);
    expect(client.stats.retries).toBe(2);
  });

  it('caps Retry-After at 60 s and gives up after 5 retries of a 429', async () => {
    const url = await serve((_req, res) => json(res, 429, { message: 'no' }, { 'retry-after': '600' }));
    const clock = fakeClock();
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock });
    await expect(client.get('/x')).rejects.toBeInstanceOf(RateLimitedError);
    expect(clock.slept).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('backs off 1, 2, 4 s (±20 %) on 503 for GET, and never retries a POST', async () => {
    const url = await serve((_req, res) => json(res, 503, { message: 'unavailable' }));
    const clock = fakeClock();
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock, random: () => 0.5 });
    await expect(client.get('/x')).rejects.toBeInstanceOf(ServerError);
    expect(clock.slept).toEqual([1000, 2000, 4000]);
    clock.slept.length = 0;
    await expect(client.post('/x', {})).rejects.toBeInstanceOf(ServerError);
    expect(clock.slept).toEqual([]);
    expect(client.stats.byMethod).toEqual({ GET: 4, POST: 1 });
  });

  it('retries a reset connection on PUT', async () => {
    let calls = 0;
    const url = await serve((req, res) => {
      calls++;
      if (calls === 1) req.socket.destroy();
      else json(res, 200, { ok: true });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: fakeClock() });
    expect(await client.put('/x', { a: 1 })).toEqual({ ok: true });
    expect(client.stats.retries).toBe(1);
  });

  it('names ECONNREFUSED with the address and says how to start the service', async () => {
    const url = await serve((_req, res) => json(res, 200, {}));
    await close();
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err: any = await client.get('/v1/checks').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/ECONNREFUSED 127\.0\.0\.1:\d+/);
    expect(err.hint).toContain('mac serve');
    expect(err.hint).toContain('MAC_API_URL');
  });

  it('turns a slow answer into a timeout error', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 200 });
    const err: any = await client.post('/slow', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('within 0.2 s');
  });
});

describe('pagination', () => {
  it('reads the first page, then every other page at once from the content-range total', async () => {
    const all = Array.from({ length: 250 }, (_, i) => ({ id: i }));
    const pages: number[] = [];
    const url = await serve((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page'));
      const limit = Number(q.get('limit'));
      pages.push(page);
      const slice = all.slice((page - 1) * limit, page * limit);
      json(res, 200, slice, { 'content-range': slice.length ? `${(page - 1) * limit}-${(page - 1) * limit + slice.length - 1}/250` : '*/250' });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const items = await listAll<{ id: number }>(client, '/v1/checks');
    expect(items.map((i) => i.id)).toEqual(all.map((i) => i.id));
    expect(pages.sort()).toEqual([1, 2, 3]);
  });

  it('asks for the pages of items known to exist together with the first', async () => {
    const all = Array.from({ length: 250 }, (_, i) => ({ id: i }));
    const held: Array<() => void> = [];
    let heldTooLong = false;
    let asked = 0;
    const url = await serve((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page'));
      const slice = all.slice((page - 1) * 100, page * 100);
      held.push(() => json(res, 200, slice, { 'content-range': `${(page - 1) * 100}-${(page - 1) * 100 + slice.length - 1}/250` }));
      // Nothing is answered before all three pages were asked for; a sequential read would stall here.
      const release = () => held.splice(0).forEach((answer) => answer());
      if (++asked === 3) release();
      else setTimeout(() => held.length > 0 && ((heldTooLong = true), release()), 1000).unref();
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const items = await listAll<{ id: number }>(client, '/v1/checks', {}, 201);
    expect(items.map((i) => i.id)).toEqual(all.map((i) => i.id));
    expect(heldTooLong).toBe(false);
    expect(client.stats.total).toBe(3);
  });

  it('still reads every item when fewer or more exist than the caller expected', async () => {
    for (const [length, atLeast, withRange] of [[150, 300, true], [350, 150, true], [200, 150, false]] as const) {
      const all = Array.from({ length }, (_, i) => ({ id: i }));
      const url = await serve((req, res) => {
        const page = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
        json(res, 200, all.slice((page - 1) * 100, page * 100), withRange ? { 'content-range': `*/${length}` } : {});
      });
      client = new ApiClient({ apiUrl: url, apiKey: 'k' });
      const items = await listAll<{ id: number }>(client, '/v1/checks', {}, atLeast);
      expect(items.map((i) => i.id)).toEqual(all.map((i) => i.id));
      await client.close();
      client = undefined;
      await close();
    }
  });

  it('stops at a short page when there is no content-range', async () => {
    const all = Array.from({ length: 200 }, (_, i) => ({ id: i }));
    const url = await serve((req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page'));
      json(res, 200, all.slice((page - 1) * 100, page * 100));
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    expect(await listAll(client, '/v1/x')).toHaveLength(200);
    // 200 items: pages 1, 2 full, page 3 empty ends it.
    expect(client.stats.total).toBe(3);
  });

  it('follows nextId for cursor lists', async () => {
    const url = await serve((req, res) => {
      const next = new URL(req.url!, 'http://x').searchParams.get('nextId');
      if (!next) json(res, 200, { length: 2, entries: [{ id: 1 }, { id: 2 }], nextId: 'c2' });
      else json(res, 200, { length: 1, entries: [{ id: 3 }], nextId: null });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    expect(await listCursor(client, '/v1/status-pages')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
});
