import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { apiOk, callApi, startServe } from '../helpers/serve.js';
import { freshDatabaseUrl, startPostgres, type TestPostgres } from '../helpers/postgres.js';

// A PostgreSQL of this file's own (not the run's shared one): it is stopped and started again.
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
});

const until = async (what: () => Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
};

describe('mac serve when PostgreSQL goes away and comes back (built CLI)', () => {
  it('answers 503 with Retry-After while it is down, logs it once, keeps running the scheduler, and recovers without a restart', async () => {
    const db = freshDatabaseUrl(pg.base);
    const password = new URL(db).password;
    // Runs on, 60 times faster, retention's first step soon: the scheduler and the retention hit the outage too.
    const s = await startServe(['--database', db, '--rate-limit', '0/60', '--time-scale', '60', '--retention-days', '1']);
    try {
      const check = await apiOk(s, 'POST', '/v1/checks/tcp', { name: 'db', frequency: 1, request: { hostname: '127.0.0.1', port: 1 } });
      await apiOk(s, 'POST', '/v1/snippets', { name: 'before', script: 'x' });

      await pg.halt();
      const answers = [
        await callApi(s, 'GET', '/v1/checks'),
        await callApi(s, 'GET', `/v1/checks/${check.id}`),
        await callApi(s, 'POST', '/v1/snippets', { name: 'during', script: 'x' }),
        await callApi(s, 'GET', `/v1/check-results/${check.id}`),
      ];
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.headers.get('retry-after')).toBe('5');
        expect(a.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'The database is unavailable; try again shortly' });
        expect(JSON.stringify(a.body)).not.toContain(password);
      }
      // Scheduler ticks (every 50 ms) and requests during the outage: one line, no crash.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await callApi(s, 'GET', '/v1/snippets')).status).toBe(503);

      await pg.resume();
      expect(await until(async () => (await callApi(s, 'GET', '/v1/checks')).status === 200, 15_000)).toBe(true);
      const after = await apiOk(s, 'POST', '/v1/snippets', { name: 'after', script: 'x' });
      expect((await apiOk(s, 'GET', '/v1/snippets')).map((x: { name: string }) => x.name)).toEqual(['before', 'after']);
      expect((await apiOk(s, 'GET', `/v1/snippets/${after.id}`)).name).toBe('after');
      // The scheduler goes on: results of runs after the outage are recorded.
      const recorded = async () => ((await callApi(s, 'GET', `/v1/check-results/${check.id}?limit=100`)).body ?? []).length;
      const seen = await recorded();
      expect(await until(async () => (await recorded()) > seen, 15_000)).toBe(true);

      const log = s.log();
      expect(log.match(/PostgreSQL is unavailable/g)).toHaveLength(1);
      expect(log).toContain('PostgreSQL is available again');
      expect(log).not.toContain('internal error');
      expect(log).not.toContain('run failed');
      expect(log).not.toContain(password);
    } finally {
      await s.stop();
    }
  }, 90_000);

  it('refuses to start, fast and naming no password, when PostgreSQL does not answer', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createTcpServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const url = `postgres://mac:s3cret-pw@127.0.0.1:${port}/mac`;
    const t0 = Date.now();
    const r = await runMac(['serve', '--port', '0', '--no-runs', '--database', url], { timeoutMs: 30_000 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`postgres://mac:***@127.0.0.1:${port}/mac: cannot open the database`);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).toContain('hint: check that PostgreSQL runs');
    expect(r.stderr + r.stdout).not.toContain('s3cret-pw');
  });
});
