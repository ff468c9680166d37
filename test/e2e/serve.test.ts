import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe, callApi } from '../helpers/serve.js';
import { runMac } from '../helpers/cli.js';

const stateFile = () => join(mkdtempSync(join(tmpdir(), 'mac-serve-')), 'state.jsonl');

const call = callApi;

const tcp = { name: 'db', request: { hostname: 'db.internal', port: 5432 } };

// Each case starts its own services on state of its own: the cases run at once, with generous
// time limits for a loaded machine.
describe.concurrent('mac serve (built CLI)', { timeout: 150_000 }, () => {
  it('prints its URL, account and dev key, and stops on SIGTERM', async () => {
    const s = await startServe(['--no-runs']);
    try {
      expect(s.log()).toMatch(/^mac serve listening on http:\/\/127\.0\.0\.1:\d+\n/);
      expect(s.log()).toContain('account dev: API key mac-dev-key (admin)');
      expect((await call(s, 'GET', '/v1/accounts/me')).body.id).toBe('dev');
    } finally {
      await s.stop();
    }
  });

  it('serves several accounts with roles; keys other than the dev key are not printed', async () => {
    const s = await startServe(['--api-key', 'key-acme-1234', '--account', 'acme', '--api-key', 'key-beta-5678:read-only', '--account', 'beta']);
    try {
      expect(s.log()).not.toContain('key-acme-1234');
      expect(s.log()).toContain('account beta: API key ...5678 (read-only)');
      const created = await call(s, 'POST', '/v1/snippets', { name: 'a', script: 'x' });
      expect(created.status).toBe(201);
      expect((await call(s, 'GET', `/v1/snippets/${created.body.id}`, undefined, 'key-beta-5678')).status).toBe(404);
      expect((await call(s, 'POST', '/v1/snippets', { name: 'a', script: 'x' }, 'key-beta-5678')).status).toBe(403);
      expect((await call(s, 'GET', '/v1/snippets', undefined, 'mac-dev-key')).status).toBe(401);
    } finally {
      await s.stop();
    }
  });

  it('keeps its state across a restart and across kill -9 after acknowledged writes', async () => {
    const file = stateFile();
    const a = await startServe(['--state', file, '--no-runs']);
    const check = (await call(a, 'POST', '/v1/checks/tcp', tcp)).body;
    await call(a, 'POST', '/v1/variables', { key: 'TOKEN', value: 'v', secret: true });
    await a.stop('SIGTERM');
    const b = await startServe(['--state', file, '--no-runs']);
    expect((await call(b, 'GET', `/v1/checks/${check.id}`)).body).toEqual(check);
    const snippet = (await call(b, 'POST', '/v1/snippets', { name: 's', script: 'x' })).body;
    const put = await call(b, 'PUT', `/v1/checks/tcp/${check.id}`, { name: 'renamed' });
    expect(put.status).toBe(200);
    await b.stop('SIGKILL');
    const c = await startServe(['--state', file, '--no-runs']);
    try {
      expect((await call(c, 'GET', `/v1/checks/${check.id}`)).body.name).toBe('renamed');
      expect((await call(c, 'GET', `/v1/snippets/${snippet.id}`)).body).toEqual(snippet);
      expect((await call(c, 'GET', '/v1/variables/TOKEN')).body.value).toBeNull();
      // Counters survive: the next snippet does not reuse an id.
      expect((await call(c, 'POST', '/v1/snippets', { name: 't', script: 'y' })).body.id).toBe(snippet.id + 1);
    } finally {
      await c.stop();
    }
  });

  it('a reset fault commits the write, then drops the connection without an answer', async () => {
    const file = stateFile();
    const a = await startServe(['--state', file, '--faults', 'reset:1']);
    await expect(call(a, 'POST', '/v1/snippets', { name: 'lost ack', script: 'x' })).rejects.toThrow();
    await a.stop();
    const b = await startServe(['--state', file]);
    try {
      expect((await call(b, 'GET', '/v1/snippets')).body.map((s: { name: string }) => s.name)).toEqual(['lost ack']);
    } finally {
      await b.stop();
    }
  });

  it('503 faults write nothing; the rate limit answers 429 with Retry-After', async () => {
    const s = await startServe(['--faults', '503:1']);
    try {
      const r = await call(s, 'POST', '/v1/snippets', { name: 'a', script: 'x' });
      expect(r.status).toBe(503);
      expect(r.body.statusCode).toBe(503);
    } finally {
      await s.stop();
    }
    const l = await startServe(['--rate-limit', '2/60']);
    try {
      expect((await call(l, 'GET', '/v1/snippets')).status).toBe(200);
      expect((await call(l, 'GET', '/v1/snippets')).status).toBe(200);
      const limited = await call(l, 'GET', '/v1/snippets');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await l.stop();
    }
  });

  it('rejects bad flags with exit code 1 and a message naming the flag', async () => {
    const bads = ['ftp://status.example.com', 'status.example.com', 'https://u:p@status.example.com', 'https://status.example.com/?q=1'];
    const opts = { timeoutMs: 90_000 };
    const [r, k, ...urls] = await Promise.all([
      runMac(['serve', '--port', '0', '--faults', 'boom:1'], opts),
      runMac(['serve', '--port', '0', '--api-key', 'a', '--api-key', 'b', '--account', 'x', '--account', 'y', '--account', 'z'], opts),
      ...bads.map((bad) => runMac(['serve', '--port', '0', '--public-url', bad], opts)),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('invalid fault "boom:1"');
    expect(k.code).toBe(1);
    expect(k.stderr).toContain('2 --api-key but 3 --account');
    for (const [i, bad] of bads.entries()) {
      const u = urls[i];
      expect([bad, u.code]).toEqual([bad, 1]);
      expect(u.stderr).toContain('--public-url must');
      expect(u.stderr).not.toContain('u:p@');
    }
  });
});
