import { describe, expect, it } from 'vitest';
import { testServer } from './client.js';
import { domainKey, sameDomain } from '../../../src/server/resources/custom-domains.js';

// A custom domain names one public page: unique across status pages and dashboards, across
// accounts, compared lower case, without a trailing dot, IDN as punycode.

const page = (customDomain: string | null, url: string) => ({ name: url, url, customDomain, cards: [] });
const B = { key: 'other-key' };

describe('custom domains', () => {
  it('compare normalized', () => {
    expect(domainKey('Status.Example.COM.')).toBe('status.example.com');
    expect(domainKey(' status.example.com ')).toBe('status.example.com');
    expect(domainKey('Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(domainKey('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(sameDomain('BÜCHER.example', 'xn--bcher-kva.example.')).toBe(true);
    expect(sameDomain(null, 'a.example')).toBe(false);
    expect(sameDomain('', '')).toBe(false);
  });

  it("account B cannot claim account A's dashboard domain as a status page domain in any letter case, nor the reverse", async () => {
    const t = testServer();
    const dash = await t.call('POST', '/v1/dashboards', { header: 'A', customDomain: 'board.shop.example' });
    expect(dash.status).toBe(201);
    expect(dash.body).not.toHaveProperty('customDomainKey');
    for (const [i, domain] of ['board.shop.example', 'BOARD.Shop.Example', 'board.shop.example.', 'Board.SHOP.example.'].entries()) {
      const r = await t.call('POST', '/v1/status-pages', page(domain, `b-${i}`), B);
      expect(r.status, domain).toBe(409);
      expect(r.body).toEqual({ statusCode: 409, error: 'Conflict', message: `Custom domain "${domain}" is already taken` });
      // Nor in the same account across kinds.
      expect((await t.call('POST', '/v1/status-pages', page(domain, `a-${i}`))).status, domain).toBe(409);
    }
    const sp = await t.call('POST', '/v1/status-pages', page('Status.Shop.Example', 'a-page'));
    expect(sp.status).toBe(201);
    expect(sp.body.customDomain).toBe('Status.Shop.Example');
    expect(sp.body).not.toHaveProperty('customDomainKey');
    expect((await t.call('GET', `/v1/status-pages/${sp.body.id}`)).body).not.toHaveProperty('customDomainKey');
    for (const domain of ['status.shop.example', 'STATUS.SHOP.EXAMPLE.']) {
      expect((await t.call('POST', '/v1/dashboards', { header: 'B', customDomain: domain }, B)).status, domain).toBe(409);
      expect((await t.call('POST', '/v1/dashboards', { header: 'A2', customDomain: domain })).status, domain).toBe(409);
    }
    // IDN: the Unicode and punycode forms are one domain.
    expect((await t.call('POST', '/v1/status-pages', page('bücher.example', 'a-idn'))).status).toBe(201);
    expect((await t.call('POST', '/v1/dashboards', { header: 'B', customDomain: 'XN--BCHER-KVA.example' }, B)).status).toBe(409);
  });

  it('holds on update too; a record keeps its own domain in another case; a freed domain can be claimed', async () => {
    const t = testServer();
    const a = await t.call('POST', '/v1/status-pages', page('status.a.example', 'a'));
    const bDash = await t.call('POST', '/v1/dashboards', { header: 'B' }, B);
    const bPage = await t.call('POST', '/v1/status-pages', page(null, 'b'), B);
    expect((await t.call('PUT', `/v1/dashboards/${bDash.body.dashboardId}`, { customDomain: 'Status.A.Example' }, B)).status).toBe(409);
    expect((await t.call('PUT', `/v1/status-pages/${bPage.body.id}`, page('STATUS.A.EXAMPLE.', 'b'), B)).status).toBe(409);
    // Its own domain, rewritten in another case: no conflict with itself.
    const same = await t.call('PUT', `/v1/status-pages/${a.body.id}`, page('Status.A.Example', 'a'));
    expect(same.status).toBe(200);
    expect(same.body).not.toHaveProperty('customDomainKey');
    const dash = await t.call('POST', '/v1/dashboards', { header: 'A', customDomain: 'board.a.example' });
    const kept = await t.call('PUT', `/v1/dashboards/${dash.body.dashboardId}`, { customDomain: 'BOARD.a.example', header: 'A2' });
    expect(kept.status).toBe(200);
    expect(kept.body).not.toHaveProperty('customDomainKey');
    expect((await t.call('GET', `/v1/dashboards/${dash.body.dashboardId}`)).body).not.toHaveProperty('customDomainKey');
    // Freed by a delete: another account may take it.
    expect((await t.call('DELETE', `/v1/status-pages/${a.body.id}`)).status).toBe(204);
    expect((await t.call('PUT', `/v1/dashboards/${bDash.body.dashboardId}`, { customDomain: 'status.a.example' }, B)).status).toBe(200);
  });

  it('the public page is found by its domain in any case, with a trailing dot', async () => {
    const t = testServer();
    await t.call('POST', '/v1/status-pages', page('Status.Shop.Example', 'shop'));
    for (const host of ['status.shop.example', 'STATUS.shop.example:8080', 'status.shop.example.']) {
      const r = await t.call('GET', '/', undefined, { key: null, headers: { host } });
      expect(r.status, host).toBe(200);
      expect(String(r.body), host).toContain('shop');
    }
  });
});
