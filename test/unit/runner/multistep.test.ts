import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, NO_BROWSER, stopMultiStepRuns } from '../../../src/runner/index.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deadReport, judgeRun, MULTI_STEP_DEFAULTS } from '../../../src/runner/multistep/run.js';
import { PLAYWRIGHT_INTERNALS } from '../../../src/runner/multistep/files.js';
import { startHttpServer, json, type HttpServer } from '../../helpers/http-server.js';

// Each run spawns Node and Playwright: these tests run a handful of real scripts only, at once
// (the runner's pool takes two at a time on 2 cores), but for the one that stops every run.
let http: HttpServer;
beforeAll(async () => {
  http = await startHttpServer({ '/health': json(200, { ok: true }), '/broken': json(500, { ok: false }) });
});
afterAll(() => http.close());

const script = (body: string) => `const { test, expect } = require('@playwright/test');\n${body}\n`;
const check = (s: string | null, extra: Record<string, unknown> = {}) => ({
  checkType: 'MULTI_STEP' as const,
  name: 'journey',
  doubleCheck: false,
  script: s,
  environmentVariables: [
    { key: 'BASE_URL', value: http.url },
    { key: 'API_TOKEN', value: 'tok-very-secret', secret: true },
  ],
  ...extra,
});

/**
 * A run shared by the cases that check different facts of it (every run costs a Node and a
 * Playwright start and a turn in the pool of two): started by the first case that asks.
 */
function shared<T>(start: () => Promise<T>): () => Promise<T> {
  let run: Promise<T> | undefined;
  return () => (run ??= start());
}

/**
 * The focusing call of a Playwright script, written apart so that this file holds no text that
 * reads as a focused vitest test (the script's text is the same).
 */
const FOCUSED = 'test' + '.only';

/**
 * A passing test beside a test that must not run (test.only), which reads the check's variables
 * and this process's environment: the environment case and the test.only case read its result.
 */
const onlyRun = shared(async () => {
  process.env.MAC_API_KEY_FOR_TEST = 'leak';
  try {
    return await runCheck(
      check(
        script(`test('not this one', async () => {
  throw new Error('ran a test beside test.only');
});
${FOCUSED}('only this one', async ({ request }) => {
  expect(Object.keys(process.env).filter((k) => k.startsWith('MAC_'))).toEqual([]);
  expect(process.env.API_TOKEN).toBe('tok-very-secret');
  console.log('token is ' + process.env.API_TOKEN);
  expect((await request.get(process.env.BASE_URL + '/health')).ok()).toBe(true);
});`),
      ),
    );
  } finally {
    delete process.env.MAC_API_KEY_FOR_TEST;
  }
});

/**
 * Two tests sharing a worker fixture, the first failing at its second request, run with
 * doubleCheck: the retry case reads its attempts, the worker case what ran after the failure.
 */
const workerRun = shared(() =>
  runCheck(
    check(
      script(
        `const t = test.extend({ w: [async ({}, use) => { console.log('worker up'); await use(1); console.log('worker down'); }, { scope: 'worker' }] });\nt('two calls', async ({ w, request }) => {\n  expect((await request.get(process.env.BASE_URL + '/health')).status()).toBe(200);\n  expect((await request.get(process.env.BASE_URL + '/broken')).status()).toBe(200);\n});\nt('two', async ({ w }) => {\n  expect(w).toBe(1);\n});`,
      ),
      { doubleCheck: true },
    ),
    { sleep: async () => undefined },
  ),
);

// A case waits for its turn in the pool, then for Node and Playwright to start.
describe.concurrent('multi-step runner', { timeout: 180_000 }, () => {
  it('passes the check variables and nothing of this process, and masks secret values in the log', async () => {
    const [r] = await onlyRun();
    expect(r).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: null, apiCheckResult: null, errorMessage: null });
    const m = r.multiStepCheckResult!;
    expect(m.errors).toEqual([]);
    expect(typeof m.startTime).toBe('number');
    expect(m.endTime).toBeGreaterThanOrEqual(m.startTime);
    expect(m.runtimeVersion).toMatch(/^@playwright\/test \d+\.\d+\.\d+$/);
    expect(m.jobLog).toContain('token is ********');
    expect(m.jobLog.join('\n')).not.toContain('tok-very-secret');
    expect(m.jobLog.some((l) => l.includes(`request 1: GET ${http.url}/health (line 9)`))).toBe(true);
  });

  it('retries a failing script once with doubleCheck, and names the failing step', async () => {
    const attempts = await workerRun();
    expect(attempts.map((a) => [a.resultType, a.attempts, a.hasFailures])).toEqual([
      ['ATTEMPT', 0, true],
      ['FINAL', 1, true],
    ]);
    expect(attempts[1].errorMessage).toMatch(new RegExp(`^test "two calls" failed at Expect "toBe" \\(line 5\\) after request 2: GET ${http.url}/broken \\(line 5\\): .*Received: 500`));
  });

  it('fails a script that asks for a browser page at once, saying no browser is available', async () => {
    const [r] = await runCheck(check(script(`test('page', async ({ page }) => {\n  await page.goto(process.env.BASE_URL + '/health');\n});`)));
    expect(r.hasFailures).toBe(true);
    expect(r.errorMessage).toContain(NO_BROWSER);
    expect(r.responseTime).toBeLessThan(10_000);
  });

  it('kills the process group of a script that never yields once the limit and grace have passed', async () => {
    // 1.5 s in all: about the time Node and Playwright take to reach the loop on an idle machine
    // (the run holds a slot of the pool of two until the kill, whichever point it reached).
    const [r] = await runCheck(check(script(`test('spin', async () => {\n  for (;;) {}\n});`)), { multiStep: { timeoutMs: 500, killGraceMs: 1000 } });
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false, errorMessage: 'the script did not finish within 1.5 s and was stopped' });
  });

  it('ends a script that prints more than the limit without yielding at once, on stdout or stderr, with the error that says so', async () => {
    const limits = { multiStep: { timeoutMs: 60_000, maxPrintedBytes: 1024 * 1024 } };
    const [logged, written] = await Promise.all([
      runCheck(check(script(`test('flood', async () => {\n  const line = 'x'.repeat(1023);\n  for (let i = 0; i < 1024 * 1024; i++) console.log(line);\n});`)), limits),
      runCheck(check(script(`test('flood', async () => {\n  const chunk = Buffer.alloc(64 * 1024, 120);\n  for (;;) process.stderr.write(chunk);\n});`)), limits),
    ]);
    for (const [r] of [logged, written]) {
      expect(r).toMatchObject({ hasFailures: true, hasErrors: false, errorMessage: 'the script printed more than 1 MiB; output is limited to 1 MiB' });
      // The log keeps its bounded start and ends with the error.
      expect(r.multiStepCheckResult?.jobLog?.at(-1)).toBe('the script printed more than 1 MiB; output is limited to 1 MiB');
    }
  });

  it('lets a script print up to the limit, and the limit cannot be taken away by the script', async () => {
    const limits = { multiStep: { timeoutMs: 60_000, maxPrintedBytes: 1024 * 1024 } };
    const [under, redefined] = await Promise.all([
      runCheck(check(script(`test('chatty', async () => {\n  const line = 'y'.repeat(1023);\n  for (let i = 0; i < 900; i++) console.log(line);\n});`)), limits),
      runCheck(
        check(script(`test('bypass', async () => {\n  let threw = false;\n  try { Object.defineProperty(process.stdout, 'write', { value: () => true }); } catch { threw = true; }\n  console.log('redefine refused: ' + threw);\n  process.stdout.write = () => true;\n  const line = 'z'.repeat(1023);\n  for (let i = 0; i < 1024 * 1024; i++) console.log(line);\n});`)),
        limits,
      ),
    ]);
    expect(under[0]).toMatchObject({ hasFailures: false, hasErrors: false, errorMessage: null });
    expect(under[0].multiStepCheckResult?.jobLog).toContain('[log truncated]');
    expect(redefined[0]).toMatchObject({ hasFailures: true, errorMessage: 'the script printed more than 1 MiB; output is limited to 1 MiB' });
    expect(redefined[0].multiStepCheckResult?.jobLog).toContain('redefine refused: true');
  });

  it('runs the tests left after a failing test in a new worker, keeps test.only, and reports a script that does not load', async () => {
    const [failed, [only], [broken]] = await Promise.all([
      workerRun().then((attempts) => attempts.at(-1)!),
      onlyRun(),
      runCheck(check(script(`test('x', async () => { ;;; )`))),
    ]);
    expect(failed).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(failed.multiStepCheckResult!.errors).toEqual([expect.stringMatching(/^test "two calls" failed at Expect "toBe" \(line 5\) after request 2: GET .*\/broken \(line 5\): .*Received: 500/)]);
    const log = failed.multiStepCheckResult!.jobLog;
    // The second test ran after the first failed, in a worker of its own (its fixture set up again).
    expect(log.filter((l) => l === 'worker up')).toHaveLength(2);
    expect(log.filter((l) => l === 'worker down')).toHaveLength(2);
    expect(log).toContain('passed "two" (' + log.find((l) => l.startsWith('passed "two" ('))!.slice('passed "two" ('.length));
    expect(only).toMatchObject({ hasFailures: false, hasErrors: false, errorMessage: null });
    expect(only.multiStepCheckResult!.jobLog.some((l) => l.startsWith('passed "only this one"'))).toBe(true);
    expect(only.multiStepCheckResult!.jobLog.join('\n')).not.toContain('not this one');
    expect(broken).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(broken.multiStepCheckResult!.errors).toEqual([
      expect.stringMatching(/^the script could not run: SyntaxError: check\.spec\.ts: Unexpected token/),
      'the script defines no test: call test() from @playwright/test',
    ]);
  });

  it('fails the test under way, naming it, when the run\'s process dies, and keeps the tests before it', async () => {
    const [r] = await runCheck(check(script(`test('first', async () => {\n  console.log('first ran');\n});\ntest('dies', async () => {\n  process.kill(process.pid, 'SIGKILL');\n  await new Promise(() => {});\n});`)));
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(r.errorMessage).toMatch(/^test "dies" failed: Error: worker process exited unexpectedly \(code=\w+, signal=\w+\)$/);
    expect(r.multiStepCheckResult!.jobLog).toContain('first ran');
    expect(r.multiStepCheckResult!.jobLog).toContain('test "dies"');
  });

  // Alone: stopping the runs stops every run of this process.
  it.sequential('stops runs under way when asked (service shutdown), as a runner fault', async () => {
    const began = Date.now();
    const run = runCheck(check(script(`test('spin', async () => {\n  for (;;) {}\n});`)), { multiStep: { timeoutMs: 60_000 } });
    await new Promise((r) => setTimeout(r, 500));
    stopMultiStepRuns();
    const [r] = await run;
    expect(r).toMatchObject({ hasErrors: true, hasFailures: false, errorMessage: 'the run was stopped: mac is shutting down' });
    expect(Date.now() - began).toBeLessThan(30_000);
  });

  it('fails a check without a script, and applies shouldFail', async () => {
    const [none] = await runCheck(check(null));
    expect(none).toMatchObject({ hasFailures: true, errorMessage: 'the check has no script to run' });
    const [inverted] = await runCheck(check(null, { shouldFail: true }));
    expect(inverted).toMatchObject({ hasFailures: false, errorMessage: null });
  });
});

describe('Playwright internals of the one-process host', () => {
  // The host (files.ts, hostText) uses Playwright's internal modules: an upgrade that moves one
  // of them, or changes the worker's message protocol, fails here before it fails a user's run.
  const require = createRequire(import.meta.url);
  const playwrightDir = dirname(createRequire(require.resolve('@playwright/test/package.json')).resolve('playwright/package.json'));
  it('finds every module, function and message it uses where this version of Playwright keeps them', () => {
    const common = require(join(playwrightDir, PLAYWRIGHT_INTERNALS.common));
    for (const name of PLAYWRIGHT_INTERNALS.functions) {
      const value = name.split('.').reduce((o: any, k) => o?.[k], common);
      expect(typeof value, name).toBe('function');
    }
    const entry = readFileSync(join(playwrightDir, PLAYWRIGHT_INTERNALS.workerEntry), 'utf8');
    for (const word of ['startProcessRunner', 'runTestGroup', 'gracefullyClose', 'dispatchEvent("done"', 'dispatchEvent("teardownErrors"', 'process.stdout.write =']) expect(entry, word).toContain(word);
    const protocol = readFileSync(join(playwrightDir, PLAYWRIGHT_INTERNALS.common), 'utf8');
    for (const word of ['"__init__"', '"__dispatch__"', '"__response__"', 'process.send(message)']) expect(protocol, word).toContain(word);
  });
});

describe('deadReport', () => {
  const t = { title: 'first', status: 'passed', ok: true, duration: 5, errors: [], failedStep: null };
  it('fails the test under way with the way the process ended, after the tests reported before it', () => {
    expect(deadReport({ tests: [t], errors: [], running: 'second' }, { code: null, signal: 'SIGABRT' })).toEqual({
      status: 'failed',
      tests: [t, { title: 'second', status: 'failed', ok: false, duration: 0, errors: ['Error: worker process exited unexpectedly (code=null, signal=SIGABRT)'], failedStep: null }],
      errors: [],
    });
  });
  it('leaves a run that died before any test, or that ended by its own error between tests, a runner fault', () => {
    expect(deadReport(null, { code: null, signal: 'SIGKILL' })).toBeNull();
    expect(deadReport({ tests: [t], errors: [], running: null }, { code: 1, signal: null })).toBeNull();
    expect(deadReport({ tests: [t], errors: [], running: null }, { code: 134, signal: null })).toMatchObject({ status: 'failed', errors: ['Error: worker process exited unexpectedly (code=134, signal=null)'] });
  });
});

describe('judgeRun', () => {
  const end = { code: 1, killed: false, output: '', spawnError: null };
  it('reads a report without tests as a failure, and no report as a runner fault', () => {
    expect(judgeRun(end, { status: 'failed', tests: [], errors: [] }, MULTI_STEP_DEFAULTS, [])).toMatchObject({ rawFailed: true, fault: false, errors: [expect.stringMatching(/defines no test/)] });
    // A worker ended for printing too much: that error, whatever Playwright reported after it.
    const flooded = judgeRun({ ...end, overPrinted: true }, { status: 'failed', tests: [], errors: ['worker process exited unexpectedly'] }, MULTI_STEP_DEFAULTS, ['x']);
    expect(flooded).toEqual({ rawFailed: true, fault: false, errors: ['the script printed more than 16 MiB; output is limited to 16 MiB'], log: ['x', 'the script printed more than 16 MiB; output is limited to 16 MiB'] });
    expect(judgeRun({ ...end, output: 'Error: boom\n' }, null, MULTI_STEP_DEFAULTS, [])).toMatchObject({
      rawFailed: false,
      fault: true,
      errors: ['multi-step runner error: Playwright exited with code 1: Error: boom'],
    });
  });
  it('passes when every test passed and sums their durations', () => {
    const t = { title: 'a', status: 'passed', ok: true, duration: 12, errors: [], failedStep: null };
    expect(judgeRun({ ...end, code: 0 }, { status: 'passed', tests: [t, { ...t, duration: 30 }], errors: [] }, MULTI_STEP_DEFAULTS, [])).toMatchObject({
      rawFailed: false,
      errors: [],
      duration: 42,
    });
  });
  it('fails when Playwright says the run failed even if no failed test was kept', () => {
    const t = { title: 'a', status: 'passed', ok: true, duration: 1, errors: [], failedStep: null };
    expect(judgeRun(end, { status: 'failed', tests: [t], errors: [] }, MULTI_STEP_DEFAULTS, [])).toMatchObject({
      rawFailed: true,
      errors: ['Playwright reported the run as failed'],
    });
  });
});
