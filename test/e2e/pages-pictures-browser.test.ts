import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiOk, type Served } from '../helpers/serve.js';
import type { TcpServer } from '../helpers/tcp-server.js';
import { startHttpServer, json, type HttpServer } from '../helpers/http-server.js';
import { ARTIFACTS, startPagesInChromium, type PagesInChromium } from './pages-chromium.js';
import { runOnce, tcpCheck } from './pages-fixtures.js';
import { CHART_COLORS, STATE_COLORS } from '../../src/server/pages/theme.js';

// The pictures of the public pages in a real Chromium: charts, a check's page, a heartbeat's
// page, uptime bars of a new service; with and without JavaScript, light and dark.
// The browser, the service and a TCP target: pages-chromium.ts. The tests read what beforeAll
// made, each in a browser context of its own, and run at once, but for two: the dashboard's
// refresh adds a run to the check the charts count the runs of (it comes after them), and the
// badges read the status page the new-service test makes (they come after it). A test's time
// limit covers the wait for the others on a loaded machine.
let pages: PagesInChromium;
let s: Served;
let tcp: TcpServer;
let web: HttpServer;
const ids: Record<string, string> = {};
let dashKey = '';

beforeAll(async () => {
  // Every request rendered afresh: the tests read a page right after the runs they make.
  pages = await startPagesInChromium();
  ({ s, tcp } = pages);
  web = await startHttpServer({ '/health': json(503, { status: 'down', reason: 'maintenance' }) });
  const ok = await tcpCheck(s, 'Cache answers', ['pics'], tcp.port);
  ids.ok = ok.id;
  const failing = await apiOk(s, 'POST', '/v1/checks/api', {
    name: 'Health endpoint',
    tags: ['pics'],
    frequency: 10,
    doubleCheck: false,
    request: {
      method: 'GET',
      url: `${web.url}/health`,
      assertions: [
        { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
        { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'up' },
      ],
    },
  });
  ids.failing = failing.id;
  const hb = await apiOk(s, 'POST', '/v1/checks/heartbeat', { name: 'Nightly backup', tags: ['pics'], heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } });
  ids.hb = hb.id;
  ids.token = hb.heartbeat.pingToken;
  // The four runs at once (a triggered session does not wait for another of its check).
  await Promise.all([runOnce(s, ok.id), runOnce(s, ok.id), runOnce(s, ok.id), runOnce(s, failing.id)]);
  expect((await fetch(`${s.url}/ping/${ids.token}`)).status).toBe(200);
  await apiOk(s, 'POST', '/v1/dashboards', { header: 'Pictures', customUrl: 'pics', tags: ['pics'], showCheckRunLinks: true });
  const priv = await apiOk(s, 'POST', '/v1/dashboards', { header: 'Jobs', customUrl: 'pics-private', tags: ['pics'], isPrivate: true });
  dashKey = priv.keys[0].rawKey;
}, 180_000);
afterAll(async () => {
  await pages?.close();
  await web?.close();
});

/** The time limit of a test that runs beside the others, and of a wait for a page's refresh. */
const PAGE_TIMEOUT = 180_000;
const REFRESH_WAIT = { timeout: 60_000 };

const open = (options?: Parameters<PagesInChromium['open']>[0]) => pages.open(options);

const hex = (c: string) => `rgb(${[1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)).join(', ')})`;
const computed = (page: Page, selector: string, prop: string) =>
  page.locator(selector).first().evaluate((el, p) => (globalThis as any).getComputedStyle(el).getPropertyValue(p) as string, prop);

describe.concurrent('charts in Chromium', { timeout: PAGE_TIMEOUT }, () => {
  it('has a browser to drive', () => {
    if (pages.launchError) throw pages.launchError;
    expect(pages.chrome!.browser.isConnected()).toBe(true);
  });

  // The four only read what beforeAll made.
  for (const js of [true, false]) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`dashboard and check page draw p50/p95 charts (JavaScript ${js ? 'on' : 'off'}, ${scheme})`, async () => {
        const { ctx, page, problems } = await open({ colorScheme: scheme, javaScriptEnabled: js });
        await page.goto(`${s.url}/dashboards/pics`);
        const card = page.locator(`li[data-check="${ids.ok}"]`);
        expect(await card.locator('svg.chart').count()).toBe(2);
        const chart = card.locator('svg.chart').first();
        expect(await chart.getAttribute('role')).toBe('img');
        expect(await chart.getAttribute('aria-label')).toMatch(/^Response time, last 24 hours: Cache answers\. p50 and p95 response time per hour\..* 3 runs, 0 failed\./);
        expect(await chart.locator('title').textContent()).toBe('Response time, last 24 hours: Cache answers');
        // The lines are drawn, in the scheme's colours (from the page's stylesheet: the CSP holds).
        const box = await chart.boundingBox();
        expect(box!.width).toBeGreaterThan(150);
        expect(await card.locator('svg.chart circle.p50').count()).toBeGreaterThan(0);
        expect(await computed(page, `li[data-check="${ids.ok}"] svg.chart circle.p50`, 'fill')).toBe(hex(CHART_COLORS[scheme].p50));
        expect(await computed(page, `li[data-check="${ids.ok}"] svg.chart path.p95`, 'stroke')).toBe(hex(CHART_COLORS[scheme].p95));
        expect(await computed(page, `li[data-check="${ids.failing}"] svg.chart rect.fail`, 'fill')).toBe(hex(STATE_COLORS[scheme].bad));
        // The check's page, reached by its link.
        await card.locator('h3 a').click();
        await page.waitForURL(/\/dashboards\/pics\/checks\//);
        expect(await page.locator('main h1').innerText()).toBe('Cache answers');
        expect(await page.locator('main svg.chart').count()).toBe(2);
        expect(await page.locator('table.runs tbody tr').count()).toBe(3);
        expect(await computed(page, 'main svg.chart path.p50', 'stroke')).toBe(hex(CHART_COLORS[scheme].p50));
        await page.screenshot({ path: join(ARTIFACTS, `check-page-${scheme}${js ? '' : '-nojs'}.png`), fullPage: true });
        expect(problems).toEqual([]);
        await ctx.close();
      });
    }
  }

  // After the four (their pages count 3 runs of the check).
  it.sequential('the dashboard’s refresh keeps the charts (the list comes back from the page, server-rendered)', async ({ expect }) => {
    const { ctx, page, problems } = await open();
    await page.clock.install();
    await page.goto(`${s.url}/dashboards/pics`);
    await runOnce(s, ids.ok);
    await page.clock.runFor(60_000);
    const card = page.locator(`li[data-check="${ids.ok}"]`);
    await expect.poll(() => card.locator('svg.chart').first().getAttribute('aria-label'), REFRESH_WAIT).toContain('4 runs, 0 failed');
    expect(await card.locator('svg.chart').count()).toBe(2);
    expect(await page.locator('#pause').count()).toBe(1);
    expect(problems).toEqual([]);
    await ctx.close();
  });
});

describe.concurrent('a check’s page in Chromium', { timeout: PAGE_TIMEOUT }, () => {
  it('a failing check lists its run with the failed assertions’ expected and received values and the status code', async () => {
    const { ctx, page, problems } = await open({ javaScriptEnabled: false });
    await page.goto(`${s.url}/dashboards/pics/checks/${ids.failing}`);
    expect(await page.locator('main .state').first().innerText()).toContain('Failing');
    const row = page.locator('table.runs tbody tr').first();
    expect(await row.locator('td').nth(4).innerText()).toBe('503');
    const asserts = row.locator('table.asserts tbody tr');
    expect(await asserts.count()).toBe(2);
    expect(await asserts.nth(0).locator('td.expected').innerText()).toBe('200');
    expect(await asserts.nth(0).locator('td.received').innerText()).toBe('503');
    expect(await asserts.nth(1).locator('td').first().innerText()).toContain('JSON_BODY $.status');
    expect(await asserts.nth(1).locator('td.expected').innerText()).toBe('up');
    expect(await asserts.nth(1).locator('td.received').innerText()).toBe('down');
    // The run page says the same.
    await row.locator('a').click();
    expect(await page.locator('#why-h').innerText()).toBe('Why it failed');
    expect(await page.locator('td.received').first().innerText()).toBe('503');
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('a heartbeat’s page shows its ping URL (private dashboard, with its key) and its recent pings; a public one hides the URL', async () => {
    const { ctx, page, problems } = await open();
    await page.goto(`${s.url}/dashboards/pics-private?key=${dashKey}`);
    await page.locator(`li[data-check="${ids.hb}"] h3 a`).click();
    await page.waitForURL(/\/checks\//);
    expect(page.url()).toContain(`key=${dashKey}`);
    expect(await page.locator('code.ping-url').innerText()).toBe(`${s.url}/ping/${ids.token}`);
    expect(await page.locator('#hb-h ~ table tbody tr').count()).toBe(1);
    expect(await page.locator('#hb-h ~ table tbody tr td').nth(1).innerText()).toBe('Received');
    await page.goto(`${s.url}/dashboards/pics/checks/${ids.hb}`);
    expect(await page.locator('code.ping-url').count()).toBe(0);
    expect(await page.content()).not.toContain(ids.token);
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('answers 404 for a check that is not on the dashboard', async () => {
    const other = await tcpCheck(s, 'elsewhere', ['other'], tcp.port);
    expect((await fetch(`${s.url}/dashboards/pics/checks/${other.id}`)).status).toBe(404);
    expect((await fetch(`${s.url}/dashboards/pics/checks/${other.id}/badge.svg`)).status).toBe(404);
  });
});

// Beside the other describes, its two tests one after the other (the badges read the page the first makes).
describe.concurrent('status page pictures in Chromium', { timeout: PAGE_TIMEOUT }, () => {
  it.sequential('a new service shows "no data" days and the window’s uptime; "No data yet" until its check has data', async () => {
    const svc = await apiOk(s, 'POST', '/v1/status-pages/services', { name: 'Storage' });
    await apiOk(s, 'POST', '/v1/status-pages', { name: 'Fresh status', url: 'fresh', uptimeWindowDays: 30, cards: [{ name: 'Core', services: [{ id: svc.id }] }] });
    const check = await apiOk(s, 'POST', '/v1/checks/tcp', {
      name: 'Storage port', frequency: 10, doubleCheck: false, request: { hostname: '127.0.0.1', port: tcp.port }, triggerIncident: { serviceId: svc.id, severity: 'MAJOR', name: 'Storage down', description: 'The storage port refuses', notifySubscribers: false },
    });
    for (const scheme of ['light', 'dark'] as const) {
      const { ctx, page, problems } = await open({ colorScheme: scheme, javaScriptEnabled: false });
      await page.goto(`${s.url}/status/fresh`);
      expect(await page.locator('.overall').innerText()).toContain('No data yet');
      const days = page.locator('svg.bar rect.day');
      expect(await days.count()).toBe(30);
      expect(await page.locator('svg.bar rect.d-no-data').count()).toBe(30);
      expect(await page.locator('svg.bar rect.day title').first().textContent()).toMatch(/: No data$/);
      expect(await page.locator('li.service .uptime').innerText()).toBe('No data');
      expect(await computed(page, 'svg.bar rect.d-no-data', 'fill')).toBe(hex(STATE_COLORS[scheme].none));
      expect(problems).toEqual([]);
      await ctx.close();
    }
    await runOnce(s, check.id);
    const { ctx, page, problems } = await open();
    await page.goto(`${s.url}/status/fresh`);
    expect(await page.locator('.overall').innerText()).toContain('All systems operational');
    expect(await page.locator('.overall').innerText()).toContain('100.00 % uptime over 30 days');
    expect(await page.locator('svg.bar rect.d-no-data').count()).toBe(29);
    expect(await page.locator('svg.bar rect.day').last().getAttribute('class')).toBe('day d-operational');
    expect(await page.locator('svg.bar rect.day title').last().textContent()).toMatch(/Operational, 1 of 1 runs passed$/);
    expect(await page.locator('li.service .uptime').innerText()).toBe('100.00 % uptime');
    expect(await page.locator('svg.bar').getAttribute('aria-label')).toMatch(/^Storage: last 30 days: uptime 100\.00 %; 1 days operational, 0 with issues, 29 without data$/);
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-new-service.png'), fullPage: true });
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it.sequential('badges: an SVG image per check and per status page, with state and uptime', async () => {
    const res = await fetch(`${s.url}/dashboards/pics/checks/${ids.ok}/badge.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    const svg = await res.text();
    expect(svg).toContain('Cache answers: passing · 100.00 % (30 d)');
    expect(await (await fetch(`${s.url}/dashboards/pics/checks/${ids.failing}/badge.svg`)).text()).toContain('Health endpoint: failing · 0.00 % (30 d)');
    expect(await (await fetch(`${s.url}/status/fresh/badge.svg`)).text()).toContain('Fresh status: operational · 100.00 % (30 d)');
    // A private dashboard's badge needs its key, like its page.
    expect((await fetch(`${s.url}/dashboards/pics-private/checks/${ids.ok}/badge.svg`)).status).toBe(401);
    const { ctx, page, problems } = await open();
    await page.goto(`${s.url}/dashboards/pics/checks/${ids.ok}/badge.svg`);
    expect(await page.locator('svg').getAttribute('role')).toBe('img');
    expect(problems).toEqual([]);
    await ctx.close();
  });
});
