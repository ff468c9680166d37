import { describe, expect, it } from 'vitest';
import { assemblePlan, buildDesired } from '../../../src/plan/index.js';
import { DEFINITIONS } from '../../../src/schema/definitions.js';
import { testServer } from '../server/client.js';
import { def, live, project } from './fixtures.js';

// The plan's tables of UrlMonitor and ApiCheck against what the service really stores: a minimal
// definition and the check the service made from it compare equal (the engine's defaults are the
// service's); credentials and locked values never show; headers are a set, assertions a list.

const planOf = (defs: Parameters<typeof project>[0], items: Parameters<typeof live>[0] = {}) =>
  assemblePlan({ project: project(defs), live: live(items), apiUrl: 'http://127.0.0.1:4010', prune: false, now: new Date(0) });

/** The live check the service stores for a definition's desired body (created as mac would). */
async function stored(kind: 'UrlMonitor' | 'ApiCheck', spec: Record<string, unknown>): Promise<Record<string, unknown>> {
  const t = testServer();
  const { body } = buildDesired(def(kind, 'c', spec), 'shop', (ref) => ({ $ref: ref }));
  const a = await t.call('POST', `/v1/checks/${kind === 'UrlMonitor' ? 'url' : 'api'}?autoAssignAlerts=false`, body);
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  return a.body;
}

describe('UrlMonitor and ApiCheck plan tables', () => {
  it('a minimal definition of each kind matches the check the service made from it', async () => {
    const url = { name: 'home', request: { url: 'https://example.com/' } };
    const api = { name: 'orders', request: { method: 'GET', url: 'https://api.example.com/' } };
    const p = planOf([def('UrlMonitor', 'c', url)], { UrlMonitor: [await stored('UrlMonitor', url)] });
    expect(p.summary).toMatchObject({ noop: 1, update: 0, create: 0 });
    const q = planOf([def('ApiCheck', 'c', api)], { ApiCheck: [await stored('ApiCheck', api)] });
    expect(q.summary).toMatchObject({ noop: 1, update: 0, create: 0 });
  });

  it('a full API check converges; reordered headers are no change; assertion order is', async () => {
    const assertions = [
      { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
      { source: 'JSON_BODY', comparison: 'NOT_NULL', property: '$.id', regex: null },
    ];
    const headers = [{ key: 'X-B', value: 'b' }, { key: 'Authorization', value: 'Bearer tok-xyz', locked: true }];
    const spec = (h = headers, a = assertions) => ({
      name: 'orders', frequency: 0, frequencyOffset: 10, degradedResponseTime: 100, localSetupScript: '',
      request: { method: 'POST', url: 'https://api.example.com/', body: '{}', bodyType: 'JSON', headers: h, queryParameters: [{ key: 'q', value: '1' }], basicAuth: { username: 'u', password: 'pw-xyz' }, assertions: a },
    });
    const liveCheck = await stored('ApiCheck', spec());
    expect(planOf([def('ApiCheck', 'c', spec())], { ApiCheck: [liveCheck] }).summary.noop).toBe(1);
    expect(planOf([def('ApiCheck', 'c', spec([...headers].reverse()))], { ApiCheck: [liveCheck] }).summary.noop).toBe(1);
    const swapped = planOf([def('ApiCheck', 'c', spec(headers, [...assertions].reverse()))], { ApiCheck: [liveCheck] });
    expect(swapped.summary.update).toBe(1);
  });

  it('the basic-auth password and locked header values are masked in creates and updates, and compared', async () => {
    const spec = (password: string, token: string) => ({
      name: 'orders',
      request: {
        method: 'GET', url: 'https://api.example.com/',
        headers: [{ key: 'Authorization', value: token, locked: true }, { key: 'X-Shown', value: 'visible-header' }],
        queryParameters: [{ key: 'k', value: 'qp-locked-xyz', locked: true }],
        basicAuth: { username: 'monitor', password },
      },
    });
    const created = planOf([def('ApiCheck', 'c', spec('pw-1-xyz', 'tok-1-xyz'))]);
    const text = JSON.stringify(created);
    expect(text).not.toMatch(/pw-1-xyz|tok-1-xyz|qp-locked-xyz/);
    expect(text).toContain('visible-header');
    expect(created.changes[0].secrets?.map((s) => s.path).sort()).toEqual(['/request/basicAuth/password', '/request/headers/0/value', '/request/queryParameters/0/value']);

    const liveCheck = await stored('ApiCheck', spec('pw-1-xyz', 'tok-1-xyz'));
    expect(planOf([def('ApiCheck', 'c', spec('pw-1-xyz', 'tok-1-xyz'))], { ApiCheck: [liveCheck] }).summary.noop).toBe(1);
    const changed = planOf([def('ApiCheck', 'c', spec('pw-2-xyz', 'tok-1-xyz'))], { ApiCheck: [liveCheck] });
    expect(changed.changes[0].patch).toEqual([{ op: 'replace', path: '/request/basicAuth/password', value: '(sensitive)', oldValue: '(sensitive)' }]);
    expect(JSON.stringify(changed)).not.toMatch(/pw-[12]-xyz|tok-1-xyz/);
  });

  it('definitions: snippet references by logical id, raw ids, and the ranges of the reference', () => {
    const parse = (doc: Record<string, unknown>) => DEFINITIONS[doc.kind as 'ApiCheck'].schema.safeParse(doc);
    const api = { kind: 'ApiCheck', id: 'a', name: 'a', request: { method: 'GET', url: 'https://x.example/' } };
    expect(parse({ ...api, setupSnippet: 'login', tearDownSnippetId: 3 }).success).toBe(true);
    expect(parse({ ...api, maxResponseTime: 45000 }).success).toBe(true);
    expect(parse({ ...api, maxResponseTime: 45001 }).success).toBe(false);
    expect(parse({ ...api, request: { url: 'https://x.example/' } }).success).toBe(false);
    expect(parse({ ...api, request: { method: 'GET', url: 'https://x.example/', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', extra: 1 }] } }).success).toBe(false);
    const url = { kind: 'UrlMonitor', id: 'u', name: 'u', request: { url: 'https://x.example/' } };
    expect(parse(url).success).toBe(true);
    expect(parse({ ...url, setupSnippet: 'login' }).success).toBe(false);
    expect(parse({ ...url, request: { url: 'https://x.example/', method: 'POST' } }).success).toBe(false);
    expect(parse({ ...url, request: { url: 'https://x.example/', assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'x' }] } }).success).toBe(false);
  });
});
