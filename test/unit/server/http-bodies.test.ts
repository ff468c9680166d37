import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type MacServer } from '../../../src/server/server.js';

// Bodies over a real socket: a declared length is read in one piece, a chunked body is streamed
// and cut at the limit. In-process requests (app.request) take neither of those paths.
let server: MacServer;
let port: number;

beforeAll(async () => {
  server = createServer({ port: 0, rateLimit: { limit: 0, windowSeconds: 60 } });
  port = Number(new URL(await server.listen()).port);
});
afterAll(() => server.close());

/** POSTs `chunks` to /v1/snippets, with a content-length when `declared`, else chunked. */
function post(chunks: Buffer[], declared: boolean): Promise<{ status: number; body: any }> {
  const headers: Record<string, string | number> = { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' };
  if (declared) headers['content-length'] = chunks.reduce((n, c) => n + c.length, 0);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/snippets', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    // The service may answer 413 and close before the whole body is sent.
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const snippet = (script: string) => Buffer.from(JSON.stringify({ name: 'n', script }), 'utf8');

describe('request bodies over a socket', () => {
  it('reads a body with a declared length and a chunked one alike, multi-byte characters split across chunks', async () => {
    const whole = snippet('caf\u00e9 \u2713');
    const cut = whole.indexOf(0xa9); // inside the two bytes of "é"
    for (const declared of [true, false]) {
      const res = await post([whole.subarray(0, cut), whole.subarray(cut)], declared);
      expect(res.status, `declared=${declared}`).toBe(201);
      expect(res.body.script).toBe('caf\u00e9 \u2713');
    }
  });

  it('413 over 1 MiB, declared or chunked', async () => {
    const big = snippet('x'.repeat(1024 * 1024));
    const declared = await post([big], true);
    expect(declared.status).toBe(413);
    const chunked = await post([big.subarray(0, 600_000), big.subarray(600_000)], false).catch((err: NodeJS.ErrnoException) => ({ status: err.code, body: undefined }));
    // The cut may reset the connection before the client reads the answer; either way it is refused.
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(chunked.status);
    if (chunked.status === 413) expect(chunked.body.message).toBe('Request body exceeds 1048576 bytes');
  });
});
