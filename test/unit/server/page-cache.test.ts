import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { PageCache } from '../../../src/server/http/page-cache.js';
import { testServer, tcpBody } from './client.js';

function put(store: Store, account: string, kind: string, id: string) {
  const tx = store.begin(account);
  tx.put(kind, id, { id });
  tx.commit();
}

describe('list page cache', () => {
  it('builds a page once per query until a kind it shows is written', () => {
    const store = Store.memory();
    const cache = new PageCache(store, ['checks', 'alertChannels']);
    let builds = 0;
    const build = () => ({ json: `[${++builds}]`, headers: { 'content-range': '*/0' } });
    expect(cache.get('dev', 'q1', build).json.toString()).toBe('[1]');
    expect(cache.get('dev', 'q1', build).json.toString()).toBe('[1]');
    expect(cache.get('dev', 'q2', build).json.toString()).toBe('[2]');
    // A kind the page does not show leaves it valid.
    put(store, 'dev', 'snippets', 's');
    expect(cache.get('dev', 'q1', build).json.toString()).toBe('[1]');
    put(store, 'dev', 'alertChannels', 'a');
    expect(cache.get('dev', 'q1', build).json.toString()).toBe('[3]');
    // Accounts do not share pages.
    expect(cache.get('other', 'q1', build).json.toString()).toBe('[4]');
    expect(builds).toBe(4);
  });
});

describe('GET /v1/checks reads its cached pages fresh', () => {
  it('shows each create, update, delete and subscription change on the next read', async () => {
    const t = testServer();
    const list = async (q = '') => (await t.call('GET', `/v1/checks${q}`)).body as Array<Record<string, any>>;
    expect(await list()).toEqual([]);
    const a = (await t.call('POST', '/v1/checks/tcp?autoAssignAlerts=false', tcpBody({ name: 'a' }))).body;
    expect((await list()).map((c) => c.name)).toEqual(['a']);
    await t.call('PUT', `/v1/checks/tcp/${a.id}`, { name: 'renamed' });
    expect((await list()).map((c) => c.name)).toEqual(['renamed']);
    const ch = (await t.call('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })).body;
    await t.call('PUT', `/v1/checks/tcp/${a.id}`, { alertChannelSubscriptions: [{ alertChannelId: ch.id, activated: true }] });
    expect((await list())[0].alertChannels.email).toEqual([{ address: 'ops@example.com' }]);
    await t.call('PUT', `/v1/alert-channels/${ch.id}`, { type: 'EMAIL', config: { address: 'oncall@example.com' } });
    expect((await list())[0].alertChannels.email).toEqual([{ address: 'oncall@example.com' }]);
    // Another query is another page; the other account sees none of them.
    await t.call('POST', '/v1/checks/tcp?autoAssignAlerts=false', tcpBody({ name: 'b', tags: ['x'] }));
    expect((await list('?tag=x')).map((c) => c.name)).toEqual(['b']);
    expect((await list('?limit=1&page=2')).map((c) => c.name)).toEqual(['b']);
    expect((await t.call('GET', '/v1/checks', undefined, { key: 'other-key' })).body).toEqual([]);
    await t.call('DELETE', `/v1/checks/${a.id}`);
    expect((await list()).map((c) => c.name)).toEqual(['b']);
    expect((await t.call('GET', '/v1/checks?limit=1')).headers.get('content-range')).toBe('0-0/1');
  });
});
