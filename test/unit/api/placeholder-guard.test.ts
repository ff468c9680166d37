import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/api/index.js';
import { assertNoPlaceholder } from '../../../src/api/placeholder.js';
import { MacError } from '../../../src/errors.js';

let server: Server | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  client = undefined;
});

/** A server that answers 201 with the body it got, counting the requests that reached it. */
async function echo(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(201, { 'content-type': 'application/json' }).end(body || '{}');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('the client never sends an unresolved ${{ ... }}', () => {
  it('refuses a body holding ${{ before any request, naming the field and not the value', async () => {
    const { url, seen } = await echo();
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    const body = { key: 'SR_KEY', value: '${{ env.SR_VAL }}', secret: true, other: 'not-printed-123' };
    const err = await client.post('/v1/variables', body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MacError);
    expect((err as Error).message).toBe('refusing to send POST /v1/variables: the body holds an unresolved ${{ ... }} expression at /value; it would be stored as the value');
    expect((err as Error).message).not.toContain('not-printed-123');
    const nested = await client.put('/v1/alert-channels/1', { config: { headers: [{ key: 'A', value: 'x ${{ env.H }}' }] } }).catch((e: unknown) => e);
    expect((nested as Error).message).toContain('at /config/headers/0/value');
    expect(client.stats.total).toBe(0);
    expect(seen).toEqual([]);
  });

  it('sends bodies without it, and GET/DELETE without a body', async () => {
    const { url, seen } = await echo();
    client = new ApiClient({ apiUrl: url, apiKey: 'k' });
    expect(await client.post('/v1/snippets', { name: 'ok', script: 'const a = `${b}`; // {{ not an expression' })).toMatchObject({ name: 'ok' });
    await client.get('/v1/snippets');
    expect(seen).toHaveLength(2);
  });

  it('finds the expression in keys and arrays too', () => {
    expect(() => assertNoPlaceholder('POST', '/x', { a: ['ok', { '${{ env.K }}': 1 }] })).toThrow(/at \/a\/1\/\$\{\{ env\.K \}\}/);
    expect(() => assertNoPlaceholder('POST', '/x', '${{')).toThrow(/at \//);
    expect(() => assertNoPlaceholder('POST', '/x', { a: 1, b: null, c: [true] })).not.toThrow();
  });
});
