import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './rundata-harness.js';

let h: Harness;
afterEach(async () => h?.server.close());

const theme = (c: string) => Object.fromEntries(
  ['bodyBackgroundColor', 'headerBackgroundColor', 'headerFontColor', 'titleFontColor', 'bodyFontColor', 'bodyFontColorMuted', 'navigationFontColor', 'linkFontColor', 'cardBackgroundColor', 'borderColor', 'primaryButtonBackgroundColor', 'primaryButtonFontColor'].map((k) => [k, c]),
);

async function service(name: string, key?: string) {
  const res = await h.call('POST', '/v1/status-pages/services', { name }, key);
  expect(res.status).toBe(201);
  return res.body;
}

describe('services', () => {
  it('creates, lists by cursor newest first, replaces and deletes', async () => {
    h = harness();
    const empty = await h.call('GET', '/v1/status-pages/services');
    expect(empty.body).toEqual({ length: 0, entries: [], nextId: null });
    const a = await service('API');
    expect(a).toMatchObject({ name: 'API', accountId: 'dev', updated_at: null });
    h.clock.now += 1000;
    const b = await service('Web');
    h.clock.now += 1000;
    const c = await service('DB');
    const first = await h.call('GET', '/v1/status-pages/services?limit=2');
    expect(first.body).toMatchObject({ length: 2, nextId: a.id });
    expect(first.body.entries.map((s: any) => s.id)).toEqual([c.id, b.id]);
    const rest = await h.call('GET', `/v1/status-pages/services?limit=2&nextId=${first.body.nextId}`);
    expect(rest.body).toMatchObject({ length: 1, nextId: null });
    expect((await h.call('GET', '/v1/status-pages/services?nextId=nope')).status).toBe(400);
    const put = await h.call('PUT', `/v1/status-pages/services/${a.id}`, { name: 'API v2' });
    expect(put.body).toMatchObject({ id: a.id, name: 'API v2', created_at: a.created_at });
    expect(put.body.updated_at).not.toBeNull();
    expect((await h.call('POST', '/v1/status-pages/services', {})).status).toBe(400);
    expect((await h.call('GET', `/v1/status-pages/services/${a.id}`, undefined, 'other-key')).status).toBe(404);
    expect((await h.call('DELETE', `/v1/status-pages/services/${b.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/status-pages/services/${b.id}`)).status).toBe(404);
  });

  it('refuses to delete a service used by a card, an incident or a check trigger', async () => {
    h = harness();
    const onCard = await service('card-svc');
    const onIncident = await service('incident-svc');
    const onCheck = await service('check-svc');
    await h.call('POST', '/v1/status-pages', { name: 'P', url: 'p-1', cards: [{ name: 'C', services: [{ id: onCard.id }] }] });
    await h.call('POST', '/v1/status-pages/incidents', { name: 'I', severity: 'MINOR', services: [{ id: onIncident.id }], incidentUpdates: [{ description: 'd' }] });
    h.seedCheck('dev', { triggerIncident: { serviceId: onCheck.id, severity: 'MAJOR', name: 'n', description: 'd', notifySubscribers: false } });
    for (const s of [onCard, onIncident, onCheck]) {
      const res = await h.call('DELETE', `/v1/status-pages/services/${s.id}`);
      expect([s.name, res.status, res.body.error]).toEqual([s.name, 409, 'Conflict']);
    }
  });
});

describe('status pages', () => {
  it('creates with defaults, expands services, keeps card ids, replaces on PUT and deletes', async () => {
    h = harness();
    const svc = await service('API');
    const created = await h.call('POST', '/v1/status-pages', {
      name: 'Shop status',
      url: 'shop-status',
      cards: [{ id: 'card-main', name: 'Main', services: [{ id: svc.id }] }, { name: 'Other' }],
      themeColors: { light: theme('#fff'), dark: theme('#000000') },
      id: 'ignored',
    });
    expect(created.status).toBe(201);
    const page = created.body;
    expect(page).toMatchObject({
      name: 'Shop status', url: 'shop-status', customDomain: null, logo: null, redirectTo: null, favicon: null,
      defaultTheme: 'AUTO', whiteLabel: false, updated_at: null,
    });
    expect(page.id).not.toBe('ignored');
    expect(page.cards[0]).toMatchObject({ id: 'card-main', name: 'Main', services: [svc] });
    expect(page.cards[1].id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await h.call('GET', `/v1/status-pages/${page.id}`)).body).toEqual(page);

    // PUT replaces: omitted optional fields return to defaults; a kept card keeps created_at.
    const put = await h.call('PUT', `/v1/status-pages/${page.id}`, { name: 'Shop', url: 'shop-status', cards: [{ id: 'card-main', name: 'Main!' }], whiteLabel: true });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Shop', themeColors: null, whiteLabel: true, created_at: page.created_at });
    expect(put.body.cards).toEqual([{ id: 'card-main', name: 'Main!', services: [], created_at: page.cards[0].created_at, updated_at: put.body.updated_at }]);

    const list = await h.call('GET', '/v1/status-pages');
    expect(list.body).toMatchObject({ length: 1, nextId: null });
    expect((await h.call('DELETE', `/v1/status-pages/${page.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/status-pages/${page.id}`)).status).toBe(404);
  });

  it('validates bodies and references', async () => {
    h = harness();
    const bad = async (body: unknown) => {
      const res = await h.call('POST', '/v1/status-pages', body);
      return [res.status, res.body.attributes?.keys];
    };
    expect(await bad({ url: 'x', cards: [] })).toEqual([400, ['name']]);
    expect(await bad({ name: 'n', url: 'x', cards: [], themeColors: { light: theme('#fff') } })).toEqual([400, ['themeColors.dark']]);
    expect(await bad({ name: 'n', url: 'x', cards: [], themeColors: { light: { ...theme('#fff'), borderColor: 'red' }, dark: theme('#000') } })).toEqual([400, ['themeColors.light.borderColor']]);
    const { borderColor: _b, ...eleven } = theme('#fff');
    expect(await bad({ name: 'n', url: 'x', cards: [], themeColors: { light: eleven, dark: theme('#000') } })).toEqual([400, ['themeColors.light.borderColor']]);
    expect(await bad({ name: 'n', url: 'x', cards: [], defaultTheme: 'SEPIA' })).toEqual([400, ['defaultTheme']]);
    expect(await bad({ name: 'n', url: 'x', cards: [{ name: 'c', services: [{ id: 'nope' }] }] })).toEqual([400, ['cards.0.services.0.id']]);
    expect(await bad({ name: 'n', url: 'x', cards: [{ id: 'a', name: 'c' }, { id: 'a', name: 'd' }] })).toEqual([400, ['cards.1.id']]);
    const foreign = await service('theirs', 'other-key');
    expect(await bad({ name: 'n', url: 'x', cards: [{ name: 'c', services: [{ id: foreign.id }] }] })).toEqual([400, ['cards.0.services.0.id']]);
    expect((await h.call('POST', '/v1/status-pages', { name: 'n', url: 'x', cards: [] }, 'ro-key')).status).toBe(403);
  });

  it('keeps url and customDomain unique across accounts', async () => {
    h = harness();
    const mine = await h.call('POST', '/v1/status-pages', { name: 'a', url: 'status', customDomain: 'status.example.com', cards: [] });
    expect(mine.status).toBe(201);
    expect((await h.call('POST', '/v1/status-pages', { name: 'b', url: 'status', cards: [] }, 'other-key')).status).toBe(409);
    expect((await h.call('POST', '/v1/status-pages', { name: 'b', url: 'other', customDomain: 'status.example.com', cards: [] }, 'other-key')).status).toBe(409);
    expect((await h.call('POST', '/v1/status-pages', { name: 'b', url: 'other', cards: [] }, 'other-key')).status).toBe(201);
    // A page may keep its own url on PUT; another account cannot see it.
    expect((await h.call('PUT', `/v1/status-pages/${mine.body.id}`, { name: 'a2', url: 'status', cards: [] })).status).toBe(200);
    expect((await h.call('GET', `/v1/status-pages/${mine.body.id}`, undefined, 'other-key')).status).toBe(404);
  });

  it('manages subscriptions: bulk create with skips, list, delete under the right page only', async () => {
    h = harness();
    const p1 = (await h.call('POST', '/v1/status-pages', { name: 'a', url: 'a', cards: [] })).body;
    const p2 = (await h.call('POST', '/v1/status-pages', { name: 'b', url: 'b', cards: [] })).body;
    expect((await h.call('GET', `/v1/status-pages/${p1.id}/subscriptions`)).body).toEqual([]);
    const bulk = await h.call('POST', `/v1/status-pages/${p1.id}/subscriptions/bulk`, {
      subscriptions: [{ type: 'EMAIL', config: 'ops@example.com' }, { type: 'EMAIL', config: 'OPS@example.com' }, { type: 'EMAIL', config: 'dev@example.com' }],
    });
    expect([bulk.status, bulk.body]).toEqual([201, { created: 2, skipped: 1, status: 'PENDING' }]);
    const again = await h.call('POST', `/v1/status-pages/${p1.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'dev@example.com' }], autoVerify: true });
    expect(again.body).toEqual({ created: 0, skipped: 1, status: 'VERIFIED' });
    const list = await h.call('GET', `/v1/status-pages/${p1.id}/subscriptions`);
    expect(list.headers.get('content-range')).toBe('0-1/2');
    expect(list.body[0]).toEqual({ id: list.body[0].id, type: 'EMAIL', address: 'ops@example.com', status: 'PENDING', created_at: list.body[0].created_at, updated_at: null });
    for (const body of [{ subscriptions: [] }, { subscriptions: [{ type: 'SMS', config: '+1' }] }, { subscriptions: [{ type: 'EMAIL', config: 'not-an-address' }] }]) {
      expect((await h.call('POST', `/v1/status-pages/${p1.id}/subscriptions/bulk`, body)).status).toBe(400);
    }
    const subId = list.body[0].id;
    expect((await h.call('DELETE', `/v1/status-pages/${p2.id}/subscriptions/${subId}`)).status).toBe(404);
    const del = await h.server.request(`/v1/status-pages/${p1.id}/subscriptions/${subId}`, { method: 'DELETE', headers: { authorization: 'Bearer mac-dev-key' } });
    expect([del.status, await del.text()]).toEqual([204, '']);
    expect((await h.call('GET', `/v1/status-pages/${p1.id}/subscriptions`)).body).toHaveLength(1);
    expect((await h.call('GET', `/v1/status-pages/${p1.id}/subscriptions`, undefined, 'other-key')).status).toBe(404);
  });
});

describe('incidents and updates', () => {
  it('creates with exactly one update, merges, adds updates with defaults and guards the last one', async () => {
    h = harness();
    const svc = await service('API');
    const other = await service('Web');
    const bad = async (body: unknown) => (await h.call('POST', '/v1/status-pages/incidents', body)).body.attributes?.keys;
    const base = { name: 'Outage', severity: 'MAJOR', services: [{ id: svc.id }] };
    expect(await bad({ ...base, incidentUpdates: [] })).toEqual(['incidentUpdates']);
    expect(await bad({ ...base, incidentUpdates: [{ description: 'a' }, { description: 'b' }] })).toEqual(['incidentUpdates']);
    expect(await bad({ ...base, services: [], incidentUpdates: [{ description: 'a' }] })).toEqual(['services']);
    expect(await bad({ ...base, severity: 'HUGE', incidentUpdates: [{ description: 'a' }] })).toEqual(['severity']);
    expect(await bad({ ...base, name: 'x'.repeat(256), incidentUpdates: [{ description: 'a' }] })).toEqual(['name']);
    expect(await bad({ ...base, services: [{ id: 'nope' }], incidentUpdates: [{ description: 'a' }] })).toEqual(['services.0.id']);

    const res = await h.call('POST', '/v1/status-pages/incidents', { ...base, incidentUpdates: [{ description: 'Looking', id: 'x', created_at: 'y' }] });
    expect(res.status).toBe(201);
    const inc = res.body;
    expect(inc).toMatchObject({ name: 'Outage', severity: 'MAJOR', services: [svc], lastUpdateStatus: 'INVESTIGATING', updated_at: null });
    expect(inc.incidentUpdates[0]).toMatchObject({ description: 'Looking', status: 'INVESTIGATING', notifySubscribers: false, publicIncidentUpdateDate: new Date(h.clock.now).toISOString() });
    expect(inc.incidentUpdates[0].id).not.toBe('x');

    const merged = await h.call('PATCH', `/v1/status-pages/incidents/${inc.id}`, { severity: 'MINOR', services: [{ id: other.id }] });
    expect(merged.body).toMatchObject({ name: 'Outage', severity: 'MINOR', services: [other] });
    expect((await h.call('PUT', `/v1/status-pages/incidents/${inc.id}`, { name: 'Outage 2' })).body).toMatchObject({ name: 'Outage 2', severity: 'MINOR' });

    const u1 = inc.incidentUpdates[0];
    const add = await h.call('POST', `/v1/status-pages/incidents/${inc.id}/incident-updates`, { description: 'Found it', status: 'IDENTIFIED' });
    expect([add.status, add.body.status]).toEqual([200, 'IDENTIFIED']);
    const add2 = await h.call('POST', `/v1/status-pages/incidents/${inc.id}/incident-updates`, { description: 'Still', notifySubscribers: true });
    expect(add2.body).toMatchObject({ status: 'IDENTIFIED', notifySubscribers: true });
    expect((await h.call('GET', `/v1/status-pages/incidents/${inc.id}`)).body.lastUpdateStatus).toBe('IDENTIFIED');
    const resolved = await h.call('PUT', `/v1/status-pages/incidents/${inc.id}/incident-updates/${add2.body.id}`, { status: 'RESOLVED' });
    expect(resolved.body).toMatchObject({ description: 'Still', status: 'RESOLVED' });
    expect((await h.call('GET', `/v1/status-pages/incidents/${inc.id}`)).body.lastUpdateStatus).toBe('RESOLVED');

    const updates = await h.call('GET', `/v1/status-pages/incidents/${inc.id}/incident-updates`);
    expect([updates.body.length, updates.headers.get('content-range')]).toEqual([3, '0-2/3']);
    expect((await h.call('GET', `/v1/status-pages/incidents/${inc.id}/incident-updates/${u1.id}`)).body).toEqual(u1);
    expect((await h.call('POST', `/v1/status-pages/incidents/${inc.id}/incident-updates`, { status: 'RESOLVED' })).status).toBe(400);
    expect((await h.call('POST', '/v1/status-pages/incidents/nope/incident-updates', { description: 'x' })).status).toBe(404);

    // An update addressed under another incident is not found.
    const inc2 = (await h.call('POST', '/v1/status-pages/incidents', { ...base, incidentUpdates: [{ description: 'x' }] })).body;
    expect((await h.call('GET', `/v1/status-pages/incidents/${inc2.id}/incident-updates/${u1.id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/v1/status-pages/incidents/${inc2.id}/incident-updates/${u1.id}`)).status).toBe(404);
    // The last update cannot go.
    expect((await h.call('DELETE', `/v1/status-pages/incidents/${inc2.id}/incident-updates/${inc2.incidentUpdates[0].id}`)).status).toBe(409);
    expect((await h.call('DELETE', `/v1/status-pages/incidents/${inc.id}/incident-updates/${u1.id}`)).status).toBe(204);
    expect((await h.call('DELETE', `/v1/status-pages/incidents/${inc.id}`)).status).toBe(204);
    expect((await h.call('GET', `/v1/status-pages/incidents/${inc.id}`)).status).toBe(404);
  });

  it('lists the latest 100 incidents by default, newest first, with a cursor', async () => {
    h = harness();
    const svc = await service('API');
    expect((await h.call('GET', '/v1/status-pages/incidents')).body).toEqual({ length: 0, entries: [], nextId: null });
    const ids: string[] = [];
    for (let i = 0; i < 102; i++) {
      h.clock.now += 1000;
      ids.push((await h.call('POST', '/v1/status-pages/incidents', { name: `i${i}`, severity: 'MINOR', services: [{ id: svc.id }], incidentUpdates: [{ description: 'd' }] })).body.id);
    }
    const first = await h.call('GET', '/v1/status-pages/incidents');
    expect(first.body.length).toBe(100);
    expect(first.body.entries[0].id).toBe(ids[101]);
    expect(first.body.nextId).toBe(ids[1]);
    const rest = await h.call('GET', `/v1/status-pages/incidents?nextId=${first.body.nextId}`);
    expect(rest.body.entries.map((i: any) => i.id)).toEqual([ids[1], ids[0]]);
    expect(rest.body.nextId).toBeNull();
    expect((await h.call('GET', '/v1/status-pages/incidents', undefined, 'other-key')).body.length).toBe(0);
  });
});

describe('status-page persistence', () => {
  it('keeps pages, services, incidents and subscriptions across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mac-status-'));
    try {
      const file = join(dir, 'state.jsonl');
      h = harness(file);
      const svc = await service('API');
      const page = (await h.call('POST', '/v1/status-pages', { name: 'a', url: 'a', cards: [{ name: 'c', services: [{ id: svc.id }] }] })).body;
      await h.call('POST', `/v1/status-pages/${page.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'ops@example.com' }] });
      const inc = (await h.call('POST', '/v1/status-pages/incidents', { name: 'I', severity: 'CRITICAL', services: [{ id: svc.id }], incidentUpdates: [{ description: 'd' }] })).body;
      const paths = [`/v1/status-pages/${page.id}`, `/v1/status-pages/${page.id}/subscriptions`, `/v1/status-pages/incidents/${inc.id}`, '/v1/status-pages/services'];
      const before = await Promise.all(paths.map((p) => h.call('GET', p)));
      await h.server.close();
      h = harness(file);
      const after = await Promise.all(paths.map((p) => h.call('GET', p)));
      expect(after.map((r) => [r.status, r.body])).toEqual(before.map((r) => [r.status, r.body]));
      expect((await h.call('POST', '/v1/status-pages', { name: 'b', url: 'a', cards: [] }, 'other-key')).status).toBe(409);
    } finally {
      await h.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
