import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { writeProject } from '../e2e/plan-helpers.js';

// `mac plan` against a fake API that answers what no monitoring API should: it must exit 1 within
// 10 s with one error line naming the URL, never hang, run out of memory or print an internal error.

let server: Server | undefined;
let dir: string;

beforeAll(async () => {
  dir = await writeProject({
    'mac.config.yaml': 'project: hostile\n',
    'checks.yaml': 'kind: TcpCheck\nid: db\nname: database port\nrequest: { hostname: db.example, port: 5432 }\n',
  });
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A fake API: `checks` answers GET /v1/checks, every other list is empty. */
async function fakeApi(checks: (req: IncomingMessage, res: ServerResponse, page: number) => void): Promise<string> {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.pathname === '/v1/checks') return checks(req, res, Number(url.searchParams.get('page')));
    res.writeHead(200, { 'content-type': 'application/json', 'content-range': '*/0' });
    res.end('[]');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** 100 distinct TCP checks of page `n`. */
function fullPage(n: number): unknown[] {
  return Array.from({ length: 100 }, (_, i) => {
    const id = `00000000-0000-4000-8000-${String((n - 1) * 100 + i).padStart(12, '0')}`;
    return { id, checkType: 'TCP', name: `other ${id}`, activated: true, tags: [], request: { hostname: 'x.example', port: 1 } };
  });
}

function json(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function plan(apiUrl: string): Promise<{ code: number; stderr: string }> {
  const r = await runMacIn(['plan', dir], { env: { MAC_API_URL: apiUrl, MAC_API_KEY: 'k' }, timeoutMs: 30_000 });
  return { code: r.code, stderr: r.stderr };
}

function expectCleanFailure(r: { code: number; stderr: string }, url: RegExp | string, problem: string): void {
  expect(r.stderr).not.toMatch(/internal error|TypeError|RangeError|heap|    at /);
  expect(r.stderr).toContain('error: GET ');
  if (typeof url === 'string') expect(r.stderr).toContain(url);
  else expect(r.stderr).toMatch(url);
  expect(r.stderr).toContain(problem);
  expect(r.stderr).toContain('hint:');
  expect(r.code).toBe(1);
  // It stopped on the fault, not on the 30 s request timeout (how long that took depends on the machine's load).
  expect(r.stderr).not.toContain('no answer from');
}

describe('mac plan against a hostile or broken API', () => {
  it('content-range 0-99/100000000: exit 1 naming the URL, after one request', async () => {
    let asked = 0;
    const api = await fakeApi((_req, res, page) => {
      asked++;
      json(res, fullPage(page), { 'content-range': '0-99/100000000' });
    });
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=1`, 'announces 100000000 objects; mac reads at most 50000 objects per list');
    expect(asked).toBe(1);
  }, 30_000);

  it('full pages forever without content-range: exit 1 naming the URL at the page cap', async () => {
    let asked = 0;
    const api = await fakeApi((_req, res, page) => {
      asked++;
      json(res, fullPage(page));
    });
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=100`, '100 full pages (10000 objects) and still no end');
    expect(asked).toBe(100);
  }, 30_000);

  it('full pages forever with consistent-looking ranges and no total: same', async () => {
    const api = await fakeApi((_req, res, page) => json(res, fullPage(page), { 'content-range': `${(page - 1) * 100}-${page * 100 - 1}/*` }));
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=100`, 'and still no end');
  }, 30_000);

  it('the same full page forever (page ignored): exit 1 at page 2 on the repeated id', async () => {
    const api = await fakeApi((_req, res) => json(res, fullPage(1)));
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=2`, 'the list repeats id 00000000-0000-4000-8000-000000000000, already listed');
  }, 30_000);

  it('a body over the 64 MiB default, streamed without content-length: exit 1 naming the URL', async () => {
    let written = 0;
    const api = await fakeApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.from(`${JSON.stringify(fullPage(1)).slice(1, -1)},`);
      let closed = false;
      res.on('close', () => (closed = true));
      res.write('[');
      const pump = () => {
        while (!closed && written < 1024 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=1`, "the answer's body is larger, over the limit of 64 MiB");
    expect(written).toBeLessThan(128 * 1024 * 1024);
  }, 30_000);

  it('a declared content-length over 64 MiB: exit 1 before reading the body', async () => {
    const api = await fakeApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) });
      res.write('['); // and nothing more: reading it would wait for the 30 s timeout
    });
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=1`, 'declares 100 MiB');
  }, 30_000);

  it('a 200 with an HTML page: exit 1 naming the URL and MAC_API_URL', async () => {
    const api = await fakeApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Please sign in</body></html>');
    });
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=1`, 'answered 200 with an HTML page');
    expect(r.stderr).toContain('MAC_API_URL');
  }, 30_000);

  it('a list of non-objects: exit 1 naming the URL, not a TypeError', async () => {
    const api = await fakeApi((_req, res) => json(res, [null, 1, 'x'], { 'content-range': '0-2/3' }));
    const r = await plan(api);
    expectCleanFailure(r, `${api}/v1/checks?limit=100&page=1`, 'expected a JSON array of objects, but item 0 is null');
  }, 30_000);
});
