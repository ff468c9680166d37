import { afterEach, describe, expect, it } from 'vitest';
import { testServer, type TestClient } from './client.js';
import { TEST_STORE, testStateFile } from '../../helpers/store-mode.js';

/** Pages rendered at each request (no cache, no rate limit): every visit looks its page up. */
const uncached = { pageCacheSeconds: 0, pageRateLimit: { limit: 0, windowSeconds: 60 } };
const open: TestClient[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.server.close();
});

const visit = async (t: TestClient, path: string) => (await t.server.request(`http://127.0.0.1:4010${path}`)).status;

describe('public pages looked up by address', () => {
  it('find their page from memory while the kind is unchanged, and see each change of this instance at once', async () => {
    const t = testServer(uncached);
    open.push(t);
    expect((await t.call('POST', '/v1/dashboards', { customUrl: 'ops', header: 'Ops' })).status).toBe(201);
    expect((await t.call('POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [] })).status).toBe(201);
    const calls: string[] = [];
    t.server.ctx.store.observeCalls((op) => calls.push(op));
    expect(await visit(t, '/dashboards/ops')).toBe(200);
    expect(await visit(t, '/status/shop')).toBe(200);
    calls.length = 0;
    for (let i = 0; i < 3; i++) {
      expect(await visit(t, '/dashboards/ops')).toBe(200);
      expect(await visit(t, '/status/shop/badge.svg')).toBe(200);
      expect(await visit(t, '/dashboards/nothing')).toBe(404);
    }
    // No scan of every account's pages, and on a shared database no read that holds the event loop.
    expect(calls.filter((op) => op === 'everywhere' || op === 'everywhereAsync')).toEqual([]);
    if (TEST_STORE === 'postgres') expect(calls.filter((op) => !/Async$|^followVersions$|^followedVersion$|^entriesFollowed$|^getFollowed$/.test(op))).toEqual([]);

    // This instance's writes are seen by the next visit.
    const d = (await t.call('POST', '/v1/dashboards', { customUrl: 'new', header: 'New' })).body;
    expect(await visit(t, '/dashboards/new')).toBe(200);
    expect((await t.call('PUT', `/v1/dashboards/${d.dashboardId}`, { customUrl: 'renamed', header: 'New' })).status).toBe(200);
    expect(await visit(t, '/dashboards/new')).toBe(404);
    expect(await visit(t, '/dashboards/renamed')).toBe(200);
    expect((await t.call('DELETE', `/v1/dashboards/${d.dashboardId}`)).status).toBe(204);
    expect(await visit(t, '/dashboards/renamed')).toBe(404);
  });

  it.runIf(TEST_STORE === 'postgres')('see what another instance on the database wrote at the next visit', async () => {
    const database = testStateFile();
    const a = testServer({ ...uncached, stateFile: database });
    const b = testServer({ ...uncached, stateFile: database });
    open.push(a, b);
    expect((await a.call('POST', '/v1/dashboards', { customUrl: 'ops', header: 'Ops' })).status).toBe(201);
    expect(await visit(b, '/dashboards/ops')).toBe(200);
    const d = (await a.call('POST', '/v1/dashboards', { customUrl: 'later', header: 'Later' })).body;
    expect(await visit(b, '/dashboards/later')).toBe(200);
    expect((await a.call('PUT', `/v1/dashboards/${d.dashboardId}`, { customUrl: 'moved', header: 'Moved' })).status).toBe(200);
    expect(await visit(b, '/dashboards/later')).toBe(404);
    const page = await b.server.request('http://127.0.0.1:4010/dashboards/moved');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Moved');
  });
});
