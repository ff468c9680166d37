// The per-request timeout means that the API did not answer: not that mac's own event loop was
// held (a plan validating its definitions while its GETs are in flight), nor that the request
// waited for one of the client's connections. The API runs in a worker thread, so it answers
// while this thread's loop is held.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, NetworkError } from '../../../src/api/index.js';

const SERVER = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
let inFlight = 0;
let peak = 0;
const server = createServer((req, res) => {
  inFlight++;
  peak = Math.max(peak, inFlight);
  res.on('close', () => inFlight--);
  const [, what, arg] = new URL(req.url, 'http://x').pathname.split('/');
  const answer = () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ url: req.url }));
  };
  // Told as soon as the request is in, before it is answered.
  parentPort.postMessage({ seen: req.url });
  if (what === 'slow') setTimeout(answer, Number(arg));
  // 'never': no answer at all.
});
parentPort.on('message', (m) => {
  if (m === 'peak') parentPort.postMessage({ peak });
  if (m === 'close') server.close(() => parentPort.postMessage({ closed: true }));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

let worker: Worker;
let url: string;
let client: ApiClient | undefined;

/** The next message of the worker that has `key`. */
async function message(key: string): Promise<Record<string, unknown>> {
  for (;;) {
    const [m] = (await once(worker, 'message')) as [Record<string, unknown>];
    if (key in m) return m;
  }
}

/** Holds this thread's event loop for `ms`, as a long synchronous stretch of a plan does. */
function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* busy */
  }
}

beforeAll(async () => {
  worker = new Worker(SERVER, { eval: true });
  const { port } = await message('port');
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  worker.postMessage('close');
  await message('closed');
  await worker.terminate();
});

afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('the per-request timeout and a held event loop', () => {
  it('reads an answer that arrived while the loop was held past the timeout', async () => {
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 300 });
    const seen = message('seen');
    const pending = client.get<{ url: string }>('/slow/100');
    await seen;
    // The answer comes 0.1 s later, while the loop is held three times as long as the timeout.
    holdLoop(900);
    expect(await pending).toEqual({ url: '/slow/100' });
  });

  it('still gives up on an API that does not answer, held loop or not', async () => {
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 300 });
    const pending = client.get('/never').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    holdLoop(600);
    const err = await pending;
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain('within 0.3 s');
  });

  it('does not count the wait for a connection: requests beyond the connections take their turn', async () => {
    // One connection, six requests of 600 ms each: the last one is answered 3.6 s after it was
    // asked for, but the API never took longer than 0.6 s of the 2 s timeout.
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 2000, connections: 1 });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => client!.get<{ url: string }>(`/slow/600?i=${i}`)));
    expect(answers.map((a) => a.url)).toEqual(Array.from({ length: 6 }, (_, i) => `/slow/600?i=${i}`));
    worker.postMessage('peak');
    expect((await message('peak')).peak).toBe(1);
  });

  it('an aborted client fails the requests still waiting for a connection, unsent', async () => {
    client = new ApiClient({ apiUrl: url, apiKey: 'k', timeoutMs: 5000, connections: 1 });
    const first = client.get('/never').catch((e: unknown) => e);
    const second = client.get('/slow/1').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await client.abort();
    client = undefined;
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBeInstanceOf(NetworkError);
    expect(b).toBeInstanceOf(NetworkError);
    expect((b as NetworkError).code).toBe('ABORTED');
  });
});
