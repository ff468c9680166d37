import { describe, expect, it } from 'vitest';
import { tcpBody, testServer, type TestClient } from './client.js';

// Issue 25: status pages show maintenance in progress and scheduled maintenance of the windows
// that cover a check behind one of the page's services (its triggerIncident.serviceId).

const NOW = Date.parse('2030-01-05T03:00:00Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function page(t: TestClient, path: string): Promise<string> {
  const res = await t.server.request(path);
  expect(res.status).toBe(200);
  return res.text();
}

async function window(t: TestClient, body: Record<string, unknown>): Promise<void> {
  const res = await t.call('POST', '/v1/maintenance-windows', { repeatUnit: null, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A page `shop` whose service `Checkout` has a check tagged db behind it, and a page `blog` with no check behind it. */
async function seed(t: TestClient): Promise<void> {
  const checkout = (await t.call('POST', '/v1/status-pages/services', { name: 'Checkout' })).body;
  const blog = (await t.call('POST', '/v1/status-pages/services', { name: 'Blog' })).body;
  const check = await t.call('POST', '/v1/checks/tcp', tcpBody({ tags: ['db', 'prod'], triggerIncident: { serviceId: checkout.id, severity: 'MINOR', name: 'DB down', description: 'd', notifySubscribers: false } }));
  expect(check.status).toBe(201);
  await t.call('POST', '/v1/checks/tcp', tcpBody({ name: 'web', tags: ['web'] }));
  await t.call('POST', '/v1/status-pages', { name: 'Shop', url: 'shop', cards: [{ name: 'Main', services: [{ id: checkout.id }] }] });
  await t.call('POST', '/v1/status-pages', { name: 'Blog', url: 'blog', cards: [{ name: 'Main', services: [{ id: blog.id }] }] });
}

describe('maintenance on status pages', () => {
  it('a banner for a window in progress and a list of those within 7 days, for the windows covering checks behind the page', async () => {
    const t = testServer({ now: () => NOW });
    await seed(t);
    await window(t, { name: 'DB upgrade', tags: ['db'], startsAt: iso(NOW - 3_600_000), endsAt: iso(NOW + 3_600_000), description: 'Replica <b>swap</b>' });
    await window(t, { name: 'Index rebuild', tags: ['prod'], startsAt: iso(NOW + 2 * DAY), endsAt: iso(NOW + 2 * DAY + 1_800_000) });
    await window(t, { name: 'Weekly patch', tags: ['db'], startsAt: iso(NOW - 3 * DAY), endsAt: iso(NOW - 3 * DAY + 600_000), repeatUnit: 'WEEK', repeatInterval: 1 });
    await window(t, { name: 'Far away', tags: ['db'], startsAt: iso(NOW + 10 * DAY), endsAt: iso(NOW + 10 * DAY + 1000) });
    await window(t, { name: 'Web deploy', tags: ['web'], startsAt: iso(NOW - 1000), endsAt: iso(NOW + 1000) });
    await window(t, { name: 'Over', tags: ['db'], startsAt: iso(NOW - 2 * DAY), endsAt: iso(NOW - DAY) });

    const text = await page(t, '/status/shop');
    expect(text).toContain('<h2 id="maint-1">Maintenance in progress: DB upgrade</h2>');
    expect(text).toContain(`Until <time datetime="${iso(NOW + 3_600_000)}">2030-01-05 04:00 UTC</time>`);
    // The description is text, never markup.
    expect(text).toContain('Replica &lt;b&gt;swap&lt;/b&gt;');
    expect(text).toContain('<h2 id="sched-h">Scheduled maintenance</h2>');
    const scheduled = text.slice(text.indexOf('id="sched-h"'));
    expect([...scheduled.matchAll(/<h3>([^<]+)<\/h3>/g)].map((m) => m[1]).slice(0, 2)).toEqual(['Index rebuild', 'Weekly patch']);
    expect(scheduled).toContain(`<time datetime="${iso(NOW + 4 * DAY)}">`);
    for (const hidden of ['Far away', 'Web deploy', 'Over']) expect(text).not.toContain(hidden);

    // The refreshed part carries it too.
    expect(await page(t, '/status/shop/live')).toContain('Maintenance in progress: DB upgrade');
    // No check behind the blog's service: no maintenance there.
    expect(await page(t, '/status/blog')).not.toContain('aintenance');
  });

  it('silenceAllAlerts windows show on every page with a check behind it; a page without windows shows none', async () => {
    const t = testServer({ now: () => NOW });
    await seed(t);
    expect(await page(t, '/status/shop')).not.toContain('aintenance');
    await window(t, { name: 'Everything', tags: [], silenceAllAlerts: true, startsAt: iso(NOW), endsAt: iso(NOW + 60_000) });
    expect(await page(t, '/status/shop')).toContain('Maintenance in progress: Everything');
    expect(await page(t, '/status/blog')).not.toContain('aintenance');
  });
});
