import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { startServe, callApi, waitFor, type Served } from '../helpers/serve.js';
import { CHROMIUM_PATH, INSTALL_CHROMIUM } from '../helpers/browser.js';
import { browserCheckYaml, browserScript, scriptProject, startSite } from '../helpers/site.js';
import type { HttpServer } from '../helpers/http-server.js';
import { OpenApiValidator, type Schema } from '../helpers/openapi-validate.js';

const reference = new OpenApiValidator(JSON.parse(readFileSync(new URL('../reference/openapi.json', import.meta.url), 'utf8')) as Schema);
/** Problems of a body against a reference schema, without those api-decisions settles (traceId: §2.15; series as strings: §5.6). */
const problems = (body: unknown, name: string) =>
  reference.validate(body, { $ref: `#/components/schemas/${name}` }).filter((p) => !/traceId: required|\.series\[\d+\]: string where the reference has object/.test(p));

// Browser checks as a user runs them, in Debian's Chromium against a local site: `mac serve` on
// its schedule (results, assets, sessions, error groups, alerts, analytics) and `mac test`. Each
// run starts Chromium: few runs. The two cases are independent (a service or a project directory
// each) and run at once. Plan, apply and import of a BrowserCheck with scriptFile, where no
// script runs: test/integration/browser-scriptfile.test.ts.
let site: HttpServer;
const services: Served[] = [];
const dirs: string[] = [];
/** The service of the schedule case, started before the cases run. */
let scheduled: Served;

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${INSTALL_CHROMIUM} (no browser at ${CHROMIUM_PATH})`);
  site = await startSite();
  // Before the cases' runs load the machine.
  scheduled = await serve(['--keys', keysFile(), '--time-scale', '30']);
}, 120_000);
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await site?.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A `mac serve` of the test's own, stopped when the file ends. */
async function serve(args: string[]): Promise<Served> {
  const s = await startServe(args);
  services.push(s);
  return s;
}

const passing = browserScript(`test('home', async ({ page }) => {
  await page.goto(process.env.SHOP_URL + '/');
  await expect(page.locator('h1')).toHaveText('Welcome');
});`);
// The element never comes: a short click timeout fails the same way as a long one, sooner.
const missingElement = browserScript(`test('buy', async ({ page }) => {
  await page.goto(process.env.SHOP_URL + '/');
  await page.locator('#buy-button').click({ timeout: 500 });
});`);

const waitRun = <T,>(probe: () => Promise<T | undefined>, timeoutMs = 120_000) => waitFor(probe, timeoutMs, 250);

function keysFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mac-browser-keys-'));
  dirs.push(dir);
  const file = join(dir, 'keys.json');
  writeFileSync(file, JSON.stringify({ keys: [{ key: 'acme-admin-key-1', account: 'acme' }, { key: 'beta-admin-key-2', account: 'beta' }] }));
  return file;
}

describe.concurrent('mac serve runs browser checks', () => {
  it('on schedule: vitals, the failed step, screenshot and trace for the account only, session, error group, alert and analytics', async () => {
    // Hourly at time scale 30 = due at once, then every 2 min: each check runs once on schedule
    // (and the failing one in a triggered session), not a Chromium every 2 s that loads the
    // machine for nothing.
    const served = scheduled;
    const acme = (method: string, path: string, body?: unknown) => callApi(served, method, path, body, 'acme-admin-key-1');
    const beta = (method: string, path: string) => callApi(served, method, path, undefined, 'beta-admin-key-2');
    const channel = await acme('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@shop.test' } });
    expect(channel.status).toBe(201);
    const variables = [{ key: 'SHOP_URL', value: site.url }];
    const good = await acme('POST', '/v1/checks/browser', { name: 'home', frequency: 60, doubleCheck: false, environmentVariables: variables, script: passing });
    const bad = await acme('POST', '/v1/checks/browser?autoAssignAlerts=true', { name: 'buy', frequency: 60, doubleCheck: false, environmentVariables: variables, script: missingElement });
    expect([good.status, bad.status]).toEqual([201, 201]);
    expect(good.body).toMatchObject({ checkType: 'BROWSER', frequency: 60, script: passing, sslCheckDomain: null });
    expect((await acme('PUT', `/v1/checks/browser/${good.body.id}`, { tags: ['web'] })).body).toMatchObject({ tags: ['web'], script: passing });

    const [passed] = await waitRun(async () => {
      const r = await acme('GET', `/v1/check-results/${good.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    });
    // The failing check's scheduled run started with the passing one's (both were due at once): a
    // triggered session of it runs now, beside it, in the slot the passing run left.
    const trigger = await acme('POST', '/v1/check-sessions/trigger', { target: { checkId: [bad.body.id] } });
    expect(trigger.status).toBe(201);
    expect(passed).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, apiCheckResult: null, multiStepCheckResult: null, browserCheckResult: { errors: [], jobAssets: [] } });
    const [home] = passed.browserCheckResult.pages;
    expect(home.url).toBe(`${site.url}/`);
    expect(home.webVitals.TTFB.value).toBeGreaterThanOrEqual(0);
    expect(home.webVitals.TTFB.value).toBeLessThan(5000);
    expect(home.webVitals.FCP.value).toBeGreaterThan(0);
    expect(passed.browserCheckResult.traceSummary.consoleErrors).toBeGreaterThanOrEqual(1);

    // The triggered session ends FAILED with its FINAL result.
    const session = await waitRun(async () => {
      const s = await acme('GET', `/v1/check-sessions/${trigger.body.sessions[0].checkSessionId}`);
      return ['FAILED', 'PASSED', 'TIMED_OUT'].includes(s.body.status) ? s.body : undefined;
    });
    expect(session).toMatchObject({ checkId: bad.body.id, checkType: 'BROWSER', status: 'FAILED', results: [{ resultType: 'FINAL', hasFailures: true }] });

    // The scheduled run's result: the failing check's result that is not the session's.
    const [failed] = await waitRun(async () => {
      const r = await acme('GET', `/v1/check-results/${bad.body.id}`);
      const scheduledRuns = r.body.filter((x: any) => x.id !== session.results[0].checkResultId);
      return scheduledRuns.length > 0 ? scheduledRuns : undefined;
    });
    expect(failed).toMatchObject({ resultType: 'FINAL', hasFailures: true, browserCheckResult: { jobAssets: ['screenshot.png', 'trace.zip'] } });
    expect(problems(passed, 'CheckResult')).toEqual([]);
    expect(problems(failed, 'CheckResult')).toEqual([]);
    expect(failed.browserCheckResult.errors[0]).toMatch(/^test "buy" failed at step "Click" \(line 4\) after request 1: NAVIGATE .*: TimeoutError: locator\.click: Timeout 500ms exceeded/);

    // The assets: a manifest with authenticated URLs, the files for this account's key only.
    const manifestPath = `/v1/check-results/${bad.body.id}/${failed.id}/assets`;
    const manifest = await acme('GET', manifestPath);
    expect(manifest.status).toBe(200);
    expect(problems(manifest.body, 'AssetManifest')).toEqual([]);
    expect(manifest.body.assets.map((a: any) => [a.type, a.name, a.contentType])).toEqual([
      ['screenshot', 'screenshot.png', 'image/png'],
      ['trace', 'trace.zip', 'application/zip'],
    ]);
    expect((await acme('GET', `${manifestPath}?type=trace`)).body.assets.map((a: any) => a.name)).toEqual(['trace.zip']);
    const fetchAsset = (url: string, key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const shot = await fetchAsset(manifest.body.assets[0].url, 'acme-admin-key-1');
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await shot.arrayBuffer()).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const trace = await fetchAsset(manifest.body.assets[1].url, 'acme-admin-key-1');
    expect(trace.status).toBe(200);
    expect(Buffer.from(await trace.arrayBuffer()).subarray(0, 4).toString('hex')).toBe('504b0304');
    expect((await fetchAsset(manifest.body.assets[0].url, 'beta-admin-key-2')).status).toBe(404);
    expect((await beta('GET', manifestPath)).status).toBe(404);
    expect((await fetchAsset(manifest.body.assets[0].url, 'no-such-key')).status).toBe(401);
    // Under another check of the account, the asset is as missing as an unknown one.
    expect((await acme('GET', `/v1/check-results/${good.body.id}/${failed.id}/assets/screenshot.png`)).status).toBe(404);

    const groups = await waitRun(async () => {
      const g = await acme('GET', `/v1/error-groups/checks/${bad.body.id}`);
      return g.status === 200 && g.body.length > 0 ? g.body : undefined;
    });
    expect(groups[0].rawErrorMessage).toContain('failed at step "Click"');

    const alerts = await waitRun(async () => {
      const n = await acme('GET', '/v1/alert-notifications');
      return n.body.some((a: any) => a.checkId === bad.body.id) ? n.body : undefined;
    });
    expect(alerts.find((a: any) => a.checkId === bad.body.id)).toMatchObject({ alertType: 'ALERT_FAILURE' });
    expect(alerts.some((a: any) => a.checkId === good.body.id)).toBe(false);

    const analytics = await acme('GET', `/v1/analytics/browser-checks/${good.body.id}?metrics=TTFB_avg,FCP_max,availability,consoleErrors&quickRange=last24Hours`);
    expect(analytics.status).toBe(200);
    expect(problems(analytics.body, 'AnalyticsBrowserCheckResponse')).toEqual([]);
    expect(analytics.body).toMatchObject({ checkId: good.body.id, checkType: 'BROWSER', metadata: { TTFB_avg: { unit: 'milliseconds' }, availability: { unit: 'percentage' } } });
    const [point] = JSON.parse(analytics.body.series[0]).data;
    expect(point.availability).toBe(100);
    expect(point.TTFB_avg).toBeGreaterThanOrEqual(0);
    expect(point.FCP_max).toBeGreaterThan(0);
    expect(point.consoleErrors).toBeGreaterThanOrEqual(1);
    const byPage = await acme('GET', `/v1/analytics/browser-checks/${good.body.id}?metrics=LCP_p95&groupBy=pageIndex`);
    expect(byPage.status).toBe(200);
    expect(JSON.parse(byPage.body.series[0])).toMatchObject({ pageIndex: 0 });
    expect((await acme('GET', `/v1/analytics/browser-checks/${good.body.id}?metrics=dns`)).status).toBe(400);
    expect((await beta('GET', `/v1/analytics/browser-checks/${good.body.id}?metrics=TTFB`)).status).toBe(404);
  }, 240_000);
});

const project = (files: Record<string, string>) => scriptProject(dirs, 'mac-browser-e2e-', files);

const definition = (id: string, scriptFile: string) => browserCheckYaml(id, scriptFile, site?.url);

describe.concurrent('mac test on browser checks', () => {
  it('passes one and fails one on a missing element, naming the step', async () => {
    const dir = await project({
      'checks.yaml': [definition('home', 'scripts/home.spec.js'), definition('buy', 'scripts/buy.spec.js')].join('---\n'),
      'scripts/home.spec.js': passing,
      'scripts/buy.spec.js': missingElement,
    });
    const r = await runMac(['test', dir, '--format', 'json'], { timeoutMs: 170_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toEqual({ pass: 1, fail: 1, degraded: 0, skipped: 0 });
    const byId = Object.fromEntries(report.checks.map((c: any) => [c.id, c]));
    expect(byId.home).toMatchObject({ kind: 'BrowserCheck', checkType: 'BROWSER', status: 'pass', message: null });
    expect(byId.home.result.browserCheckResult.pages[0].webVitals.FCP.value).toBeGreaterThan(0);
    expect(byId.buy.status).toBe('fail');
    expect(byId.buy.message).toMatch(/^test "buy" failed at step "Click" \(line 4\)/);
    // The report is JSON: the assets' bytes stay out of it, their names are listed.
    expect(byId.buy.result.browserCheckResult.jobAssets).toEqual(['screenshot.png', 'trace.zip']);
    expect(byId.buy.result.assets).toBeUndefined();

    const skipped = await runMac(['test', dir, '--no-typescript']);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/^BrowserCheck\/home\s+BROWSER\s+skipped\s+-\s+browser check scripts are code: not run with --no-typescript$/m);
  }, 180_000);
});
