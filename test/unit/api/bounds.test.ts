import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  ApiError,
  BadResponseError,
  DEFAULT_READ_LIMITS,
  NetworkError,
  RateLimitedError,
  ServerError,
  listAll,
  listCursor,
  objectBody,
  parseContentRange,
  type Clock,
} from '../../../src/api/index.js';

// A hostile or broken API must end every read with an ApiError (or NetworkError) naming the URL,
// quickly and in bounded memory: never an internal error, an out-of-memory or an endless loop.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | undefined;
let client: ApiClient | undefined;
let requests: string[] = [];

async function serve(handler: Handler): Promise<string> {
  requests = [];
  server = createServer((req, res) => {
    requests.push(req.url!);
    handler(req, res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function pageOf(req: IncomingMessage): number {
  return Number(new URL(req.url!, 'http://x').searchParams.get('page'));
}

/** 100 distinct objects of page `n`. */
function fullPage(n: number): Array<{ id: number }> {
  return Array.from({ length: 100 }, (_, i) => ({ id: (n - 1) * 100 + i }));
}

async function failure(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

const noSleep: Clock = { now: () => 0, sleep: async () => {} };

afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

describe('response body cap', () => {
  it('defaults to 64 MiB and 50,000 objects per list', () => {
    client = new ApiClient({ apiUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    expect(client.limits).toEqual({ maxBodyBytes: 64 * 1024 * 1024, maxListItems: 50_000, maxListBytes: 256 * 1024 * 1024, maxPagesWithoutTotal: 100 });
    expect(DEFAULT_READ_LIMITS.maxBodyBytes).toBe(67_108_864);
  });

  it('fails a body that grows over the limit while it streams, and drops the connection', async () => {
    let written = 0;
    let closed = false;
    const url = await serve((_req, res) => {
      // No content-length: an endless JSON array, 64 KiB at a time.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write('[');
      const pump = () => {
        while (!closed && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (closed = true));
      pump();
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxBodyBytes: 256 * 1024 });
    const started = Date.now();
    const err = await failure(client.get('/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain(`GET ${url}/v1/checks:`);
    expect(err.message).toContain('over the limit of 256 KiB');
    expect(err.hint).toContain('MAC_API_URL');
    expect(Date.now() - started).toBeLessThan(5000);
    // The client dropped the connection: the server sees it close (soon; how soon depends on the machine's load).
    for (const end = Date.now() + 20_000; !closed && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
    // Socket buffers let the server write a few MiB more, never the 512 MiB it wanted to.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('fails a declared content-length over the limit before reading any of it', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024 * 1024) });
      res.write('['); // and then nothing: a client reading the body would wait for the timeout
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 20_000 });
    const started = Date.now();
    const err = await failure(client.get('/v1/snippets', { page: 1 }));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain(`GET ${url}/v1/snippets?page=1:`);
    expect(err.message).toContain('declares 10240 MiB');
    expect(err.message).toContain('over the limit of 64 MiB');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('the pages of one list share a byte budget, counted while they stream (concurrent pages too)', async () => {
    // 5 pages of about 30 KB each, announced by the total: read at once, they add up past 100 KB.
    const url = await serve((req, res) => {
      const n = pageOf(req);
      const items = fullPage(n).map((o) => ({ ...o, pad: 'x'.repeat(300) }));
      json(res, 200, items, { 'content-range': `${(n - 1) * 100}-${n * 100 - 1}/500` });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListBytes: 100 * 1024 });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toMatch(new RegExp(`^GET ${url}/v1/checks\\?limit=100&page=\\d: the answers of this list together are larger than 100 KiB`));
    await client.close();
    // The same list under a budget that holds it is read whole; each list has its own budget.
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListBytes: 200 * 1024 });
    expect(await listAll(client, '/v1/checks')).toHaveLength(500);
    expect(await listAll(client, '/v1/checks')).toHaveLength(500);
  });

  it('reads a body just under the limit', async () => {
    const body = [{ id: 1, name: 'x'.repeat(1000) }];
    const url = await serve((_req, res) => json(res, 200, body));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxBodyBytes: JSON.stringify(body).length });
    expect(await client.get('/v1/checks')).toEqual(body);
  });

  it('refuses a limit that is not a positive number', () => {
    expect(() => new ApiClient({ apiUrl: 'http://127.0.0.1:1', apiKey: 'k', maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => new ApiClient({ apiUrl: 'http://127.0.0.1:1', apiKey: 'k', maxListItems: Number.NaN })).toThrow(/maxListItems/);
  });
});

describe('answers that are not JSON of the expected shape', () => {
  it('a 2xx HTML page is a BadResponseError naming the URL, with a hint about MAC_API_URL', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Sign in to the proxy</body></html>');
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain(`GET ${url}/v1/checks?limit=100&page=1: answered 200 with an HTML page (text/html)`);
    expect(err.hint).toMatch(/web page/);
  });

  it('malformed JSON on a 2xx is a BadResponseError, not a string handed to the engine', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"id": 1,');
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(client.get('/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain('not valid JSON (application/json)');
    expect(err.message).toContain(url);
  });

  it('JSON nested deeper than 100 levels is refused (the engine recurses over answers)', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`[{"id":1,"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}]`);
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(client.get('/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain('nests deeper than 100 levels');
  });

  it('a list answer that is not an array, or holds a non-object, names the URL', async () => {
    for (const body of [{ items: [] }, 'text', [{ id: 1 }, null], [[1]]]) {
      const url = await serve((_req, res) => json(res, 200, body));
      client = new ApiClient({ apiUrl: url, apiKey: 'k' });
      const err = await failure(listAll(client, '/v1/variables'));
      expect(err).toBeInstanceOf(BadResponseError);
      expect(err.message).toMatch(new RegExp(`^GET ${url}/v1/variables\\?limit=100&page=1: expected a JSON array of objects`));
      await client.close();
      client = undefined;
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });

  it('objectBody refuses an answer that is not one object', async () => {
    const url = await serve((_req, res) => json(res, 201, [1, 2]));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const res = await client.request('POST', '/v1/snippets', { body: {} });
    const err = (() => {
      try {
        objectBody(res, 'POST');
      } catch (e) {
        return e as any;
      }
    })();
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`POST ${url}/v1/snippets: expected a JSON object, got an array`);
    expect(err.status).toBe(201);
  });

  it('control characters of an error body never reach the terminal', async () => {
    const url = await serve((_req, res) => json(res, 500, { message: 'boom\u001b[2J\u001b]0;pwned\u0007' }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: noSleep });
    const err = await failure(client.post('/v1/snippets', {}));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
    expect(err.message).toContain('boom?[2J?]0;pwned?');
  });

  it('a URL with credentials is printed without them', async () => {
    const url = await serve((_req, res) => json(res, 200, 'x'));
    client = new ApiClient({ apiUrl: url.replace('http://', 'http://user:secret@'), apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).not.toContain('secret');
    expect(err.message).toContain(`${url}/v1/checks`);
  });
});

describe('content-range sanity', () => {
  it('an absurd total fails on the first page, naming its URL, without asking for more', async () => {
    const url = await serve((_req, res) => json(res, 200, fullPage(1), { 'content-range': '0-99/100000000' }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe(
      `GET ${url}/v1/checks?limit=100&page=1: content-range "0-99/100000000" announces 100000000 objects; mac reads at most 50000 objects per list`,
    );
    expect(requests).toHaveLength(1);
  });

  it('a total over a configured maxListItems fails; one at it is read', async () => {
    const all = Array.from({ length: 300 }, (_, i) => ({ id: i }));
    const url = await serve((req, res) => {
      const n = pageOf(req);
      const slice = all.slice((n - 1) * 100, n * 100);
      json(res, 200, slice, { 'content-range': `${(n - 1) * 100}-${(n - 1) * 100 + slice.length - 1}/300` });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 299 });
    expect((await failure(listAll(client, '/v1/checks'))).message).toContain('announces 300 objects; mac reads at most 299');
    await client.close();
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 300 });
    expect(await listAll(client, '/v1/checks')).toHaveLength(300);
  });

  it.each([
    ['100-199/250', 'does not match page 1'],
    ['0-49/250', 'does not match page 1'],
    ['99-0/250', 'ends before it starts'],
    ['0-99/abc', 'is not `start-end/total`'],
    ['zero to 99', 'is not `start-end/total`'],
    ['0-99/99999999999999999999999', 'is not `start-end/total`'],
    ['0-99/50', 'announces 50 objects, but page 1 alone reaches object 100'],
    ['*/*', 'is not `start-end/total`'],
  ])('content-range %s on the first page is inconsistent', async (header, problem) => {
    const url = await serve((_req, res) => json(res, 200, fullPage(1), { 'content-range': header }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain(`GET ${url}/v1/checks?limit=100&page=1: content-range`);
    expect(err.message).toContain(problem);
  });

  it('a later page whose range does not match the page asked for fails with that page URL', async () => {
    // Every page claims to be the first: a server ignoring `page`.
    const url = await serve((req, res) => json(res, 200, fullPage(pageOf(req)), { 'content-range': '0-99/300' }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err.message).toMatch(/page=[23]: content-range "0-99\/300" does not match page [23]/);
  });

  it('a page longer than the limit asked for fails', async () => {
    const url = await serve((_req, res) => json(res, 200, Array.from({ length: 1000 }, (_, i) => ({ id: i }))));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    expect((await failure(listAll(client, '/v1/checks'))).message).toContain('the page holds 1000 objects, more than the limit=100 asked for');
  });

  it('parses the three forms and an optional unit', () => {
    expect(parseContentRange('0-99/250')).toEqual({ start: 0, end: 99, total: 250 });
    expect(parseContentRange('items 100-199/*')).toEqual({ start: 100, end: 199, total: undefined });
    expect(parseContentRange('*/7')).toEqual({ start: undefined, end: undefined, total: 7 });
    expect(parseContentRange('-1-5/10')).toBeUndefined();
  });
});

describe('pagination that would not end', () => {
  it('a page repeating ids already seen stops with the URL of that page (no content-range)', async () => {
    const url = await serve((_req, res) => json(res, 200, fullPage(1)));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`GET ${url}/v1/checks?limit=100&page=2: the list repeats id 0, already listed`);
    expect(requests).toHaveLength(2);
  });

  it('with a kind id (idOf), an object whose id is not a string or a number fails with the URL, never as [object Object]', async () => {
    const url = await serve((_req, res) => json(res, 200, [{ id: 'a' }, { id: { x: 1 } }], { 'content-range': '0-1/2' }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks', {}, { idOf: (c) => c.id }));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`GET ${url}/v1/checks?limit=100&page=1: an object of the list has no id (a string or a number), got an object`);
    // Without a kind id, lists whose objects carry no id stay readable.
    expect(await listAll(client, '/v1/checks')).toHaveLength(2);
  });

  it('repeated ids are found with the kind id (idOf) and with consistent-looking ranges', async () => {
    const url = await serve((req, res) => {
      const n = pageOf(req);
      const items = Array.from({ length: 100 }, (_, i) => ({ key: `K${i}` }));
      json(res, 200, items, { 'content-range': `${(n - 1) * 100}-${n * 100 - 1}/300` });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/variables', {}, { idOf: (v) => v.key }));
    expect(err.message).toMatch(/page=[23]: the list repeats id K0/);
  });

  it('full pages forever without a total stop at the maxListItems cap', async () => {
    const url = await serve((req, res) => json(res, 200, fullPage(pageOf(req))));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 1000 });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(
      `GET ${url}/v1/checks?limit=100&page=10: 10 full pages (1000 objects) and still no end, without a total in content-range; mac reads at most 10 pages of a list without a total`,
    );
    expect(requests).toHaveLength(10);
  });

  it('full pages forever with consistent-looking ranges without a total (start-end/*) stop too', async () => {
    const url = await serve((req, res) => {
      const n = pageOf(req);
      json(res, 200, fullPage(n), { 'content-range': `${(n - 1) * 100}-${n * 100 - 1}/*` });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 500 });
    expect((await failure(listAll(client, '/v1/checks'))).message).toContain('5 full pages (500 objects) and still no end');
    expect(requests).toHaveLength(5);
  });

  it('full pages forever stop at the default cap (100 pages without a total) within seconds', async () => {
    const url = await serve((req, res) => json(res, 200, fullPage(pageOf(req))));
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const started = Date.now();
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err.message).toContain('100 full pages (10000 objects) and still no end');
    expect(requests).toHaveLength(100);
    expect(Date.now() - started).toBeLessThan(10_000);
    await client.close();
    // A configured maxPagesWithoutTotal moves it; maxListItems still bounds it.
    requests = [];
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxPagesWithoutTotal: 3 });
    expect((await failure(listAll(client, '/v1/checks'))).message).toContain('3 full pages (300 objects)');
    expect(requests).toHaveLength(3);
  }, 30_000);

  it('a list with a total may hold more than 100 pages (up to maxListItems)', async () => {
    const url = await serve((req, res) => {
      const n = pageOf(req);
      json(res, 200, fullPage(n), { 'content-range': `${(n - 1) * 100}-${n * 100 - 1}/15000` });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', rateLimit: { requests: 0, perSeconds: 1 } });
    expect(await listAll(client, '/v1/checks')).toHaveLength(15_000);
  }, 30_000);

  it('pages asked for up front (atLeast) are capped too', async () => {
    const url = await serve((_req, res) => json(res, 200, [], { 'content-range': '*/0' }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 300 });
    expect(await listAll(client, '/v1/checks', {}, { atLeast: 10_000_000 })).toEqual([]);
    expect(requests).toHaveLength(3);
  });
});

describe('cursor lists', () => {
  it('a cursor already followed stops with the URL', async () => {
    const url = await serve((req, res) => {
      const next = new URL(req.url!, 'http://x').searchParams.get('nextId');
      json(res, 200, { length: 1, entries: [{ id: next ?? 'first' }], nextId: next === 'a' ? 'b' : 'a' });
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listCursor(client, '/v1/status-pages'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(`GET ${url}/v1/status-pages?limit=100&nextId=b: nextId a was already followed; the list would never end`);
  });

  it('fresh cursors forever (even with empty pages) stop at the cap', async () => {
    let n = 0;
    const url = await serve((_req, res) => json(res, 200, { length: 0, entries: [], nextId: `c${++n}` }));
    client = new ApiClient({ apiUrl: url, apiKey: 'k', maxListItems: 1000 });
    const err = await failure(listCursor(client, '/v1/incidents'));
    expect(err.message).toContain('the list goes past 1000 objects or 10 pages');
    expect(requests).toHaveLength(11);
  });

  it('entries repeating ids, a non-object page, or a bad nextId fail with the URL', async () => {
    const answers: unknown[] = [
      { entries: [{ id: 1 }, { id: 1 }], nextId: null },
      [],
      { entries: 'x', nextId: null },
      { entries: [], nextId: { a: 1 } },
    ];
    const problems = ['the list repeats id 1', 'expected a cursor list {entries, nextId}, got an array', 'expected `entries` to be an array of objects', 'expected nextId to be a string'];
    for (const [i, body] of answers.entries()) {
      const url = await serve((_req, res) => json(res, 200, body));
      client = new ApiClient({ apiUrl: url, apiKey: 'k' });
      const err = await failure(listCursor(client, '/v1/services'));
      expect(err).toBeInstanceOf(BadResponseError);
      expect(err.message).toContain(`GET ${url}/v1/services?limit=100: ${problems[i]}`);
      await client.close();
      client = undefined;
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });
});

describe('other answers a server can give', () => {
  it('oversized headers are a NetworkError naming the path and saying so', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-junk': 'x'.repeat(64 * 1024) });
      res.end('[]');
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: noSleep });
    const err = await failure(client.get('/v1/checks'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('GET /v1/checks: the answer\'s headers are over the size limit');
    expect(err.hint).toContain('MAC_API_URL');
  });

  it('a body that stalls after the headers ends with the per-request timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 300 });
    const err = await failure(client.post('/v1/checks', {}));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain('within 0.3 s');
  });

  it('an absurd Retry-After (huge number or far date) waits at most 60 s', async () => {
    for (const retryAfter of ['99999999999999999999999', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const url = await serve((_req, res) => json(res, 429, { message: 'no' }, { 'retry-after': retryAfter }));
      const slept: number[] = [];
      client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: { now: () => Date.now(), sleep: async (ms) => void slept.push(ms) } });
      expect(await failure(client.get('/v1/checks'))).toBeInstanceOf(RateLimitedError);
      expect(slept).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
      await client.close();
      client = undefined;
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });
});

describe('retries', () => {
  it('all retries of a client wait at most maxRetryWaitMs together (default 5 min)', async () => {
    const url = await serve((_req, res) => json(res, 429, { message: 'no' }, { 'retry-after': '60' }));
    const slept: number[] = [];
    let now = 0;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) };
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock });
    for (let i = 0; i < 3; i++) expect(await failure(client.get('/v1/checks'))).toBeInstanceOf(RateLimitedError);
    // 5 waits for the first request, none after: 300 s in all, not 15 min.
    expect(slept).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
    expect(requests).toHaveLength(6 + 1 + 1);
    await client.close();
    slept.length = 0;
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock, maxRetryWaitMs: 150_000 });
    expect(await failure(client.get('/v1/checks'))).toBeInstanceOf(RateLimitedError);
    expect(slept).toEqual([60_000, 60_000]);
  });

  it('waits of concurrent requests that overlap count once', async () => {
    let calls = 0;
    const url = await serve((_req, res) => (++calls <= 8 ? json(res, 429, { message: 'no' }, { 'retry-after': '60' }) : json(res, 200, [])));
    // All 8 are told to wait 60 s at the same instant: their waits overlap, 60 s in all.
    const clock: Clock = { now: () => 0, sleep: async () => {} };
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock, maxRetryWaitMs: 90_000 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => client!.get('/v1/checks')));
    expect(answers).toEqual(Array.from({ length: 8 }, () => []));
  });
});

describe('error answers', () => {
  it('a redirect is not followed: a BadResponseError naming both URLs', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(301, { location: 'https://user:pw@elsewhere.example/v1/checks' });
      res.end();
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const err = await failure(listAll(client, '/v1/checks'));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toBe(
      `GET ${url}/v1/checks?limit=100&page=1: answered 301, a redirect to https://elsewhere.example/v1/checks; mac does not follow redirects (they could carry the API key elsewhere)`,
    );
    expect(requests).toHaveLength(1);
  });

  it('an HTML error page is named by its title, not dumped', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<html><head><title>502 Bad Gateway</title></head><body>${'<p>x</p>'.repeat(1000)}</body></html>`);
    });
    client = new ApiClient({ apiUrl: url, apiKey: 'k', clock: noSleep });
    const err = await failure(client.get('/v1/checks'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toBe('GET /v1/checks failed: 502 (an HTML page: 502 Bad Gateway)');
  });
});
