import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/runner/index.js';
import { RunRecorder } from '../../../src/server/rundata/recorder.js';
import { RUN_COLL } from '../../../src/server/rundata/collections.js';
import { startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';
import { tcpAttempt } from '../../e2e/rundata-harness.js';
import { tcpBody, testServer, type TestClient } from './client.js';

// Fidelity defects found by validating the service's responses against the reference API (issue 16).

async function ok(t: TestClient, method: string, path: string, body?: unknown): Promise<any> {
  const a = await t.call(method, path, body);
  expect(a.status, `${method} ${path}: ${JSON.stringify(a.body)}`).toBeLessThan(300);
  return a.body;
}

describe('D1: status pages carry accountId', () => {
  it('in the list, the item, and the answers to POST and PUT', async () => {
    const t = testServer();
    const body = { name: 'Shop', url: 'shop-d1', cards: [] };
    const created = await ok(t, 'POST', '/v1/status-pages', body);
    expect(created.accountId).toBe('dev');
    expect((await ok(t, 'GET', '/v1/status-pages')).entries.map((p: any) => p.accountId)).toEqual(['dev']);
    expect((await ok(t, 'GET', `/v1/status-pages/${created.id}`)).accountId).toBe('dev');
    expect((await ok(t, 'PUT', `/v1/status-pages/${created.id}`, { ...body, name: 'Shop 2' })).accountId).toBe('dev');
  });
});

describe('D2: alert notifications are filtered by alertChannelId, hasFailures, from and to', () => {
  it('applies each filter, and refuses malformed ones', async () => {
    const t = testServer();
    const store = t.server.ctx.store;
    const rows = [
      { id: 'n1', alertChannelId: 1, status: 'SUCCESS', created_at: '2025-03-12T10:00:00.000Z' },
      { id: 'n2', alertChannelId: 2, status: 'FAILURE', created_at: '2025-03-12T11:00:00.000Z' },
      { id: 'n3', alertChannelId: 1, status: 'FAILURE', created_at: '2025-03-12T12:00:00.000Z' },
    ];
    const tx = store.begin('dev');
    for (const r of rows) tx.put(RUN_COLL.alertNotifications, r.id, { ...r, type: 'EMAIL', alertType: 'ALERT_FAILURE', checkType: 'TCP', checkId: 'c', checkAlertId: 'a', alertConfig: {}, notificationResult: null, timestamp: null, attempts: 1 });
    tx.commit();
    const ids = async (q: string) => (await ok(t, 'GET', `/v1/alert-notifications${q}`)).map((n: any) => n.id);
    expect(await ids('')).toEqual(['n3', 'n2', 'n1']);
    expect(await ids('?alertChannelId=1')).toEqual(['n3', 'n1']);
    expect(await ids('?hasFailures=true')).toEqual(['n3', 'n2']);
    expect(await ids('?hasFailures=false')).toEqual(['n1']);
    const at = (iso: string) => String(Date.parse(iso) / 1000);
    expect(await ids(`?from=${at('2025-03-12T11:00:00.000Z')}`)).toEqual(['n3', 'n2']);
    expect(await ids(`?to=${at('2025-03-12T11:00:00.000Z')}`)).toEqual(['n1']);
    expect(await ids('?from=2025-03-12T10:30:00Z&to=2025-03-12T11:30:00Z')).toEqual(['n2']);
    expect((await t.call('GET', '/v1/alert-notifications?hasFailures=maybe')).status).toBe(400);
    expect((await t.call('GET', '/v1/alert-notifications?from=yesterday')).status).toBe(400);
  });
});

describe('D3: the check list honours the reference filters status and apiCheckUrlFilterPattern', () => {
  it('filters by the status of each check\'s newest result', async () => {
    const t = testServer();
    const passing = await ok(t, 'POST', '/v1/checks/tcp', tcpBody({ name: 'passing' }));
    const failing = await ok(t, 'POST', '/v1/checks/tcp', tcpBody({ name: 'failing' }));
    await ok(t, 'POST', '/v1/checks/tcp', tcpBody({ name: 'never run' }));
    const now = t.server.ctx.options.now;
    const recorder = new RunRecorder(t.server.ctx.store, now);
    const run = (check: any, attempt: ReturnType<typeof tcpAttempt>) => {
      const session = recorder.openSession('dev', { check: { id: check.id, name: check.name, checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 }, runLocations: ['eu-west-1'] });
      recorder.markExecuting('dev', session.checkSessionId);
      recorder.finishLocation('dev', session.checkSessionId, attempt);
    };
    run(passing, tcpAttempt('eu-west-1', now() - 5000, { hasFailures: true }));
    run(passing, tcpAttempt('eu-west-1', now() - 1000));
    run(failing, tcpAttempt('eu-west-1', now() - 1000, { hasFailures: true }));
    const names = async (q: string) => (await ok(t, 'GET', `/v1/checks${q}`)).map((c: any) => c.name).sort();
    expect(await names('')).toEqual(['failing', 'never run', 'passing']);
    expect(await names('?status=passing')).toEqual(['passing']);
    expect(await names('?status=failing')).toEqual(['failing']);
    expect(await names('?status=degraded')).toEqual([]);
    // Only API checks have a URL (test/unit/server/checks-http.test.ts stores some).
    expect(await names('?apiCheckUrlFilterPattern=example.com')).toEqual([]);
    expect((await t.call('GET', '/v1/checks?status=broken')).status).toBe(400);
  });
});

describe('D4: a TCP result\'s apiCheckResult.request.data is a string', () => {
  let server: TcpServer;
  beforeAll(async () => {
    server = await startTcpServer();
  });
  afterAll(() => server.close());

  it('is "" when the check sends nothing, and the data when it does', async () => {
    server.set({ reply: () => 'hello\r\n' });
    const check = (data?: string) => ({ checkType: 'TCP' as const, name: 't', doubleCheck: false, request: { hostname: '127.0.0.1', port: server.port, ...(data ? { data } : {}) } });
    const [silent] = await runCheck(check(), { limits: { idleMs: 100 } });
    expect(silent.apiCheckResult!.request.data).toBe('');
    const [sent] = await runCheck(check('PING\r\n'), { limits: { idleMs: 100 } });
    expect(sent.apiCheckResult!.request.data).toBe('PING\r\n');
  });
});

// Issue 27.
describe('the check-group list honours the reference filters tag and name', () => {
  it('tag: at least one of the tags; name: exactly one of the names; both together; paging after filtering', async () => {
    const t = testServer();
    const a = await ok(t, 'POST', '/v1/check-groups', { name: 'Shop', tags: ['prod', 'eu'] });
    const b = await ok(t, 'POST', '/v1/check-groups', { name: 'Shop API', tags: ['prod'] });
    const c = await ok(t, 'POST', '/v1/check-groups', { name: 'shop', tags: ['staging'] });
    // Another account's group of the same name and tag is never listed.
    expect((await t.call('POST', '/v1/check-groups', { name: 'Shop', tags: ['prod'] }, { key: 'other-key' })).status).toBe(201);
    const ids = async (query: string) => (await ok(t, 'GET', `/v1/check-groups${query}`)).map((g: { id: number }) => g.id);
    expect(await ids('?tag=prod')).toEqual([a.id, b.id]);
    expect(await ids('?tag=eu&tag=staging')).toEqual([a.id, c.id]);
    expect(await ids('?tag[]=eu&tag[]=staging')).toEqual([a.id, c.id]);
    expect(await ids('?tag=none')).toEqual([]);
    // Exact and case-sensitive: "Shop" is neither "shop" nor "Shop API".
    expect(await ids('?name=Shop')).toEqual([a.id]);
    expect(await ids('?name=Shop&name=shop')).toEqual([a.id, c.id]);
    expect(await ids(`?name=${encodeURIComponent('Shop API')}&tag=prod`)).toEqual([b.id]);
    expect(await ids('?name=shop&tag=prod')).toEqual([]);
    const page = await t.call('GET', '/v1/check-groups?tag=prod&limit=1&page=2');
    expect(page.body.map((g: { id: number }) => g.id)).toEqual([b.id]);
    expect(page.headers.get('content-range')).toBe('1-1/2');
    expect(await ids('')).toEqual([a.id, b.id, c.id]);
  });
});
