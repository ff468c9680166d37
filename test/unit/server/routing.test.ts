import { describe, expect, it } from 'vitest';
import { testServer } from './client.js';
import { reservedSegments } from '../../../src/server/http/paths.js';

const NOT_FOUND = { statusCode: 404, error: 'Not Found', message: 'Not Found' };

describe('a parameter never stands for a literal segment of another route', () => {
  it('reservedSegments: literals of sibling routes with the same prefix, nothing across other prefixes', () => {
    const r = reservedSegments([
      '/v1/status-pages/:statusPageId',
      '/v1/status-pages/services',
      '/v1/status-pages/incidents/:incidentId',
      '/v1/status-pages/:statusPageId/subscriptions/:subscriptionId',
      '/v1/status-pages/:statusPageId/subscriptions/bulk',
      '/v1/snippets/:id',
    ]);
    expect(r.get('/v1/status-pages/:statusPageId')).toEqual(new Map([['statusPageId', new Set(['services', 'incidents'])]]));
    expect(r.get('/v1/status-pages/:statusPageId/subscriptions/:subscriptionId')?.get('subscriptionId')).toEqual(new Set(['bulk']));
    // 'incidents' vs ':statusPageId' at the same place: different prefixes, nothing reserved.
    expect(r.get('/v1/status-pages/incidents/:incidentId')).toBeUndefined();
    expect(r.get('/v1/snippets/:id')).toBeUndefined();
  });

  it('PUT/DELETE /v1/status-pages/services and /incidents are unknown routes (404), whatever the body', async () => {
    const t = testServer();
    for (const [method, path, body] of [
      ['PUT', '/v1/status-pages/services', { name: '' }],
      ['PUT', '/v1/status-pages/services', { name: 'ok', url: 'u', cards: [] }],
      ['DELETE', '/v1/status-pages/services', undefined],
      ['PUT', '/v1/status-pages/incidents', { bad: 1 }],
      ['DELETE', '/v1/status-pages/incidents', undefined],
      ['GET', '/v1/status-pages/services/subscriptions', undefined],
      ['DELETE', '/v1/status-pages/p1/subscriptions/bulk', undefined],
      ['PUT', '/v1/checks/tcp', { name: 'x' }],
      ['DELETE', '/v1/checks/dns', undefined],
      ['PATCH', '/v1/error-groups/checks', { archiveForEver: 'x' }],
    ] as const) {
      const a = await t.call(method, path, body);
      expect([method, path, a.status, a.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
  });

  it('the real routes under those prefixes still answer', async () => {
    const t = testServer();
    const svc = await t.call('POST', '/v1/status-pages/services', { name: 'API' });
    expect(svc.status).toBe(201);
    expect((await t.call('GET', '/v1/status-pages/services')).body.length).toBe(1);
    expect((await t.call('PUT', `/v1/status-pages/services/${svc.body.id}`, { name: 'API 2' })).status).toBe(200);
    expect((await t.call('GET', '/v1/status-pages/incidents')).status).toBe(200);
    const page = await t.call('POST', '/v1/status-pages', { name: 'P', url: 'p', cards: [] });
    expect((await t.call('GET', `/v1/status-pages/${page.body.id}`)).status).toBe(200);
    expect((await t.call('POST', `/v1/status-pages/${page.body.id}/subscriptions/bulk`, { subscriptions: [{ type: 'EMAIL', config: 'a@example.com' }] })).status).toBe(201);
    expect((await t.call('POST', '/v1/checks/tcp', { name: 'db', request: { hostname: 'h', port: 1 } })).status).toBe(201);
  });
});

describe('x-service-account on check-session paths', () => {
  it('is not read by GET one session (endpoint 11) but is by POST /v1/check-sessions/trigger', async () => {
    const t = testServer();
    const headers = { 'x-service-account': 'other' };
    const read = await t.call('GET', '/v1/check-sessions/00000000-0000-4000-8000-000000000000', undefined, { headers });
    expect(read.status).toBe(404);
    const trigger = await t.call('POST', '/v1/check-sessions/trigger', {}, { headers });
    expect(trigger.status).toBe(401);
    expect(trigger.body.message).toBe('API key does not belong to account "other"');
  });
});

describe('malformed integer path ids (api-decisions §1.1)', () => {
  it('are 400 with source params on every integer-id route, each problem named once', async () => {
    const t = testServer();
    for (const [method, path] of [
      ['GET', '/v1/alert-channels/abc'],
      ['PUT', '/v1/alert-channels/1.5/subscriptions'],
      ['GET', '/v1/check-groups/-1'],
      ['DELETE', '/v1/snippets/0'],
      ['GET', '/v1/triggers/check-groups/x'],
    ] as const) {
      const a = await t.call(method, path, method === 'PUT' ? { checkId: 'c', activated: true } : undefined);
      expect([method, path, a.status, a.body.attributes.source, a.body.attributes.keys]).toEqual([method, path, 400, 'params', ['id'].map((k) => (path.includes('triggers') ? 'groupId' : k))]);
    }
    const huge = await t.call('GET', '/v1/snippets/99999999999999999999');
    expect(huge.body.attributes.errors).toEqual([{ path: 'id', message: 'must be at most 9007199254740991' }]);
    expect(huge.body.message).toBe('"id" must be at most 9007199254740991');
  });
});
