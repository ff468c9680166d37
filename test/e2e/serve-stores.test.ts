import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, callApi, startServe } from '../helpers/serve.js';
import { pgDatabase } from '../helpers/pg-url.js';

// The smoke of the service on each store, in the main run (the whole serve suite runs on each
// store with MAC_TEST_STORE=sqlite|postgres). The three stores' cases run at once, with a time
// limit that leaves room for the others on a loaded machine.
describe.concurrent.each([
  ['memory', () => [] as string[]],
  ['sqlite', () => ['--database', `sqlite:${join(mkdtempSync(join(tmpdir(), 'mac-smoke-')), 'state.db')}`]],
  ['postgres', () => ['--database', pgDatabase()]],
] as const)('mac serve on %s (built CLI)', { timeout: 180_000 }, (name, database) => {
  it('creates, reads, lists, updates and deletes; keeps it across a restart (databases); kill -9 loses no acknowledged write', async () => {
    const args = [...database(), '--no-runs', '--rate-limit', '0/60'];
    const a = await startServe(args);
    let snippet: any;
    let check: any;
    try {
      expect(a.log()).toContain(name === 'postgres' ? '(PostgreSQL)' : name === 'sqlite' ? '(SQLite)' : 'mac serve listening');
      if (name === 'postgres') expect(a.log()).not.toContain(new URL(args[1]).password);
      snippet = await apiOk(a, 'POST', '/v1/snippets', { name: 'one', script: 'return 1' });
      check = await apiOk(a, 'POST', '/v1/checks/tcp', { name: 'db', request: { hostname: 'db.internal', port: 5432 } });
      await apiOk(a, 'PUT', `/v1/checks/tcp/${check.id}`, { name: 'db2', request: { hostname: 'db.internal', port: 5432 } });
      expect((await apiOk(a, 'GET', '/v1/checks')).map((c: any) => c.name)).toEqual(['db2']);
      const gone = await apiOk(a, 'POST', '/v1/snippets', { name: 'two', script: 'x' });
      expect((await callApi(a, 'DELETE', `/v1/snippets/${gone.id}`)).status).toBe(204);
      expect((await callApi(a, 'GET', `/v1/snippets/${gone.id}`)).status).toBe(404);
    } finally {
      await a.stop('SIGKILL');
    }
    if (name === 'memory') return;
    const b = await startServe(args);
    try {
      expect((await apiOk(b, 'GET', `/v1/snippets/${snippet.id}`)).name).toBe('one');
      expect((await apiOk(b, 'GET', `/v1/checks/${check.id}`)).name).toBe('db2');
      expect((await apiOk(b, 'GET', '/v1/snippets')).map((s: any) => s.name)).toEqual(['one']);
      expect((await apiOk(b, 'POST', '/v1/snippets', { name: 'three', script: 'x' })).id).toBe(snippet.id + 2);
    } finally {
      await b.stop();
    }
  });
});
