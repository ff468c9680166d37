import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, CHROMIUM_PATH } from '../../../src/runner/index.js';
import { browserOf, vitalScore, CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES, UNUSED_CHROMIUM_FEATURES } from '../../../src/runner/multistep/run.js';
import { INSTALL_CHROMIUM } from '../../helpers/browser.js';
import { browserScript, startSite } from '../../helpers/site.js';
import type { HttpServer } from '../../helpers/http-server.js';

// Each run starts Node, Playwright and Chromium: a few real scripts only, run at once (the
// runner's pool takes two at a time on 2 cores).
let site: HttpServer;
/** A live case waits for its turn in the pool, then for Node, Playwright and Chromium to start. */
const LIVE_TIMEOUT = 240_000;
beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${INSTALL_CHROMIUM} (no browser at ${CHROMIUM_PATH})`);
  site = await startSite();
});
afterAll(() => site?.close());

const check = (body: string, extra: Record<string, unknown> = {}) => ({
  checkType: 'BROWSER' as const,
  name: 'shop',
  doubleCheck: false,
  script: browserScript(body),
  environmentVariables: [
    { key: 'BASE_URL', value: site.url },
    { key: 'SHOP_PASSWORD', value: 'pw-very-secret', secret: true },
  ],
  ...extra,
});

describe.concurrent('browser check runner (Chromium)', { timeout: LIVE_TIMEOUT }, () => {
  it('passes a script using page, with web vitals per page and the console and network errors it saw', async () => {
    const [r] = await runCheck(
      check(`test('home and about', async ({ page }) => {
  // Chromium on a loaded machine may not have painted yet when the text is there: the script
  // waits for the first paint, so the vitals of a page that is left are what is tested.
  const painted = () => page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
  await page.goto(process.env.BASE_URL + '/');
  await expect(page.locator('h1')).toHaveText('Welcome');
  await painted();
  console.log('password ' + process.env.SHOP_PASSWORD);
  await page.click('#next');
  await expect(page.locator('h1')).toHaveText('About us');
  await painted();
  // The test ends before this page is painted: its first paint is awaited for a moment.
  await page.goto(process.env.BASE_URL + '/late');
  expect(await page.locator('h1').textContent()).toBe('Late');
});`),
    );
    expect(r).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, multiStepCheckResult: null, errorMessage: null });
    expect(r.assets).toBeUndefined();
    const b = r.browserCheckResult!;
    expect(b.errors).toEqual([]);
    expect(b.jobAssets).toEqual([]);
    expect(b.runtimeVersion).toMatch(/^@playwright\/test \d+\.\d+\.\d+$/);
    expect(b.jobLog).toContain('password ********');
    expect(b.jobLog.join('\n')).not.toContain('pw-very-secret');
    expect(b.pages.map((p) => p.url)).toEqual([`${site.url}/`, `${site.url}/about`, `${site.url}/late`]);
    expect(b.pages[2].webVitals.FCP!.value).toBeGreaterThanOrEqual(1000);
    for (const p of b.pages) {
      const v = p.webVitals;
      expect(v.TTFB!.value).toBeGreaterThanOrEqual(0);
      expect(v.TTFB!.value).toBeLessThan(5000);
      expect(v.FCP!.value).toBeGreaterThan(0);
      expect(v.FCP!.value).toBeLessThan(30_000);
      expect(v.CLS!.value).toBeGreaterThanOrEqual(0);
      expect(v.TBT!.value).toBeGreaterThanOrEqual(0);
    }
    expect(b.traceSummary).toMatchObject({ userScriptErrors: 0, documentErrors: 0 });
    expect(b.traceSummary.console.map((c) => c.text)).toContain('widget failed to load');
    expect(b.traceSummary.consoleErrors).toBeGreaterThanOrEqual(1);
    expect(b.traceSummary.network).toContainEqual({ url: `${site.url}/missing.png`, method: 'GET', status: 404, error: null });
    // The page fixture's own calls are not steps of the script.
    expect(b.jobLog.some((l) => l.includes('node_modules'))).toBe(false);
  });

  it('fails on a missing element naming the step, with a PNG screenshot and a trace zip as assets', async () => {
    // The element never comes: a short click timeout fails the same way as a long one, sooner.
    const [r] = await runCheck(
      check(`test('buy', async ({ page }) => {
  await page.goto(process.env.BASE_URL + '/');
  await page.locator('#buy-button').click({ timeout: 500 });
});`),
    );
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(r.errorMessage).toMatch(/^test "buy" failed at step "Click" \(line 4\) after request 1: NAVIGATE http:\/\/127\.0\.0\.1:\d+\/ \(line 3\): TimeoutError: locator\.click: Timeout 500ms exceeded/);
    const b = r.browserCheckResult!;
    expect(b.errors[0]).toBe(r.errorMessage);
    expect(b.jobAssets).toEqual(['screenshot.png', 'trace.zip']);
    expect(b.playwrightTestTraces).toEqual(['trace.zip']);
    const [shot, trace] = r.assets!;
    expect(shot).toMatchObject({ name: 'screenshot.png', type: 'screenshot', contentType: 'image/png' });
    expect(shot.data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(trace).toMatchObject({ name: 'trace.zip', type: 'trace', contentType: 'application/zip' });
    expect(trace.data.subarray(0, 4).toString('hex')).toBe('504b0304');
    expect(b.pages[0].url).toBe(`${site.url}/`);
  });
});

describe.concurrent('browser check memory', { timeout: LIVE_TIMEOUT }, () => {
  it('stops a run whose page makes the browser processes together hold more than the limit, and fails it saying so', async () => {
    // The page holds 64 MiB more every 50 ms (in the renderer, not the script's process): 1.5 GiB
    // in all, over a limit of 1 GiB for the tree, each process under its own data limit.
    const [r] = await runCheck(
      check(`test('grow', async ({ page }) => {
  await page.goto(process.env.BASE_URL + '/');
  await page.evaluate(async () => {
    const held = [];
    for (let i = 0; i < 24; i++) {
      held.push(new Uint8Array(64 * 1024 * 1024).fill(1));
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 60000));
    return held.length;
  });
});`),
      { multiStep: { treeMemoryBytes: 1024 ** 3 } },
    );
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(r.errorMessage).toMatch(/^the script's processes used 1(\.\d)? GiB of memory together, over the 1 GiB a run may use, and were stopped$/);
    expect(r.browserCheckResult!.errors).toEqual([r.errorMessage]);
  });
});

describe.concurrent('browser check assets bound', { timeout: LIVE_TIMEOUT }, () => {
  it('keeps the assets that fit in the bound, in order, and logs the one left out', async () => {
    // A screenshot of this page is a few KiB; its trace (resources and DOM snapshots) is more than 15 KB.
    const [r] = await runCheck(
      check(`test('buy', async ({ page }) => {
  await page.goto(process.env.BASE_URL + '/about');
  await page.locator('#buy-button').click({ timeout: 500 });
});`),
      { multiStep: { maxAssetBytes: 15_000 } },
    );
    expect(r.hasFailures).toBe(true);
    expect(r.assets!.map((a) => a.name)).toEqual(['screenshot.png']);
    expect(r.assets![0].data.length).toBeLessThanOrEqual(15_000);
    expect(r.browserCheckResult!.jobAssets).toEqual(['screenshot.png']);
    expect(r.browserCheckResult!.playwrightTestTraces).toEqual([]);
    expect(r.browserCheckResult!.jobLog.some((l) => /^trace\.zip \(\d+ bytes\) is over the 15000 bytes kept of a run's assets: not kept$/.test(l))).toBe(true);
  });
});

describe.concurrent('browser check assets from the script', { timeout: LIVE_TIMEOUT }, () => {
  it('reads no file outside the run directory through a link the script puts in place of its screenshot', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'mac-outside-')), 'service.db');
    writeFileSync(outside, 'SECRET DATABASE');
    const [r] = await runCheck(
      check(`const fs = require('node:fs');
test('attach', async ({ page }, testInfo) => {
  fs.writeFileSync('shot.png', 'png');
  await testInfo.attach('screenshot', { path: 'shot.png', contentType: 'image/png' });
  // Playwright copied the file into the run's output: the copy becomes a link to a file of the service.
  const copy = testInfo.attachments.at(-1).path;
  fs.unlinkSync(copy);
  fs.symlinkSync(${JSON.stringify(outside)}, copy);
  expect(1).toBe(2);
});`),
    );
    expect(r.hasFailures).toBe(true);
    expect((r.assets ?? []).some((a) => a.data.toString('utf8').includes('SECRET DATABASE'))).toBe(false);
    // The screenshot kept is Playwright's own of the failure, a PNG.
    const shot = (r.assets ?? []).find((a) => a.name === 'screenshot.png');
    expect(shot?.data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });
});

describe.concurrent('browser check Chromium flags', { timeout: LIVE_TIMEOUT }, () => {
  it('repeat every feature the installed Playwright disables (Chromium reads only the last --disable-features)', () => {
    // In playwright-core's bundle: disabledFeatures = [ "Name", // comment ... ].filter(Boolean).
    const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'lib', 'coreBundle.js'), 'utf8');
    const list = /disabledFeatures = \[([^\]]*)\]/.exec(bundle)?.[1];
    expect(list, 'disabledFeatures in playwright-core/lib/coreBundle.js').toBeDefined();
    const theirs = [...list!.replace(/\/\/[^\n]*/g, '').matchAll(/"([A-Za-z0-9]+)"/g)].map((m) => m[1]);
    expect(theirs.length).toBeGreaterThan(5);
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...theirs].sort());
    const flags = CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='));
    expect(flags).toHaveLength(1);
    const ours = flags[0].slice('--disable-features='.length).split(',');
    for (const feature of [...theirs, ...UNUSED_CHROMIUM_FEATURES]) expect(ours, feature).toContain(feature);
  });

  it('start no page of the browser\'s own user interface beside the check\'s page', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS], timeout: 120_000 });
    try {
      const page = await browser.newPage();
      await page.setContent('<h1>x</h1>');
      const cdp = await browser.newBrowserCDPSession();
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
      // Without the flags: two more, chrome://omnibox-popup.top-chrome/ pages of type browser_ui.
      expect(targetInfos.map((t) => `${t.type} ${t.url}`)).toEqual(['page about:blank']);
    } finally {
      await browser.close();
    }
  });
});

describe('browser results (pure)', () => {
  it('scores vitals at the web.dev thresholds', () => {
    expect([vitalScore('LCP', 2500), vitalScore('LCP', 2501), vitalScore('LCP', 4001)]).toEqual(['GOOD', 'NEEDS_IMPROVEMENT', 'POOR']);
    expect([vitalScore('CLS', 0.05), vitalScore('CLS', 0.2), vitalScore('CLS', 0.3)]).toEqual(['GOOD', 'NEEDS_IMPROVEMENT', 'POOR']);
  });

  it('keeps at most 20 pages and drops values that are not finite non-negative numbers', () => {
    const pages = Array.from({ length: 30 }, (_, i) => ({ url: `http://x/${i}`, vitals: { TTFB: i === 0 ? -1 : 10, FCP: Number.NaN, LCP: null, CLS: 0.01, TBT: 0 } }));
    const test = { title: 't', status: 'passed', ok: true, duration: 1, errors: [], failedStep: null };
    const seen = { pages, console: [], network: [], consoleErrors: 2, networkErrors: 1, userScriptErrors: 0, documentErrors: 0 };
    const out = browserOf({ status: 'passed', tests: [{ ...test, browser: seen }, { ...test, browser: seen }], errors: [] });
    expect(out.scored).toHaveLength(20);
    expect(out.scored[0].webVitals).toEqual({ CLS: { value: 0.01, score: 'GOOD' }, TBT: { value: 0, score: 'GOOD' } });
    expect(Object.keys(out.scored[1].webVitals)).toEqual(['TTFB', 'CLS', 'TBT']);
    expect(out.consoleErrors).toBe(4);
  });
});
