import { describe, expect, it } from 'vitest';
import { tcpBody, testServer } from './client.js';

describe('snippets', () => {
  it('CRUD with integer ids never reused, PUT replaces, 404 after delete', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/snippets', { name: 'setup', script: 'x()', id: 77 });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ id: 1, name: 'setup', script: 'x()', created_at: a.body.created_at, updated_at: null });
    expect((await t.call('POST', '/v1/snippets', { name: 'setup', script: '' })).body.attributes.keys).toEqual(['script']);
    const u = await t.call('PUT', '/v1/snippets/1', { name: 'renamed', script: 'y()' });
    expect(u.body).toMatchObject({ id: 1, name: 'renamed', script: 'y()' });
    expect((await t.call('PUT', '/v1/snippets/1', { name: 'renamed' })).body.attributes.keys).toEqual(['script']);
    expect((await t.call('DELETE', '/v1/snippets/1')).status).toBe(204);
    expect((await t.call('GET', '/v1/snippets/1')).status).toBe(404);
    expect((await t.call('POST', '/v1/snippets', { name: 'b', script: 'z' })).body.id).toBe(2);
    // Counters are service-wide: another account continues the sequence.
    expect((await t.call('POST', '/v1/snippets', { name: 'c', script: 'z' }, { key: 'other-key' })).body.id).toBe(3);
  });
});

describe('variables', () => {
  it('POST 201 echoes, existing key 409, secret read back null, strict PUT replaces, secret is one-way', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/variables', { key: 'API_TOKEN', value: 's3cret', secret: true });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ key: 'API_TOKEN', value: 's3cret', locked: false, secret: true });
    const dup = await t.call('POST', '/v1/variables', { key: 'API_TOKEN', value: 'x' });
    expect(dup.body).toEqual({ statusCode: 409, error: 'Conflict', message: 'Variable "API_TOKEN" already exists' });
    expect((await t.call('GET', '/v1/variables/API_TOKEN')).body.value).toBeNull();
    expect((await t.call('GET', '/v1/variables')).body[0].value).toBeNull();
    for (const [body, key] of [[{ key: 'a b', value: 'x' }, 'key'], [{ key: 'A', value: '' }, 'value'], [{ key: 'x/y', value: 'v' }, 'key']] as const) {
      expect((await t.call('POST', '/v1/variables', body)).body.attributes.keys).toEqual([key]);
    }
    expect((await t.call('PUT', '/v1/variables/API_TOKEN', { value: 'n', secret: false })).body.attributes.keys).toEqual(['secret']);
    expect((await t.call('PUT', '/v1/variables/API_TOKEN', { value: 'n', key: 'OTHER' })).body.attributes.keys).toEqual(['key']);
    expect((await t.call('PUT', '/v1/variables/API_TOKEN', { value: 'n', created_at: 'x' })).body.attributes.keys).toEqual(['created_at']);
    const kept = await t.call('PUT', '/v1/variables/API_TOKEN', { value: 'n2' });
    expect(kept.body).toMatchObject({ value: 'n2', secret: true, locked: false });
    await t.call('POST', '/v1/variables', { key: 'PLAIN', value: 'v', locked: true });
    expect((await t.call('PUT', '/v1/variables/PLAIN', { value: 'w' })).body.locked).toBe(false);
    expect((await t.call('GET', '/v1/variables/PLAIN')).body.value).toBe('w');
    expect((await t.call('PUT', '/v1/variables/MISSING', { value: 'w' })).status).toBe(404);
    expect((await t.call('DELETE', '/v1/variables/PLAIN')).status).toBe(204);
    expect((await t.call('GET', '/v1/variables/PLAIN')).status).toBe(404);
  });
});

describe('alert channels', () => {
  it('config per type with defaults; unknown config keys stripped; SLACK_APP and bad configs 400', async () => {
    const t = testServer();
    const w = await t.call('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: 'https://example.com/h', headers: [{ key: 'a', value: 'b' }], extra: 1 } });
    expect(w.status).toBe(201);
    expect(w.body).toMatchObject({
      id: 1, type: 'WEBHOOK', sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false, subscriptions: [],
      config: { name: 'hook', url: 'https://example.com/h', method: 'POST', template: '', headers: [{ key: 'a', value: 'b', locked: false }], queryParameters: [], webhookSecret: null, webhookType: null },
    });
    expect(w.body.config).not.toHaveProperty('extra');
    const cases: Array<[unknown, string]> = [
      [{ type: 'SLACK_APP', config: {} }, 'type'],
      [{ type: 'EMAIL', config: { address: 'not-an-address' } }, 'config.address'],
      [{ type: 'SMS', config: { number: '0151', name: 'n' } }, 'config.number'],
      [{ type: 'CALL', config: { number: '+4915112345678' } }, 'config.name'],
      [{ type: 'OPSGENIE', config: { apiKey: 'k', region: 'APAC' } }, 'config.region'],
      [{ type: 'PAGERDUTY', config: {} }, 'config.serviceKey'],
      [{ type: 'SLACK', config: { url: 'https://hooks.example.com/x' }, sslExpiryThreshold: 31 }, 'sslExpiryThreshold'],
      [{ type: 'EMAIL', config: { address: 'a@example.com' }, subscriptions: [{ activated: true }] }, 'subscriptions.0'],
      [{ type: 'EMAIL', config: { address: 'a@example.com' }, subscriptions: [{ checkId: 'nope', activated: true }] }, 'subscriptions.0.checkId'],
    ];
    for (const [body, key] of cases) expect((await t.call('POST', '/v1/alert-channels', body)).body.attributes?.keys, JSON.stringify(body)).toContain(key);
  });

  it('subscriptions: body list replaces, PUT .../subscriptions upserts one item, shared with checks', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody())).body;
    const g = (await t.call('POST', '/v1/check-groups', { name: 'g' })).body;
    const ch = (await t.call('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@example.com' }, subscriptions: [{ checkId: c.id, activated: true }, { groupId: g.id, activated: false }] })).body;
    expect(ch.subscriptions).toEqual([
      { id: 1, checkId: c.id, groupId: null, activated: true },
      { id: 2, checkId: null, groupId: g.id, activated: false },
    ]);
    expect((await t.call('GET', `/v1/checks/${c.id}`)).body.alertChannelSubscriptions).toEqual([{ alertChannelId: ch.id, activated: true }]);
    const item = await t.call('PUT', `/v1/alert-channels/${ch.id}/subscriptions`, { checkId: c.id, activated: false });
    expect(item.body).toEqual({ id: 1, checkId: c.id, groupId: null, activated: false });
    expect((await t.call('GET', `/v1/checks/${c.id}`)).body.alertChannels.email).toEqual([]);
    expect((await t.call('PUT', `/v1/alert-channels/${ch.id}/subscriptions`, { checkId: c.id, groupId: g.id, activated: true })).status).toBe(400);
    expect((await t.call('PUT', `/v1/alert-channels/99/subscriptions`, { checkId: c.id, activated: true })).status).toBe(404);
    // PUT replaces the channel but leaves subscriptions alone when the body has none.
    const put = await t.call('PUT', `/v1/alert-channels/${ch.id}`, { type: 'EMAIL', config: { address: 'b@example.com' } });
    expect(put.body).toMatchObject({ config: { address: 'b@example.com' }, sendDegraded: false });
    expect(put.body.subscriptions).toHaveLength(2);
    // What a GET reads back can be PUT as it is: the null of the other key means absent.
    const readBack = (await t.call('GET', `/v1/alert-channels/${ch.id}`)).body;
    const again = await t.call('PUT', `/v1/alert-channels/${ch.id}`, { type: readBack.type, config: readBack.config, subscriptions: readBack.subscriptions.map(({ id: _id, ...rest }: { id: number }) => rest) });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.subscriptions.map(({ id: _id, ...rest }: { id: number }) => rest)).toEqual([
      { checkId: c.id, groupId: null, activated: false },
      { checkId: null, groupId: g.id, activated: false },
    ]);
    expect((await t.call('PUT', `/v1/alert-channels/${ch.id}/subscriptions`, { checkId: null, groupId: null, activated: true })).status).toBe(400);
    expect((await t.call('PUT', `/v1/alert-channels/${ch.id}`, { type: 'EMAIL', config: { address: 'b@example.com' }, subscriptions: [] })).body.subscriptions).toEqual([]);
    expect((await t.call('PUT', `/v1/alert-channels/${ch.id}`, { type: 'SLACK', config: { url: 'https://x.example.com' } })).body.attributes.keys).toEqual(['type']);
    expect((await t.call('DELETE', `/v1/alert-channels/${ch.id}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/alert-channels/${ch.id}`)).status).toBe(404);
  });
});

describe('check groups and triggers', () => {
  it('create with defaults, merge PUT, 409 while checks are in it, trigger 201 then 200', async () => {
    const t = testServer();
    const g = await t.call('POST', '/v1/check-groups', { name: 'payments' });
    expect(g.body).toMatchObject({ id: 1, name: 'payments', activated: true, muted: false, tags: [], locations: [], concurrency: 3, updated_at: null });
    expect((await t.call('PUT', '/v1/check-groups/1', { muted: true })).body).toMatchObject({ name: 'payments', muted: true });
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody({ groupId: 1 }))).body;
    const busy = await t.call('DELETE', '/v1/check-groups/1');
    expect(busy.status).toBe(409);
    const tr = await t.call('POST', '/v1/triggers/check-groups/1', { ignored: true }, { headers: { 'content-type': 'text/plain' } });
    expect(tr.status).toBe(201);
    expect(tr.body).toMatchObject({ id: 1, groupId: 1, called_at: null, updated_at: null });
    expect(tr.body.token).toMatch(/^[0-9a-f]{32}$/);
    const again = await t.call('POST', '/v1/triggers/check-groups/1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(tr.body);
    expect((await t.call('GET', '/v1/triggers/check-groups/1')).body).toEqual(tr.body);
    expect((await t.call('POST', '/v1/triggers/check-groups/9')).status).toBe(404);
    expect((await t.call('POST', '/v1/triggers/check-groups/x')).status).toBe(400);
    await t.call('PUT', `/v1/checks/tcp/${c.id}`, { groupId: null });
    expect((await t.call('DELETE', '/v1/check-groups/1')).status).toBe(204);
    expect((await t.call('GET', '/v1/triggers/check-groups/1')).status).toBe(404);
  });
});

describe('private locations', () => {
  it('create with a key shown raw once, slug rules, 409 duplicate and in use, keys endpoint 18', async () => {
    const t = testServer();
    const pl = await t.call('POST', '/v1/private-locations', { name: 'Office', slugName: 'office' });
    expect(pl.status).toBe(201);
    expect(pl.body).toMatchObject({ name: 'Office', slugName: 'office', icon: 'location', proxyUrl: null });
    const [key] = pl.body.keys;
    expect(key.rawKey).toMatch(/^pl_[0-9a-f]{32}$/);
    expect(key.maskedKey).toBe(`...${key.rawKey.slice(-4)}`);
    const read = (await t.call('GET', `/v1/private-locations/${pl.body.id}`)).body;
    expect(read.keys[0]).not.toHaveProperty('rawKey');
    const list = await t.call('GET', '/v1/private-locations');
    expect(list.headers.get('content-range')).toBe('0-0/1');
    expect(JSON.stringify(list.body)).not.toContain(key.rawKey);
    expect((await t.call('POST', '/v1/private-locations', { name: 'x', slugName: 'office' })).status).toBe(409);
    expect((await t.call('POST', '/v1/private-locations', { name: 'x', slugName: 'office' }, { key: 'other-key' })).status).toBe(201);
    for (const slugName of ['us-east-1', 'has space', 'x'.repeat(31)]) {
      expect((await t.call('POST', '/v1/private-locations', { name: 'x', slugName })).body.attributes.keys).toEqual(['slugName']);
    }
    const k2 = await t.call('POST', `/v1/private-locations/${pl.body.id}/keys`);
    expect(k2.status).toBe(201);
    expect(k2.body.rawKey).toMatch(/^pl_/);
    expect((await t.call('DELETE', `/v1/private-locations/${pl.body.id}/keys/${key.id}`)).status).toBe(204);
    expect((await t.call('DELETE', `/v1/private-locations/${pl.body.id}/keys/${key.id}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/private-locations/${pl.body.id}`)).body.keys.map((k: { id: string }) => k.id)).toEqual([k2.body.id]);
    const put = await t.call('PUT', `/v1/private-locations/${pl.body.id}`, { name: 'HQ', proxyUrl: 'http://proxy.example.com:8080' });
    expect(put.body).toMatchObject({ name: 'HQ', slugName: 'office', icon: 'location', proxyUrl: 'http://proxy.example.com:8080' });
    expect((await t.call('PUT', `/v1/private-locations/${pl.body.id}`, { name: 'HQ', slugName: 'other' })).body.attributes.keys).toEqual(['slugName']);
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody({ privateLocations: ['office'] }))).body;
    expect((await t.call('DELETE', `/v1/private-locations/${pl.body.id}`)).status).toBe(409);
    await t.call('DELETE', `/v1/checks/${c.id}`);
    expect((await t.call('DELETE', `/v1/private-locations/${pl.body.id}`)).status).toBe(204);
  });
});

describe('dashboards', () => {
  it('defaults, generated customUrl, global uniqueness, private key shown once, merge PUT', async () => {
    const t = testServer();
    expect((await t.call('POST', '/v1/dashboards', {})).body.attributes.keys).toEqual(['header']);
    const d = await t.call('POST', '/v1/dashboards', { header: 'Status' });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({
      id: 1, header: 'Status', width: 'FULL', refreshRate: 60, paginate: true, paginationRate: 60, checksPerPage: 15,
      useTagsAndOperator: false, hideTags: false, enableIncidents: false, expandChecks: false, isPrivate: false,
      showCheckRunLinks: false, showHeader: true, showP95: true, showP99: true, tags: [], customCSS: '',
      customDomain: null, logo: null, favicon: null, link: null, description: null, keys: [],
    });
    expect(d.body.customUrl).toBe(`dashboard-${d.body.dashboardId.slice(0, 8)}`);
    for (const [body, key] of [[{ header: 'h', customUrl: '-bad' }, 'customUrl'], [{ header: 'h', refreshRate: 30 }, 'refreshRate'], [{ header: 'h', checksPerPage: 21 }, 'checksPerPage'], [{ header: 'h', width: 'HALF' }, 'width']] as const) {
      expect((await t.call('POST', '/v1/dashboards', body)).body.attributes.keys).toEqual([key]);
    }
    await t.call('POST', '/v1/dashboards', { header: 'h', customUrl: 'shop-status', customDomain: 'status.shop.example' });
    expect((await t.call('POST', '/v1/dashboards', { header: 'h', customUrl: 'shop-status' }, { key: 'other-key' })).status).toBe(409);
    expect((await t.call('POST', '/v1/dashboards', { header: 'h', customDomain: 'status.shop.example' }, { key: 'other-key' })).status).toBe(409);
    const priv = await t.call('PUT', `/v1/dashboards/${d.body.dashboardId}`, { isPrivate: true });
    expect(priv.body.header).toBe('Status');
    expect(priv.body.keys).toHaveLength(1);
    expect(priv.body.keys[0].rawKey).toMatch(/^dk_[0-9a-f]{32}$/);
    const again = await t.call('PUT', `/v1/dashboards/${d.body.dashboardId}`, { isPrivate: false });
    expect(again.body.keys).toHaveLength(1);
    expect(again.body.keys[0]).not.toHaveProperty('rawKey');
    expect((await t.call('GET', `/v1/dashboards/${d.body.dashboardId}`)).body.keys[0]).not.toHaveProperty('rawKey');
    expect((await t.call('GET', '/v1/dashboards')).headers.get('content-range')).toBe('0-1/2');
    expect((await t.call('PUT', `/v1/dashboards/${d.body.dashboardId}`, { customUrl: 'shop-status' })).status).toBe(409);
    expect((await t.call('DELETE', `/v1/dashboards/${d.body.dashboardId}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/dashboards/${d.body.dashboardId}`)).status).toBe(404);
  });
});

describe('accounts', () => {
  it('GET /v1/accounts/me names the key account', async () => {
    const t = testServer();
    expect((await t.call('GET', '/v1/accounts/me')).body).toEqual({ id: 'dev', name: 'dev', runtimeId: '2025.04' });
    expect((await t.call('GET', '/v1/accounts/me', undefined, { key: 'other-key' })).body.id).toBe('other');
  });
});
