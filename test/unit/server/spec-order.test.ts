import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient } from './client.js';
import { seedWorld, type World } from './world.js';

const MISSING = '00000000-0000-4000-8000-000000000000';
const NOT_FOUND = { statusCode: 404, error: 'Not Found', message: 'Not Found' };

// Every write with a body, on a missing id, with a body that fails validation.
const BAD_BODY_ON_MISSING: Array<[string, string, unknown]> = [
  ['PUT', `/v1/checks/tcp/${MISSING}`, { request: { hostname: 'h' } }],
  ['PUT', `/v1/checks/dns/${MISSING}`, { script: 'x' }],
  ['PUT', `/v1/checks/multistep/${MISSING}`, { script: '' }],
  ['PUT', `/v1/checks/heartbeat/${MISSING}`, { heartbeat: { period: 0 } }],
  ['PUT', `/v1/dashboards/${MISSING}`, { checksPerPage: 99 }],
  ['PUT', '/v1/snippets/999', { name: '' }],
  ['PUT', '/v1/variables/NOPE', { value: '' }],
  ['PUT', '/v1/alert-channels/999', { type: 'FAX' }],
  ['PUT', '/v1/alert-channels/999/subscriptions', { activated: 'yes' }],
  ['PUT', '/v1/check-groups/999', { name: 7 }],
  ['PUT', `/v1/private-locations/${MISSING}`, { name: '' }],
  ['PUT', `/v1/status-pages/${MISSING}`, { name: 'n' }],
  ['PUT', `/v1/status-pages/services/${MISSING}`, {}],
  ['PUT', `/v1/status-pages/incidents/${MISSING}`, { severity: 'HUGE' }],
  ['PATCH', `/v1/status-pages/incidents/${MISSING}`, { services: [] }],
  ['POST', `/v1/status-pages/incidents/${MISSING}/incident-updates`, {}],
  ['PUT', `/v1/status-pages/incidents/${MISSING}/incident-updates/${MISSING}`, { status: 'DONE' }],
  ['POST', `/v1/status-pages/${MISSING}/subscriptions/bulk`, { subscriptions: [] }],
  ['PATCH', `/v1/error-groups/${MISSING}`, { archiveForEver: 1 }],
];

describe('order of checks (api-decisions §1.1)', () => {
  // The 38 cases below write nothing (each is refused before any lookup): one service answers
  // them all, where a service per case cost a database and a connection each on SQLite and
  // PostgreSQL (the store matrix).
  let shared: TestClient;
  beforeAll(() => {
    shared = testServer();
  });
  afterAll(() => shared.server.close());

  it.each(BAD_BODY_ON_MISSING)('validation precedes lookup: %s %s with a bad body -> 400', async (method, path, body) => {
    const t = shared;
    const a = await t.call(method, path, body);
    expect(a.status, JSON.stringify(a.body)).toBe(400);
    expect(a.body.attributes.source).toBe('payload');
  });

  it.each(BAD_BODY_ON_MISSING)('role precedes everything after routing: a read-only key on %s %s -> 403', async (method, path) => {
    const t = shared;
    const a = await t.call(method, path, undefined, { key: 'reader-key', raw: '{not json' });
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'This API key may only read' });
  });

  it('token 401 -> account 401 -> rate limit 429 -> route 404 -> role 403 -> size 413 -> type 415 -> JSON 400', async () => {
    const t = testServer({ rateLimit: { limit: 1, windowSeconds: 60 } });
    const big = 'x'.repeat(1024 * 1024 + 1);
    // Unknown route without a key: 401; with a foreign account header: 401.
    expect((await t.call('PUT', '/v1/nothing', undefined, { key: null })).status).toBe(401);
    expect((await t.call('PUT', '/v1/nothing', undefined, { headers: { 'x-service-account': 'other' } })).status).toBe(401);
    // A read-only key on an unknown route: 404, not 403 (the first counted request of this key).
    expect((await t.call('POST', '/v1/nothing', undefined, { key: 'reader-key', raw: big })).status).toBe(404);
    // The limit of 1 is used up: even an unknown route is 429 now.
    expect((await t.call('POST', '/v1/nothing', undefined, { key: 'reader-key' })).status).toBe(429);
    const u = testServer();
    expect((await u.call('POST', '/v1/snippets', undefined, { key: 'reader-key', raw: big, headers: { 'content-type': 'text/plain' } })).status).toBe(403);
    expect((await u.call('POST', '/v1/snippets', undefined, { raw: big, headers: { 'content-type': 'text/plain' } })).status).toBe(413);
    expect((await u.call('POST', '/v1/snippets', undefined, { raw: '{bad', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await u.call('POST', '/v1/snippets', undefined, { raw: '{bad' })).status).toBe(400);
    // Params before query before body: a malformed id with a bad body names the params.
    expect((await u.call('PUT', '/v1/snippets/abc', { name: '' })).body.attributes.source).toBe('params');
  });

  it('lookup precedes reference rules and conflicts: a missing id answers 404 even when the body would conflict or refer to nothing', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    const cases: Array<[string, string, unknown]> = [
      ['PUT', `/v1/status-pages/${MISSING}`, { name: 'n', url: w.page.url, cards: [] }],
      ['PUT', `/v1/status-pages/${MISSING}`, { name: 'n', url: 'free', cards: [{ name: 'c', services: [{ id: MISSING }] }] }],
      ['PUT', `/v1/status-pages/incidents/${MISSING}`, { services: [{ id: MISSING }] }],
      ['PATCH', `/v1/status-pages/incidents/${MISSING}`, { services: [{ id: MISSING }] }],
      ['PUT', `/v1/dashboards/${MISSING}`, { customUrl: w.dashboard.customUrl }],
      ['PUT', `/v1/checks/tcp/${MISSING}`, { groupId: 999 }],
    ];
    for (const [method, path, body] of cases) {
      const a = await t.call(method, path, body);
      expect([method, path, a.status, a.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
  });

  it('a body on DELETE and endpoints 18/19 is ignored unread', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    const junk = { raw: '{not json', headers: { 'content-type': 'text/plain' } };
    // (A GET with a body cannot be built in process; DELETE stands for the body-less methods.)
    expect((await t.call('POST', `/v1/private-locations/${w.location.id}/keys`, undefined, junk)).status).toBe(201);
    expect((await t.call('POST', `/v1/triggers/check-groups/${w.group.id}`, undefined, junk)).status).toBe(200);
    expect((await t.call('DELETE', `/v1/snippets/${w.snippet.id}`, undefined, junk)).status).toBe(204);
  });
});

/** Item paths of every resource kind of `w`, with the methods that address it. */
function itemPaths(w: World): Array<[string, string, unknown?]> {
  return [
    ['GET', `/v1/checks/${w.check.id}`],
    ['PUT', `/v1/checks/tcp/${w.check.id}`, { name: 'x' }],
    ['PUT', `/v1/checks/dns/${w.dns.id}`, { name: 'x' }],
    ['PUT', `/v1/checks/heartbeat/${w.heartbeat.id}`, { name: 'x' }],
    ['PUT', `/v1/checks/${w.check.id}`, { name: 'x' }],
    ['DELETE', `/v1/checks/${w.check.id}`],
    ['GET', `/v1/snippets/${w.snippet.id}`],
    ['PUT', `/v1/snippets/${w.snippet.id}`, { name: 'a', script: 'b' }],
    ['DELETE', `/v1/snippets/${w.snippet.id}`],
    ['GET', `/v1/variables/${w.variable.key}`],
    ['PUT', `/v1/variables/${w.variable.key}`, { value: 'x' }],
    ['DELETE', `/v1/variables/${w.variable.key}`],
    ['GET', `/v1/alert-channels/${w.channel.id}`],
    ['PUT', `/v1/alert-channels/${w.channel.id}`, { type: 'EMAIL', config: { address: 'x@example.com' } }],
    ['PUT', `/v1/alert-channels/${w.channel.id}/subscriptions`, { checkId: w.check.id, activated: true }],
    ['DELETE', `/v1/alert-channels/${w.channel.id}`],
    ['GET', `/v1/check-groups/${w.group.id}`],
    ['PUT', `/v1/check-groups/${w.group.id}`, { name: 'x' }],
    ['DELETE', `/v1/check-groups/${w.group.id}`],
    ['GET', `/v1/triggers/check-groups/${w.group.id}`],
    ['POST', `/v1/triggers/check-groups/${w.group.id}`],
    ['DELETE', `/v1/triggers/check-groups/${w.group.id}`],
    ['GET', `/v1/private-locations/${w.location.id}`],
    ['PUT', `/v1/private-locations/${w.location.id}`, { name: 'x' }],
    ['POST', `/v1/private-locations/${w.location.id}/keys`],
    ['DELETE', `/v1/private-locations/${w.location.id}/keys/${w.location.keys[0].id}`],
    ['DELETE', `/v1/private-locations/${w.location.id}`],
    ['GET', `/v1/dashboards/${w.dashboard.dashboardId}`],
    ['PUT', `/v1/dashboards/${w.dashboard.dashboardId}`, { header: 'x' }],
    ['DELETE', `/v1/dashboards/${w.dashboard.dashboardId}`],
    ['GET', `/v1/status-pages/services/${w.service.id}`],
    ['PUT', `/v1/status-pages/services/${w.service.id}`, { name: 'x' }],
    ['DELETE', `/v1/status-pages/services/${w.service.id}`],
    ['GET', `/v1/status-pages/${w.page.id}`],
    ['PUT', `/v1/status-pages/${w.page.id}`, { name: 'x', url: 'elsewhere', cards: [] }],
    ['DELETE', `/v1/status-pages/${w.page.id}`],
    ['GET', `/v1/status-pages/${w.page.id}/subscriptions`],
    ['POST', `/v1/status-pages/${w.page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'b@example.com' }] }],
    ['DELETE', `/v1/status-pages/${w.page.id}/subscriptions/${w.subscription.id}`],
    ['GET', `/v1/status-pages/incidents/${w.incident.id}`],
    ['PUT', `/v1/status-pages/incidents/${w.incident.id}`, { name: 'x' }],
    ['PATCH', `/v1/status-pages/incidents/${w.incident.id}`, { name: 'x' }],
    ['DELETE', `/v1/status-pages/incidents/${w.incident.id}`],
    ['GET', `/v1/status-pages/incidents/${w.incident.id}/incident-updates`],
    ['POST', `/v1/status-pages/incidents/${w.incident.id}/incident-updates`, { description: 'x' }],
    ['GET', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`],
    ['PUT', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`, { description: 'x' }],
    ['PATCH', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`, { description: 'x' }],
    ['DELETE', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`],
    ['GET', `/v1/check-results/${w.check.id}`],
    ['GET', `/v1/check-results/${w.check.id}/${w.result.id}`],
    ['GET', `/v1/check-sessions/${w.session.checkSessionId}`],
    ['GET', `/v1/checks/heartbeats/${w.heartbeat.id}/events`],
    ['GET', `/v1/analytics/url-monitors/${w.check.id}?metrics=availability`],
    ['GET', `/v1/error-groups/${w.errorGroup.id}`],
    ['PATCH', `/v1/error-groups/${w.errorGroup.id}`, { archiveForEver: true }],
    ['GET', `/v1/error-groups/checks/${w.check.id}`],
  ];
}

describe('cross-account isolation (api-decisions §1.2)', () => {
  it("every resource kind of another account is 404 on read, update and delete, and stays untouched", async () => {
    // A fixed clock, so that the analytics window reads the same before and after.
    const t = testServer({ now: () => Date.parse('2025-03-12T12:00:00.000Z') });
    const w = await seedWorld(t);
    const before = await everything(t, w);
    for (const [method, path, body] of itemPaths(w)) {
      const a = await t.call(method, path, body, { key: 'other-key' });
      expect([method, path, a.status, a.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
    expect(await everything(t, w)).toEqual(before);
    // The other account's lists hold none of it.
    for (const path of ['/v1/checks', '/v1/snippets', '/v1/variables', '/v1/alert-channels', '/v1/check-groups', '/v1/private-locations', '/v1/dashboards', '/v1/alert-notifications']) {
      expect([path, (await t.call('GET', path, undefined, { key: 'other-key' })).body]).toEqual([path, []]);
    }
    for (const path of ['/v1/status-pages', '/v1/status-pages/services', '/v1/status-pages/incidents']) {
      expect([path, (await t.call('GET', path, undefined, { key: 'other-key' })).body]).toEqual([path, { length: 0, entries: [], nextId: null }]);
    }
  });
});

async function everything(t: TestClient, w: World) {
  const out: unknown[] = [];
  for (const [method, path] of itemPaths(w)) if (method === 'GET') out.push((await t.call('GET', path)).body);
  return out;
}

// Every page-based list (api-decisions §1.4), the cursor lists and the paged analytics.
function pagedLists(w: World): Array<[string, 'page' | 'cursor']> {
  return [
    ['/v1/checks', 'page'],
    ['/v1/check-groups', 'page'],
    ['/v1/snippets', 'page'],
    ['/v1/variables', 'page'],
    ['/v1/alert-channels', 'page'],
    ['/v1/dashboards', 'page'],
    [`/v1/check-results/${w.check.id}`, 'page'],
    [`/v1/error-groups/checks/${w.check.id}`, 'page'],
    ['/v1/alert-notifications', 'page'],
    [`/v1/analytics/url-monitors/${w.check.id}?metrics=availability`, 'page'],
    ['/v1/status-pages', 'cursor'],
    ['/v1/status-pages/services', 'cursor'],
    ['/v1/status-pages/incidents', 'cursor'],
  ];
}

describe('pagination bounds on every paged list', () => {
  it('limit 0, 101, -1, 1.5, 1e1 or empty and page 0, -1, 1.5 or x are 400 (source query); 1 and 100 are fine', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    for (const [path, kind] of pagedLists(w)) {
      const sep = path.includes('?') ? '&' : '?';
      const bad = ['limit=0', 'limit=101', 'limit=-1', 'limit=1.5', 'limit=1e1', 'limit=', ...(kind === 'page' ? ['page=0', 'page=-1', 'page=1.5', 'page=x'] : [])];
      for (const q of bad) {
        const a = await t.call('GET', `${path}${sep}${q}`);
        expect([path, q, a.status, a.body.attributes?.source]).toEqual([path, q, 400, 'query']);
      }
      for (const q of ['limit=1', 'limit=100', ...(kind === 'page' ? ['page=1&limit=100', 'page=999'] : [])]) {
        const a = await t.call('GET', `${path}${sep}${q}`);
        expect([path, q, a.status]).toEqual([path, q, 200]);
      }
    }
  });

  it('page-based lists carry content-range, */total past the end', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    for (const [path, kind] of pagedLists(w)) {
      if (kind !== 'page' || path.includes('analytics')) continue;
      const all = await t.call('GET', path);
      const total = all.body.length;
      expect([path, all.headers.get('content-range')]).toEqual([path, total === 0 ? '*/0' : `0-${total - 1}/${total}`]);
      expect([path, (await t.call('GET', `${path}?page=999`)).headers.get('content-range')]).toEqual([path, `*/${total}`]);
    }
  });
});

describe('children under the wrong parent (api-decisions §5.8)', () => {
  it('an update of another incident, a subscription of another page and a result of another check are 404', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    const otherIncident = (await t.call('POST', '/v1/status-pages/incidents', { name: 'Other', severity: 'MINOR', services: [{ id: w.service.id }], incidentUpdates: [{ description: 'x' }] })).body;
    const otherPage = (await t.call('POST', '/v1/status-pages', { name: 'Other', url: 'other', cards: [] })).body;
    for (const [method, path, body] of [
      ['GET', `/v1/status-pages/incidents/${otherIncident.id}/incident-updates/${w.update.id}`],
      ['PUT', `/v1/status-pages/incidents/${otherIncident.id}/incident-updates/${w.update.id}`, { description: 'moved?' }],
      ['PATCH', `/v1/status-pages/incidents/${otherIncident.id}/incident-updates/${w.update.id}`, { description: 'moved?' }],
      ['DELETE', `/v1/status-pages/incidents/${otherIncident.id}/incident-updates/${w.update.id}`],
      ['DELETE', `/v1/status-pages/${otherPage.id}/subscriptions/${w.subscription.id}`],
      ['GET', `/v1/check-results/${w.dns.id}/${w.result.id}`],
    ] as Array<[string, string, unknown?]>) {
      const a = await t.call(method, path, body);
      expect([method, path, a.status, a.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
    expect((await t.call('GET', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`)).body.description).toBe('looking');
    expect((await t.call('GET', `/v1/status-pages/${w.page.id}/subscriptions`)).body).toEqual([w.subscription]);
  });

  it('page subscriptions list as {id, type, address, status, created_at, updated_at}; the last update of an incident is 409', async () => {
    const t = testServer();
    const w = await seedWorld(t);
    expect(Object.keys(w.subscription).sort()).toEqual(['address', 'created_at', 'id', 'status', 'type', 'updated_at']);
    expect(w.subscription).toMatchObject({ type: 'EMAIL', address: 'a@example.com', status: 'PENDING', updated_at: null });
    const last = await t.call('DELETE', `/v1/status-pages/incidents/${w.incident.id}/incident-updates/${w.update.id}`);
    expect(last.status).toBe(409);
    expect(last.body.error).toBe('Conflict');
  });
});
