import { describe, expect, it } from 'vitest';
import { dnsBody, tcpBody, testServer } from './client.js';

describe('TCP checks', () => {
  it('create applies the defaults of §3.1 and the TCP thresholds and request defaults', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/checks/tcp?autoAssignAlerts=false', tcpBody());
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      name: 'db', checkType: 'TCP', activated: true, muted: false, doubleCheck: true, shouldFail: false,
      locations: [], privateLocations: [], tags: [], useGlobalAlertSettings: true, groupId: null, groupOrder: null,
      runtimeId: null, alertChannelSubscriptions: [], retryStrategy: null, triggerIncident: null, runParallel: false,
      frequency: 10, degradedResponseTime: 3000, maxResponseTime: 5000, updated_at: null,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 0, interval: 5 }, parallelRunFailureThreshold: { enabled: false, percentage: 10 } },
      request: { hostname: 'db.internal', port: 5432, data: null, assertions: [], ipFamily: 'IPv4' },
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
    });
    expect(a.body).not.toHaveProperty('frequencyOffset');
    expect(a.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await t.call('GET', `/v1/checks/${a.body.id}`)).body).toEqual(a.body);
  });

  it('rejects what the spec forbids', async () => {
    const t = testServer();
    const cases: Array<[unknown, string]> = [
      [{ request: { hostname: 'h', port: 1 } }, 'name'],
      [{ name: 'x' }, 'request'],
      [tcpBody({ request: { hostname: 'h', port: 70000 } }), 'request.port'],
      [tcpBody({ request: { hostname: '', port: 1 } }), 'request.hostname'],
      [tcpBody({ frequency: 0 }), 'frequency'],
      [tcpBody({ frequency: 0, frequencyOffset: 15 }), 'frequencyOffset'],
      [tcpBody({ frequency: 5, frequencyOffset: 51 }), 'frequencyOffset'],
      [tcpBody({ frequency: 120, frequencyOffset: 3 }), 'frequencyOffset'],
      [tcpBody({ degradedResponseTime: 5001 }), 'degradedResponseTime'],
      [tcpBody({ groupOrder: -1 }), 'groupOrder'],
      [tcpBody({ locations: ['mars-1'] }), 'locations.0'],
      [tcpBody({ runtimeId: '2020.01' }), 'runtimeId'],
      [tcpBody({ alertSettings: { runBasedEscalation: { failedRunThreshold: 6 } } }), 'alertSettings.runBasedEscalation.failedRunThreshold'],
      [tcpBody({ alertSettings: { reminders: { interval: 7 } } }), 'alertSettings.reminders.interval'],
      [tcpBody({ retryStrategy: { type: 'SINGLE_RETRY', maxRetries: 3 } }), 'retryStrategy.maxRetries'],
      [tcpBody({ retryStrategy: { type: 'FIXED', baseBackoffSeconds: 601 } }), 'retryStrategy.baseBackoffSeconds'],
      [tcpBody({ triggerIncident: { serviceId: 's', severity: 'CRITICAL', name: 'n', description: 'd' } }), 'triggerIncident.notifySubscribers'],
      [tcpBody({ triggerIncident: { serviceId: 's', severity: 'CRITICAL', name: 'n', description: 'd', notifySubscribers: false } }), 'triggerIncident.serviceId'],
      [tcpBody({ request: { hostname: 'h', port: 1, assertions: [{ source: 'BODY', comparison: 'EQUALS', target: '' }] } }), 'request.assertions.0.source'],
      [tcpBody({ request: { hostname: 'h', port: 1, ipFamily: 'IPv5' } }), 'request.ipFamily'],
      [tcpBody({ groupId: 42 }), 'groupId'],
      [tcpBody({ privateLocations: ['nowhere'] }), 'privateLocations.0'],
      [tcpBody({ alertChannelSubscriptions: [{ alertChannelId: 9, activated: true }] }), 'alertChannelSubscriptions.0.alertChannelId'],
      [tcpBody({ checkType: 'DNS' }), 'checkType'],
    ];
    for (const [body, path] of cases) {
      const a = await t.call('POST', '/v1/checks/tcp', body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.body.attributes.keys, JSON.stringify(body)).toContain(path);
    }
    expect(t.server.ctx.store.count('dev', 'checks')).toBe(0);
  });

  it('PUT merges: omitted fields unchanged, [] clears, null sets, a present object replaces with defaults', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody({ tags: ['a', 'b'], request: { hostname: 'h', port: 1, data: 'PING' }, retryStrategy: { type: 'LINEAR' } }))).body;
    const u = await t.call('PUT', `/v1/checks/tcp/${c.id}`, { tags: [], request: { hostname: 'h2', port: 2 }, retryStrategy: null, muted: true });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ name: 'db', tags: [], muted: true, retryStrategy: null, request: { hostname: 'h2', port: 2, data: null, assertions: [], ipFamily: 'IPv4' } });
    expect(u.body.updated_at).not.toBeNull();
    expect(u.body.created_at).toBe(c.created_at);
    // Rules are checked on the merged result: an offset valid for 10 minutes is not for 1.
    await t.call('PUT', `/v1/checks/tcp/${c.id}`, { frequencyOffset: 50 });
    const bad = await t.call('PUT', `/v1/checks/tcp/${c.id}`, { frequency: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.attributes.keys).toEqual(['frequencyOffset']);
    expect((await t.call('PUT', `/v1/checks/tcp/${c.id}`, { request: { hostname: 'h' } })).body.attributes.keys).toEqual(['request.port']);
    expect((await t.call('PUT', `/v1/checks/tcp/00000000-0000-4000-8000-000000000000`, { muted: true })).status).toBe(404);
  });

  it('retryStrategy and alertSettings are completed from their defaults', async () => {
    const t = testServer();
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody({ retryStrategy: { type: 'SINGLE_RETRY' }, alertSettings: { escalationType: 'TIME_BASED' } }))).body;
    expect(c.retryStrategy).toEqual({ type: 'SINGLE_RETRY', baseBackoffSeconds: 60, maxRetries: 1, maxDurationSeconds: 600, sameRegion: true, onlyOn: [] });
    expect(c.alertSettings.timeBasedEscalation).toEqual({ minutesFailingThreshold: 5 });
    expect(c.alertSettings.reminders).toEqual({ amount: 0, interval: 5 });
  });
});

describe('DNS checks', () => {
  it('strict create: any field outside the schema is 400, server-owned ones included', async () => {
    const t = testServer();
    for (const extra of [{ description: 'x' }, { id: 'x' }, { request: { query: 'a.b', recordType: 'A', extra: 1 } }]) {
      const a = await t.call('POST', '/v1/checks/dns', dnsBody(extra));
      expect(a.status).toBe(400);
    }
    for (const missing of ['heartbeat', 'script', 'request']) {
      const body: Record<string, unknown> = dnsBody();
      delete body[missing];
      const a = await t.call('POST', '/v1/checks/dns', body);
      expect(a.body.attributes.errors).toContainEqual({ path: missing, message: 'is required' });
    }
    const bad = await t.call('POST', '/v1/checks/dns', dnsBody({ request: { query: 'a'.repeat(101), recordType: 'PTR' }, heartbeat: { period: 0 } }));
    expect([...bad.body.attributes.keys].sort()).toEqual(['heartbeat.period', 'request.query', 'request.recordType']);
  });

  it('returns the DNS extras with defaults and secrets read back null; frequency 0 with an offset', async () => {
    const t = testServer();
    const snip = (await t.call('POST', '/v1/snippets', { name: 's', script: 'x' })).body;
    const c = await t.call('POST', '/v1/checks/dns', dnsBody({
      frequency: 0, frequencyOffset: 20, setupSnippetId: snip.id,
      environmentVariables: [{ key: 'TOKEN', value: 'abc', secret: true }, { key: 'PLAIN', value: 'p' }],
    }));
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({
      checkType: 'DNS', degradedResponseTime: 500, maxResponseTime: 1000, frequency: 0, frequencyOffset: 20,
      heartbeat: {}, script: '', scriptPath: null, setupSnippetId: snip.id, tearDownSnippetId: null,
      localSetupScript: null, localTearDownScript: null,
      request: { query: 'example.com', recordType: 'A', port: 53, protocol: 'UDP', assertions: [] },
    });
    expect(c.body.environmentVariables[0]).toEqual({ key: 'TOKEN', value: 'abc', secret: true, locked: false });
    const read = (await t.call('GET', `/v1/checks/${c.body.id}`)).body;
    expect(read.environmentVariables).toEqual([{ key: 'TOKEN', value: null, secret: true, locked: false }, { key: 'PLAIN', value: 'p', secret: false, locked: false }]);
    expect((await t.call('GET', '/v1/checks')).body[0].environmentVariables[0].value).toBeNull();
    // Deleting the snippet clears the reference.
    await t.call('DELETE', `/v1/snippets/${snip.id}`);
    expect((await t.call('GET', `/v1/checks/${c.body.id}`)).body.setupSnippetId).toBeNull();
    expect((await t.call('POST', '/v1/checks/dns', dnsBody({ setupSnippetId: 999 }))).body.attributes.keys).toEqual(['setupSnippetId']);
  });

  it('PUT requires name, merges, and refuses a check of another type', async () => {
    const t = testServer();
    const d = (await t.call('POST', '/v1/checks/dns', dnsBody())).body;
    expect((await t.call('PUT', `/v1/checks/dns/${d.id}`, { script: 'x' })).body.attributes.keys).toEqual(['name']);
    const u = await t.call('PUT', `/v1/checks/dns/${d.id}`, { name: 'renamed', heartbeat: { period: 5, periodUnit: 'minutes' } });
    expect(u.body).toMatchObject({ name: 'renamed', script: '', heartbeat: { period: 5, periodUnit: 'minutes' } });
    const wrong = await t.call('PUT', `/v1/checks/tcp/${d.id}`, { muted: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.attributes.source).toBe('params');
  });
});

describe('multi-step and heartbeat checks', () => {
  it('multi-step: script required, scriptPath and dependencies accepted but never returned', async () => {
    const t = testServer();
    expect((await t.call('POST', '/v1/checks/multistep', { name: 'm' })).body.attributes.keys).toEqual(['script']);
    expect((await t.call('POST', '/v1/checks/multistep', { name: 'm', script: 'x', frequency: 0 })).body.attributes.keys).toEqual(['frequency']);
    const m = await t.call('POST', '/v1/checks/multistep', { name: 'm', script: 'await page.goto(u)', scriptPath: 'a.spec.js', dependencies: [{ path: 'lib.js', content: '1' }], request: { x: 1 } });
    expect(m.status).toBe(201);
    expect(m.body.checkType).toBe('MULTI_STEP');
    for (const hidden of ['scriptPath', 'dependencies', 'request', 'degradedResponseTime', 'frequencyOffset']) expect(m.body).not.toHaveProperty(hidden);
    const u = await t.call('PUT', `/v1/checks/multistep/${m.body.id}`, { scriptPath: 'b.js' });
    expect(u.status).toBe(200);
    expect(u.body).not.toHaveProperty('scriptPath');
  });

  it('heartbeat: heartbeat object required, pingToken generated once and kept across PUTs', async () => {
    const t = testServer();
    expect((await t.call('POST', '/v1/checks/heartbeat', { name: 'hb' })).body.attributes.keys).toEqual(['heartbeat']);
    const hb = { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' };
    const c = await t.call('POST', '/v1/checks/heartbeat', { name: 'hb', heartbeat: { ...hb, pingToken: 'mine' } });
    expect(c.status).toBe(201);
    expect(c.body.heartbeat.pingToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.body).not.toHaveProperty('request');
    const u = await t.call('PUT', `/v1/checks/heartbeat/${c.body.id}`, { heartbeat: { ...hb, period: 2 } });
    expect(u.body.heartbeat).toEqual({ ...hb, period: 2, pingToken: c.body.heartbeat.pingToken });
  });
});

describe('list, read, delete, deprecated and API/browser routes', () => {
  it('filters by tag (any of), checkType and name search; pages them', async () => {
    const t = testServer();
    await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'Primary DB', tags: ['db', 'prod'] }));
    await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'Cache', tags: ['cache'] }));
    await t.call('POST', '/v1/checks/dns', dnsBody({ name: 'DNS prod', tags: ['prod'] }));
    const names = async (q: string) => (await t.call('GET', `/v1/checks?${q}`)).body.map((c: { name: string }) => c.name);
    expect(await names('tag=prod')).toEqual(['Primary DB', 'DNS prod']);
    expect(await names('tag[]=cache&tag[]=db')).toEqual(['Primary DB', 'Cache']);
    expect(await names('checkType=DNS')).toEqual(['DNS prod']);
    expect(await names('search=PROD')).toEqual(['DNS prod']);
    expect(await names('checkType=API')).toEqual([]);
    expect((await t.call('GET', '/v1/checks?limit=2&page=2')).headers.get('content-range')).toBe('2-2/3');
  });

  it('deprecated PUT /v1/checks/{id} updates any type; checkType must match', async () => {
    const t = testServer();
    const d = (await t.call('POST', '/v1/checks/dns', dnsBody())).body;
    expect((await t.call('PUT', `/v1/checks/${d.id}`, { checkType: 'TCP', name: 'x' })).body.attributes.keys).toEqual(['checkType']);
    expect((await t.call('PUT', `/v1/checks/${d.id}`, { name: 'x' , frequency: 3 })).body.attributes.keys).toEqual(['frequency']);
    const u = await t.call('PUT', `/v1/checks/${d.id}`, { checkType: 'DNS', name: 'renamed' });
    expect(u.status).toBe(200);
    expect(u.body.name).toBe('renamed');
    expect((await t.call('PUT', `/v1/checks/api/${d.id}`, {})).status).toBe(400);
    expect((await t.call('PUT', `/v1/checks/browser/00000000-0000-4000-8000-000000000000`, {})).status).toBe(404);
  });

  it('DELETE removes the check and its subscriptions; a second DELETE is 404', async () => {
    const t = testServer();
    const ch = (await t.call('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })).body;
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody())).body;
    expect((await t.call('GET', `/v1/alert-channels/${ch.id}`)).body.subscriptions).toHaveLength(1);
    expect((await t.call('DELETE', `/v1/checks/${c.id}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/alert-channels/${ch.id}`)).body.subscriptions).toEqual([]);
    expect((await t.call('DELETE', `/v1/checks/${c.id}`)).status).toBe(404);
    expect((await t.call('GET', `/v1/checks/${c.id}`)).status).toBe(404);
  });
});

describe('alert subscriptions of checks', () => {
  it('autoAssignAlerts appends every channel in id order on create only; false keeps the body list', async () => {
    const t = testServer();
    const e = (await t.call('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })).body;
    const w = (await t.call('POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'hook', url: 'https://example.com/h' } })).body;
    const p = (await t.call('POST', '/v1/alert-channels', { type: 'PAGERDUTY', config: { serviceKey: 'k' } })).body;
    const c = (await t.call('POST', '/v1/checks/tcp', tcpBody({ alertChannelSubscriptions: [{ alertChannelId: w.id, activated: false }] }))).body;
    // The body's list first, then the other channels appended in id order.
    expect(c.alertChannelSubscriptions).toEqual([
      { alertChannelId: w.id, activated: false },
      { alertChannelId: e.id, activated: true },
      { alertChannelId: p.id, activated: true },
    ]);
    // alertChannels shows activated subscriptions of the shown types only.
    expect(c.alertChannels).toEqual({ email: [{ address: 'ops@example.com' }], webhook: [], slack: [], sms: [] });
    const off = (await t.call('POST', '/v1/checks/tcp?autoAssignAlerts=false', tcpBody())).body;
    expect(off.alertChannelSubscriptions).toEqual([]);
    const put = (await t.call('PUT', `/v1/checks/tcp/${off.id}?autoAssignAlerts=true`, { alertChannelSubscriptions: [{ alertChannelId: w.id, activated: true }] })).body;
    expect(put.alertChannelSubscriptions).toEqual([{ alertChannelId: w.id, activated: true }]);
    expect(put.alertChannels.webhook).toEqual([{ url: 'https://example.com/h', name: 'hook', method: 'POST', headers: [], queryParameters: [] }]);
    expect((await t.call('POST', '/v1/checks/tcp?autoAssignAlerts=maybe', tcpBody())).body.attributes.source).toBe('query');
  });
});
