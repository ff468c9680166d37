import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { cleanEnv, MAC_BIN, runMac } from '../helpers/cli.js';
import { startServe, callApi, waitFor, type Served } from '../helpers/serve.js';
import { startHttpServer, json, type HttpServer } from '../helpers/http-server.js';

// Multi-step checks as a user runs them: `mac test` on definitions, `mac serve` on its schedule.
// Every run spawns Node and Playwright, so each case runs few scripts; the cases are independent
// (a project directory each, the service's checks its own) and all run at once: no case bounds a
// duration, each waits for its runs' outcomes.
let http: HttpServer;
const dirs: string[] = [];
/** Requests of the SIGINT case's script that reached the target (its Playwright is running). */
let waiting = 0;
/** The schedule case's service, started before the cases run at once and load the machine. */
let scheduled: Served;

beforeAll(async () => {
  http = await startHttpServer({
    '/health': json(200, { ok: true }),
    '/cart': json(201, { cartId: 'c1' }),
    '/checkout': json(500, { error: 'payment service down' }),
    '/hang': () => undefined,
    '/wait-here': () => void waiting++,
  });
  scheduled = await startServe(['--time-scale', '30']);
}, 60_000);
afterAll(async () => {
  await scheduled?.stop();
  await http.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const header = "const { test, expect } = require('@playwright/test');";
const passing = `${header}
test('health and cart', async ({ request }) => {
  expect(Object.keys(process.env).filter((k) => k.startsWith('MAC_'))).toEqual([]);
  const health = await request.get(process.env.SHOP_URL + '/health');
  expect(await health.json()).toEqual({ ok: true });
  const cart = await request.post(process.env.SHOP_URL + '/cart', { data: { sku: 'a' } });
  expect(cart.status()).toBe(201);
});`;
const failingSecond = `${header}
test('checkout', async ({ request }) => {
  const cart = await request.post(process.env.SHOP_URL + '/cart', { data: { sku: 'a' } });
  expect(cart.status()).toBe(201);
  const pay = await request.post(process.env.SHOP_URL + '/checkout', { data: { cartId: 'c1' } });
  expect(pay.status()).toBe(200);
});`;
const browser = `${header}
test('home page', async ({ page }) => {
  await page.goto(process.env.SHOP_URL + '/health');
});`;
// The answer never comes: the test's timeout ends it, however short.
const slow = `${header}
test('slow answer', async ({ request }) => {
  test.setTimeout(500);
  await request.get(process.env.SHOP_URL + '/hang');
});`;

const indent = (s: string) => s.replace(/^/gm, '  ');
const definition = (id: string, s: string) => `kind: MultiStepCheck
id: ${id}
name: ${id}
doubleCheck: false
environmentVariables:
  - { key: SHOP_URL, value: "${http.url}" }
script: |
${indent(s)}
`;

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-multistep-e2e-'));
  dirs.push(dir);
  await writeFile(join(dir, 'mac.config.yaml'), 'project: shop\n');
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** A multi-step run takes seconds: polls every 250 ms, for up to 90 s unless told. */
const waitRun = <T,>(probe: () => Promise<T | undefined>, timeoutMs = 90_000) => waitFor(probe, timeoutMs, 250);

describe.concurrent('mac test on multi-step checks', { timeout: 180_000 }, () => {
  it('passes, fails on the second request naming it, refuses a browser, and stops at the script timeout', async () => {
    const dir = await project({
      'checks.yaml': [definition('journey', passing), definition('checkout', failingSecond), definition('browser', browser), definition('slow', slow)].join('---\n'),
    });
    const r = await runMac(['test', dir, '--format', 'json'], { env: { MAC_API_KEY: 'must-not-leak' }, timeoutMs: 170_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toEqual({ pass: 1, fail: 3, degraded: 0, skipped: 0 });
    const byId = Object.fromEntries(report.checks.map((c: any) => [c.id, c]));
    expect(byId.journey).toMatchObject({ checkType: 'MULTI_STEP', status: 'pass', message: null, result: { apiCheckResult: null, multiStepCheckResult: { errors: [] } } });
    expect(byId.journey.result.multiStepCheckResult.jobLog).toEqual(
      expect.arrayContaining([expect.stringContaining(`ok request 1: GET ${http.url}/health (line 4)`), expect.stringContaining(`ok request 2: POST ${http.url}/cart (line 6)`)]),
    );
    expect(byId.checkout.status).toBe('fail');
    expect(byId.checkout.message).toMatch(new RegExp(`^test "checkout" failed at Expect "toBe" \\(line 6\\) after request 2: POST ${http.url}/checkout \\(line 5\\): .*Expected: 200 Received: 500`));
    expect(byId.browser.message).toContain('no browser is available to multi-step checks');
    expect(byId.slow.message).toMatch(/^test "slow answer" failed.*: Test timeout of 500ms exceeded/);
  }, 180_000);

  it('Ctrl-C (SIGINT) stops the multi-step runs under way with mac test: no Playwright process is left', async () => {
    const hanging = `${header}
test('waits', async ({ request }) => {
  test.setTimeout(60_000);
  await request.get(process.env.SHOP_URL + '/wait-here', { timeout: 60_000 });
});`;
    const dir = await project({ 'checks.yaml': definition('waits', hanging) });
    // A temp dir of its own: the runs' directories (and so their processes' arguments) lie under it.
    const tmp = await mkdtemp(join(tmpdir(), 'mac-multistep-sigint-'));
    dirs.push(tmp);
    // Searchable by others: as root the sandbox's user must reach the run dirs made under it.
    await chmod(tmp, 0o755);
    const leftovers = () => {
      const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
      return ps.split('\n').filter((l) => l.includes(tmp));
    };
    const child = spawn(process.execPath, [MAC_BIN, 'test', dir], { env: cleanEnv({ TMPDIR: tmp }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitRun(async () => (leftovers().length > 0 ? true : undefined), 60_000);
    // The script's request reached the target: Node, Playwright and its worker are all running.
    await waitRun(async () => (waiting > 0 ? true : undefined), 60_000);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('mac test: stopped by SIGINT');
    await waitRun(async () => (leftovers().length === 0 ? true : undefined), 10_000);
  }, 120_000);

  it('lists multi-step checks as skipped with --no-typescript: their scripts are code', async () => {
    const dir = await project({ 'checks.yaml': definition('journey', passing) });
    const r = await runMac(['test', dir, '--no-typescript']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^MultiStepCheck\/journey\s+MULTI_STEP\s+skipped\s+-\s+multi-step scripts are code: not run with --no-typescript$/m);
  });
});

// Beside the `mac test` cases: the service runs its scripts in a pool of its own.
describe.concurrent('mac serve runs multi-step checks', () => {
  it('runs them on schedule: results, sessions, an error group and an alert for the failing one', async () => {
    // Hourly at time scale 30 = due at once, then every 2 min: each check runs once on schedule
    // (then the triggered session), not a run every 2 s that loads the machine for nothing.
    await runsOnSchedule(scheduled);
  }, 180_000);
});

/** The schedule case against a running service. */
async function runsOnSchedule(served: Served): Promise<void> {
  const api = (method: string, path: string, body?: unknown) => callApi(served, method, path, body);
  const channel = await api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@shop.test' } });
  expect(channel.status).toBe(201);
  const variables = [{ key: 'SHOP_URL', value: http.url }, { key: 'SHOP_TOKEN', value: 'tok-secret-value', secret: true }];
  const good = await api('POST', '/v1/checks/multistep', { name: 'journey', frequency: 60, doubleCheck: false, environmentVariables: variables, script: passing });
  const bad = await api('POST', '/v1/checks/multistep?autoAssignAlerts=true', {
    name: 'checkout',
    frequency: 60,
    doubleCheck: false,
    environmentVariables: variables,
    script: failingSecond.replace("test('checkout', async ({ request }) => {", "test('checkout', async ({ request }) => {\n  console.log('token ' + process.env.SHOP_TOKEN);"),
  });
  expect([good.status, bad.status]).toEqual([201, 201]);

  const [passed] = await waitRun(async () => {
    const r = await api('GET', `/v1/check-results/${good.body.id}`);
    return r.body.length > 0 ? r.body : undefined;
  });
  expect(passed).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, apiCheckResult: null, multiStepCheckResult: { errors: [] } });

  const [failed] = await waitRun(async () => {
    const r = await api('GET', `/v1/check-results/${bad.body.id}`);
    return r.body.length > 0 ? r.body : undefined;
  });
  expect(failed).toMatchObject({ resultType: 'FINAL', hasFailures: true, multiStepCheckResult: { errors: [expect.stringContaining(`after request 2: POST ${http.url}/checkout`)] } });
  expect(failed.multiStepCheckResult.jobLog).toContain('token ********');
  expect(JSON.stringify(failed)).not.toContain('tok-secret-value');

  // A triggered session of the failing check ends FAILED with its FINAL result.
  const trigger = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: [bad.body.id] } });
  expect(trigger.status).toBe(201);
  const session = await waitRun(async () => {
    const s = await api('GET', `/v1/check-sessions/${trigger.body.sessions[0].checkSessionId}`);
    return ['FAILED', 'PASSED', 'TIMED_OUT'].includes(s.body.status) ? s.body : undefined;
  });
  expect(session).toMatchObject({ checkId: bad.body.id, checkType: 'MULTI_STEP', status: 'FAILED', results: [{ resultType: 'FINAL', hasFailures: true }] });

  const groups = await waitRun(async () => {
    const g = await api('GET', `/v1/error-groups/checks/${bad.body.id}`);
    return g.status === 200 && g.body.length > 0 ? g.body : undefined;
  });
  expect(groups[0].rawErrorMessage).toContain('after request 2: POST');

  const alerts = await waitRun(async () => {
    const n = await api('GET', '/v1/alert-notifications');
    return n.body.some((a: any) => a.checkId === bad.body.id) ? n.body : undefined;
  });
  expect(alerts.find((a: any) => a.checkId === bad.body.id)).toMatchObject({ alertType: 'ALERT_FAILURE' });
  expect(alerts.some((a: any) => a.checkId === good.body.id)).toBe(false);
}
