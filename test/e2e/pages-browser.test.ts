import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiOk, type Served } from '../helpers/serve.js';
import type { TcpServer } from '../helpers/tcp-server.js';
import { ARTIFACTS, startPagesInChromium, type PagesInChromium } from './pages-chromium.js';
import { openIncident, resolveIncident, runOnce, statusPageWith, tcpCheck, theme } from './pages-fixtures.js';

// The public pages in a real Chromium: one browser for the whole file, one `mac serve`
// (pages-chromium.ts). Every test makes pages and checks of its own (its own urls and tags) in a
// browser context of its own, so all run at once; the two that read the rotation dashboard share
// its making (rotationBoard). A test's time limit covers the wait for the others on a loaded machine.
let pages: PagesInChromium;
let s: Served;
let tcp: TcpServer;

beforeAll(async () => {
  pages = await startPagesInChromium();
  ({ s, tcp } = pages);
}, 120_000);
afterAll(() => pages?.close());

/** The time limit of a test that runs beside the others, and of a wait for a page's refresh. */
const PAGE_TIMEOUT = 180_000;
const REFRESH_WAIT = { timeout: 60_000 };

const open = (options?: Parameters<PagesInChromium['open']>[0]) => pages.open(options);

const style = (page: Page, selector: string, prop: string) => page.locator(selector).first().evaluate((el, p) => (globalThis as any).getComputedStyle(el).getPropertyValue(p) as string, prop);

describe.concurrent('status page in Chromium', { timeout: PAGE_TIMEOUT }, () => {
  it('has a browser to drive', () => {
    if (pages.launchError) throw pages.launchError;
    expect(pages.chrome!.browser.isConnected()).toBe(true);
  });

  it('applies the theme colours: LIGHT, DARK, and AUTO following prefers-color-scheme', async () => {
    const themeColors = { light: theme('#fdf6e3', '#073642', '#586e75'), dark: theme('#002b36', '#eee8d5', '#93a1a1') };
    await statusPageWith(s, 'theme-light', { themeColors, defaultTheme: 'LIGHT' });
    await statusPageWith(s, 'theme-dark', { themeColors, defaultTheme: 'DARK' });
    await statusPageWith(s, 'theme-auto', { themeColors, defaultTheme: 'AUTO' });
    const { ctx, page, problems } = await open({ colorScheme: 'light' });
    await page.goto(`${s.url}/status/theme-light`);
    expect(await style(page, 'body', 'background-color')).toBe('rgb(253, 246, 227)');
    expect(await style(page, 'body', 'color')).toBe('rgb(7, 54, 66)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await style(page, 'body', 'background-color')).toBe('rgb(253, 246, 227)');
    await page.goto(`${s.url}/status/theme-dark`);
    expect(await style(page, 'body', 'background-color')).toBe('rgb(0, 43, 54)');
    await page.goto(`${s.url}/status/theme-auto`);
    expect(await style(page, 'body', 'background-color')).toBe('rgb(0, 43, 54)');
    expect(await style(page, 'main h1', 'color')).toBe('rgb(147, 161, 161)');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await style(page, 'body', 'background-color')).toBe('rgb(253, 246, 227)');
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('shows a service’s state change as an incident opens and resolves, live; <script> in it is text and never runs', async ({ expect }) => {
    const { service } = await statusPageWith(s, 'live');
    const { ctx, page, problems } = await open();
    await page.clock.install();
    await page.goto(`${s.url}/status/live`);
    await page.evaluate(() => ((globalThis as { marker?: number }).marker = 7));
    const state = page.locator('li.service .state');
    expect(await state.innerText()).toContain('Operational');
    const incident = await openIncident(s, service.id, 'Payments <img src=x onerror=alert(1)>', '<script>window.pwned = 1; alert("pwned")</script>Looking into it', 'CRITICAL');
    // The page's script refreshes its live part every 60 s, without a reload.
    await page.clock.runFor(60_000);
    await expect.poll(() => state.innerText(), REFRESH_WAIT).toContain('Major outage');
    const update = page.locator('#open-h ~ article .updates p').nth(1);
    expect(await update.innerText()).toBe('<script>window.pwned = 1; alert("pwned")</script>Looking into it');
    expect(await page.locator('#open-h ~ article h3').innerText()).toBe('Payments <img src=x onerror=alert(1)>');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('main script, main img').count()).toBe(0);
    await resolveIncident(s, incident.id, 'Payments are back.');
    await page.clock.runFor(60_000);
    await expect.poll(() => state.innerText(), REFRESH_WAIT).toContain('Operational');
    expect(await page.locator('#past-h ~ article h3').first().innerText()).toContain('Payments');
    expect(await page.evaluate(() => (globalThis as { marker?: number }).marker)).toBe(7);
    // The history bar shows today's outage; a fresh load (no script needed) shows the same.
    expect(await page.locator('svg.bar rect.day').last().getAttribute('class')).toBe('day d-major-outage');
    await page.reload();
    expect(await state.innerText()).toContain('Operational');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await ctx.close();
  });
});

/** Three checks tagged rot and a dashboard of two per page showing them, made once for the tests that read it. */
let rotation: Promise<{ a: any }> | undefined;
function rotationBoard(): Promise<{ a: any }> {
  rotation ??= (async () => {
    const a = await tcpCheck(s, 'rot-a', ['rot'], tcp.port);
    await tcpCheck(s, 'rot-b', ['rot'], tcp.port);
    await tcpCheck(s, 'rot-c', ['rot'], tcp.port);
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Rotation', customUrl: 'rotation', tags: ['rot'], checksPerPage: 2, paginationRate: 30, refreshRate: 60 });
    return { a };
  })();
  return rotation;
}

describe.concurrent('dashboard in Chromium', { timeout: PAGE_TIMEOUT }, () => {
  it('rotates pages of checks every paginationRate seconds and refreshes data without reloading', async ({ expect }) => {
    const { a } = await rotationBoard();
    const { ctx, page, problems } = await open();
    await page.clock.install();
    await page.goto(`${s.url}/dashboards/rotation`);
    const visible = () => page.locator('#checks > li:visible h3').allInnerTexts();
    expect(await visible()).toEqual(['rot-a', 'rot-b']);
    expect(await page.locator('#page-of').innerText()).toContain('page 1 of 2');
    await page.evaluate(() => ((globalThis as { marker?: number }).marker = 42));
    await page.clock.runFor(30_500);
    expect(await visible()).toEqual(['rot-c']);
    await page.clock.runFor(30_000);
    expect(await visible()).toEqual(['rot-a', 'rot-b']);
    expect(await page.locator('[data-check] .state').first().innerText()).toContain('No data');
    // A result arrives; the next refresh (60 s) shows it in place.
    await runOnce(s, a.id);
    await page.clock.runFor(60_000);
    await expect.poll(() => page.locator('#checks > li').first().locator('.state').innerText(), REFRESH_WAIT).toContain('Passing');
    expect(await page.locator('#checks > li').first().locator('dd').first().innerText()).toBe('100.00 %');
    expect(await page.evaluate(() => (globalThis as { marker?: number }).marker)).toBe(42);
    // Rotation goes on over the rebuilt list.
    expect((await visible()).length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('is readable without JavaScript: every check shown', async () => {
    await rotationBoard();
    const { ctx, page } = await open({ javaScriptEnabled: false });
    await page.goto(`${s.url}/dashboards/rotation`);
    expect(await page.locator('#checks > li:visible h3').allInnerTexts()).toEqual(['rot-a', 'rot-b', 'rot-c']);
    await ctx.close();
  });

  it('refuses a private dashboard, then shows it with its key, and its refresh keeps the key', async ({ expect }) => {
    const c = await tcpCheck(s, 'private check', ['priv'], tcp.port);
    const made = await apiOk(s, 'POST', '/v1/dashboards', { header: 'Private board', customUrl: 'private-board', tags: ['priv'], isPrivate: true });
    const key = made.keys[0].rawKey as string;
    const { ctx, page, problems } = await open();
    await page.clock.install();
    const refused = await page.goto(`${s.url}/dashboards/private-board`);
    expect(refused!.status()).toBe(401);
    expect(await page.locator('h1').innerText()).toBe('Key required');
    expect(await page.content()).not.toContain('private check');
    const shown = await page.goto(`${s.url}/dashboards/private-board?key=${key}`);
    expect(shown!.status()).toBe(200);
    expect(await page.locator('main h1').innerText()).toBe('Private board');
    expect(await page.locator('#checks h3').allInnerTexts()).toEqual(['private check']);
    await runOnce(s, c.id);
    await page.clock.runFor(60_000);
    await expect.poll(() => page.locator('#checks .state').innerText(), REFRESH_WAIT).toContain('Passing');
    expect(problems).toEqual([]);
    await ctx.close();
  });

  it('applies the owner’s customCSS last, and its </style> cannot inject a script', async () => {
    await apiOk(s, 'POST', '/v1/dashboards', {
      header: 'Styled',
      customUrl: 'styled',
      width: '960PX',
      customCSS: 'main h1{color:#aa0000}</style><script>window.pwned=1</script><style>',
    });
    const { ctx, page, problems } = await open();
    await page.goto(`${s.url}/dashboards/styled`);
    expect(await style(page, 'main h1', 'color')).toBe('rgb(170, 0, 0)');
    expect(await style(page, 'main', 'max-width')).toBe('960px');
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(1);
    expect(problems).toEqual([]);
    await ctx.close();
  });
});

describe.concurrent('screenshots (artifacts/pages, light and dark)', { timeout: PAGE_TIMEOUT }, () => {
  it('takes both pages in both schemes', async () => {
    const api = await apiOk(s, 'POST', '/v1/status-pages/services', { name: 'Public API' });
    const web = await apiOk(s, 'POST', '/v1/status-pages/services', { name: 'Website' });
    const db = await apiOk(s, 'POST', '/v1/status-pages/services', { name: 'Database' });
    await apiOk(s, 'POST', '/v1/status-pages', {
      name: 'Acme status', url: 'acme', cards: [{ name: 'Platform', services: [{ id: api.id }, { id: web.id }] }, { name: 'Data', services: [{ id: db.id }] }],
    });
    const ago = (days: number, hours = 0) => new Date(Date.now() - days * 86_400_000 + hours * 3_600_000).toISOString();
    const past = await apiOk(s, 'POST', '/v1/status-pages/incidents', {
      name: 'Slow queries', severity: 'MEDIUM', services: [{ id: db.id }], incidentUpdates: [{ description: 'Replica lag on the primary database.', publicIncidentUpdateDate: ago(12) }],
    });
    await apiOk(s, 'POST', `/v1/status-pages/incidents/${past.id}/incident-updates`, { description: 'Replica caught up.', status: 'RESOLVED', publicIncidentUpdateDate: ago(12, 3) });
    const outage = await apiOk(s, 'POST', '/v1/status-pages/incidents', {
      name: 'Website unreachable', severity: 'CRITICAL', services: [{ id: web.id }], incidentUpdates: [{ description: 'The CDN returns 503.', publicIncidentUpdateDate: ago(40) }],
    });
    await apiOk(s, 'POST', `/v1/status-pages/incidents/${outage.id}/incident-updates`, { description: 'The CDN is back.', status: 'RESOLVED', publicIncidentUpdateDate: ago(40, 1) });
    await openIncident(s, api.id, 'Elevated error rate', 'Some API requests fail with 502.', 'MAJOR');
    const shopChecks = [];
    for (const [name, tags, port] of [['Checkout API', ['shop'], tcp.port], ['Search', ['shop'], tcp.port], ['Payments DB', ['shop'], 1]] as const) shopChecks.push(await tcpCheck(s, name, [...tags], port));
    await Promise.all(shopChecks.map((check) => runOnce(s, check.id)));
    await apiOk(s, 'POST', '/v1/dashboards', { header: 'Acme shop', description: 'Checks of the shop', customUrl: 'acme-shop', tags: ['shop'], enableIncidents: true });
    // Both schemes at once, a context each: they only read.
    await Promise.all(
      (['light', 'dark'] as const).map(async (scheme) => {
        const { ctx, page, problems } = await open({ colorScheme: scheme, viewport: { width: 1000, height: 800 } });
        await page.goto(`${s.url}/status/acme`);
        await page.screenshot({ path: join(ARTIFACTS, `status-page-${scheme}.png`), fullPage: true });
        await page.goto(`${s.url}/dashboards/acme-shop`);
        expect(await page.locator('#checks .state').allInnerTexts()).toEqual(['✓ Passing', '✕ Failing', '✓ Passing']);
        await page.screenshot({ path: join(ARTIFACTS, `dashboard-${scheme}.png`), fullPage: true });
        expect(problems).toEqual([]);
        await ctx.close();
      }),
    );
  });
});
