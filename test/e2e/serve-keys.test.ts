import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { runMac } from '../helpers/cli.js';

const keysFile = (content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'mac-keys-')), 'keys.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

async function status(url: string, method: string, path: string, key: string, body?: unknown): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('mac serve --keys FILE', () => {
  it('serves the accounts and roles of the file (with --api-key added), not the dev key', async () => {
    const file = keysFile({ keys: [{ key: 'acme-admin-1111', account: 'acme' }, { key: 'acme-reader-2222', account: 'acme', role: 'read-only' }, { key: 'beta-admin-3333', account: 'beta' }] });
    const s = await startServe(['--keys', file, '--api-key', 'gamma-key-4444', '--account', 'gamma', '--no-runs']);
    try {
      expect(s.log()).toContain('account acme: API key ...2222 (read-only)');
      expect(s.log()).toContain('account gamma: API key ...4444 (admin)');
      expect(s.log()).not.toContain('acme-admin-1111');
      expect(await status(s.url, 'POST', '/v1/snippets', 'acme-admin-1111', { name: 'a', script: 'x' })).toBe(201);
      expect(await status(s.url, 'GET', '/v1/snippets/1', 'acme-reader-2222')).toBe(200);
      expect(await status(s.url, 'POST', '/v1/snippets', 'acme-reader-2222', { name: 'a', script: 'x' })).toBe(403);
      expect(await status(s.url, 'GET', '/v1/snippets/1', 'beta-admin-3333')).toBe(404);
      expect(await status(s.url, 'GET', '/v1/snippets/1', 'gamma-key-4444')).toBe(404);
      expect(await status(s.url, 'GET', '/v1/snippets', 'mac-dev-key')).toBe(401);
    } finally {
      await s.stop();
    }
  });

  it('a bad or missing file is a usage error naming the file and field', async () => {
    const bad = keysFile({ keys: [{ key: 'k', account: 'a', role: 'owner' }] });
    const r = await runMac(['serve', '--port', '0', '--keys', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: keys.0.role`);
    const missing = await runMac(['serve', '--port', '0', '--keys', join(tmpdir(), 'no-such-mac-keys.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ENOENT');
  });
});
