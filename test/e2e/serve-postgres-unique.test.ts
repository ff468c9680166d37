import { describe, expect, it } from 'vitest';
import { apiOk, callApi, startServe } from '../helpers/serve.js';
import { pgDatabase } from '../helpers/pg-url.js';

// Service-wide uniqueness rules (status page url and custom domain, dashboard URL and custom
// domain) hold across instances on one PostgreSQL: the commit re-checks them in the database.
// Each case has its database and two instances (the first counts every page): they run at once.
describe.concurrent('uniqueness rules across two instances on one PostgreSQL (built CLI)', () => {
  it('many concurrent creates of status pages with one url through both instances: exactly one succeeds, the others answer 409', async () => {
    const db = pgDatabase();
    // Two accounts: the rule is across every account.
    const a = await startServe(['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-a', '--account', 'acc-a']);
    const b = await startServe(['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-b', '--account', 'acc-b']);
    try {
      const ROUNDS = 12;
      const EACH = 6;
      for (let round = 0; round < ROUNDS; round++) {
        const url = `race-${round}`;
        const answers = await Promise.all(
          Array.from({ length: 2 * EACH }, (_, i) => callApi(i % 2 ? a : b, 'POST', '/v1/status-pages', { name: `p${i}`, url, cards: [] })),
        );
        const statuses = answers.map((r) => r.status).sort();
        expect(statuses.filter((s) => s === 201), `round ${round}: ${statuses.join(',')}`).toHaveLength(1);
        for (const r of answers.filter((x) => x.status !== 201)) {
          expect(r.status).toBe(409);
          expect(r.body).toEqual({ statusCode: 409, error: 'Conflict', message: `Status page url "${url}" is already taken` });
        }
      }
      const pages = [...(await apiOk(a, 'GET', '/v1/status-pages?limit=100')).entries, ...(await apiOk(b, 'GET', '/v1/status-pages?limit=100')).entries];
      expect(pages).toHaveLength(ROUNDS);
      expect(new Set(pages.map((p: { url: string }) => p.url)).size).toBe(ROUNDS);

      // Custom domains and dashboard URLs the same way; a PUT that keeps its own url is no conflict.
      const created = await Promise.all(
        Array.from({ length: 2 * EACH }, (_, i) => callApi(i % 2 ? a : b, 'POST', '/v1/status-pages', { name: `d${i}`, url: `own-${i}`, customDomain: 'status.example.com', cards: [] })),
      );
      expect(created.filter((r) => r.status === 201)).toHaveLength(1);
      expect(created.filter((r) => r.status === 409).map((r) => r.body.message)).toEqual(Array(2 * EACH - 1).fill('Custom domain "status.example.com" is already taken'));
      const page = created.find((r) => r.status === 201)!;
      const owner = page.body.accountId === 'acc-a' ? a : b;
      expect((await callApi(owner, 'PUT', `/v1/status-pages/${page.body.id}`, { name: 'renamed', url: page.body.url, customDomain: 'status.example.com', cards: [] })).status).toBe(200);

      const dashboards = await Promise.all(Array.from({ length: 2 * EACH }, (_, i) => callApi(i % 2 ? a : b, 'POST', '/v1/dashboards', { customUrl: 'ops-board', header: `h${i}` })));
      expect(dashboards.filter((r) => r.status === 201 || r.status === 200), dashboards.map((r) => r.status).join(',')).toHaveLength(1);
      expect(dashboards.filter((r) => r.status === 409).map((r) => r.body.message)).toEqual(Array(2 * EACH - 1).fill('Dashboard URL "ops-board" is already taken'));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 240_000);

  it('custom domains across kinds, accounts and letter cases: of concurrent claims through both instances exactly one succeeds', async () => {
    const db = pgDatabase();
    const a = await startServe(['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-a', '--account', 'acc-a']);
    const b = await startServe(['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-b', '--account', 'acc-b']);
    try {
      for (let round = 0; round < 6; round++) {
        const forms = [`race-${round}.example`, `RACE-${round}.Example`, `race-${round}.example.`, `Race-${round}.EXAMPLE.`];
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => {
            const domain = forms[i % forms.length];
            const via = i % 2 ? a : b;
            return i % 4 < 2
              ? callApi(via, 'POST', '/v1/status-pages', { name: `p${i}`, url: `r${round}-${i}`, customDomain: domain, cards: [] })
              : callApi(via, 'POST', '/v1/dashboards', { header: `d${i}`, customDomain: domain });
          }),
        );
        const statuses = answers.map((r) => r.status);
        expect(statuses.filter((s) => s === 201), `round ${round}: ${statuses.join(',')}`).toHaveLength(1);
        expect(statuses.filter((s) => s === 409), `round ${round}: ${statuses.join(',')}`).toHaveLength(7);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 240_000);
});
