import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { startServe, callApi, waitFor, type Served } from '../helpers/serve.js';
import { startHttpServer, json, type HttpServer } from '../helpers/http-server.js';
import { requireBwrap } from '../helpers/sandbox.js';

// Escapes from the script sandbox, tried as a user would: multi-step scripts run by `mac test`
// and by `mac serve` on its schedule. Each attempt must fail with a recorded error while the
// service keeps answering and its other checks keep their schedule. Every run is Node plus
// Playwright in bubblewrap: seconds each on a busy 2-core machine.
let http: HttpServer;
let served: Served | undefined;
const dirs: string[] = [];
const SECRET = 'sk-account-a-very-secret';
const started: string[] = [];

beforeAll(async () => {
  requireBwrap();
  http = await startHttpServer({
    '/health': json(200, { ok: true }),
    '/started': (req, res) => {
      started.push(new URL(req.url ?? '/', 'http://x').searchParams.get('who') ?? '?');
      res.end('ok');
    },
    '/private': (req, res) => {
      const allowed = req.headers['x-token'] === 'tok-setup';
      res.writeHead(allowed ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(allowed ? 'secret page' : '');
    },
  });
});
afterAll(async () => {
  await http.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const header = "const { test, expect } = require('@playwright/test');\nconst fs = require('node:fs');";
const script = (title: string, body: string, timeoutMs = 8000) => `${header}
test('${title}', async ({ request }) => {
  test.setTimeout(${timeoutMs});
${body}
});`;

/** The escapes, by name: each reads, kills or exhausts something it must not. */
function escapes(t: { keysFile: string; dbFile: string; pid: number; cwdFile: string }): Record<string, string> {
  return {
    'read-keys': script('keys', `  console.log(fs.readFileSync(${JSON.stringify(t.keysFile)}, 'utf8'));`),
    'read-db': script('db', `  console.log(fs.readFileSync(${JSON.stringify(t.dbFile)}, 'utf8').slice(0, 100));`),
    'read-environ': script('environ', `  console.log(fs.readFileSync('/proc/${t.pid}/environ', 'utf8'));`),
    'read-cwd': script('cwd', `  console.log(fs.readFileSync(${JSON.stringify(t.cwdFile)}, 'utf8'));`),
    'kill-service': script('kill', `  process.kill(${t.pid}, 'SIGKILL');\n  process.kill(-1, 'SIGKILL');`),
    'fork-bomb': script('bomb', `  require('node:child_process').spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore', detached: true });\n  await new Promise((r) => setTimeout(r, 60_000));`, 4000),
    'allocate-8gib': script('alloc', `  const kept = [];\n  for (let i = 0; i < 32; i++) kept.push(Buffer.alloc(256 * 1024 * 1024, 1));\n  console.log('allocated ' + kept.length * 256 + ' MiB');`, 60_000),
    'print-1gib': script('print', `  const line = 'x'.repeat(1023);\n  for (let i = 0; i < 1024 * 1024; i++) console.log(line);`, 5000),
    // A loop that never ends but yields: the script's own time limit ends it (a loop that never
    // yields is killed at the run's limit plus grace: test/unit/runner/sandbox.test.ts).
    'endless-loop': script('loop', `  for (;;) await new Promise((r) => setImmediate(r));`, 3000),
  };
}

/** What each escape's run must come to: failed, with the error that says why. */
const expected: Record<string, RegExp> = {
  'read-keys': /ENOENT/,
  'read-db': /ENOENT/,
  'read-environ': /ENOENT/,
  'read-cwd': /ENOENT/,
  'kill-service': /ESRCH|EPERM|Playwright exited|worker process exited|SIGKILL/,
  'fork-bomb': /timeout|Test timeout|worker process exited|EAGAIN|Playwright exited/i,
  'allocate-8gib': /allocation failed|out of memory|worker process exited|Playwright exited/i,
  'print-1gib': /timeout|Test timeout|worker process exited|out of memory|Playwright exited|did not finish/i,
  'endless-loop': /Test timeout of 3000ms exceeded/,
};

const indent = (s: string) => s.replace(/^/gm, '  ');

describe('script sandbox escapes with mac test', () => {
  it('every escape fails with its recorded error; a plain script and a setup script adding a header pass; a teardown reads the response and its error fails the run', async () => {
    const dir = await tempDir('mac-sandbox-e2e-');
    const keysFile = join(dir, 'keys.json');
    await writeFile(keysFile, JSON.stringify({ keys: [{ key: SECRET, account: 'a', role: 'admin' }] }));
    await writeFile(join(dir, 'mac.config.yaml'), 'project: escapes\n');
    const tests = escapes({ keysFile, dbFile: join(dir, 'state.db'), pid: process.pid, cwdFile: join(dir, 'mac.config.yaml') });
    const docs = Object.entries(tests).map(([id, s]) => `kind: MultiStepCheck\nid: ${id}\nname: ${id}\ndoubleCheck: false\nscript: |\n${indent(s)}\n`);
    docs.push(`kind: MultiStepCheck\nid: plain\nname: plain\ndoubleCheck: false\nenvironmentVariables:\n  - { key: BASE, value: "${http.url}" }\nscript: |\n${indent(script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);", 60_000))}\n`);
    docs.push(`kind: Snippet\nid: add-token\nname: add token\nscript: |\n  await new Promise((r) => setTimeout(r, 5));\n  request.headers['x-token'] = 'tok-' + 'setup';\n`);
    const api = (id: string, extra: string) =>
      `kind: ApiCheck\nid: ${id}\nname: ${id}\ndoubleCheck: false\nrequest:\n  method: GET\n  url: ${http.url}/private\n  assertions:\n    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }\n${extra}`;
    docs.push(api('with-setup', 'setupSnippet: add-token\n'));
    docs.push(api('setup-throws', 'localSetupScript: "throw new Error(\'setup refused\')"\n'));
    // Teardown scripts read the response the setup's request got; a teardown's error is the run's.
    const readsResponse = "if (response.statusCode !== 200 || response.headers['content-type'] !== 'text/plain' || response.body !== 'secret page') throw new Error('teardown saw ' + response.statusCode + ' ' + response.body)";
    docs.push(api('with-teardown', `setupSnippet: add-token\nlocalTearDownScript: ${JSON.stringify(readsResponse)}\n`));
    docs.push(api('teardown-throws', `setupSnippet: add-token\nlocalTearDownScript: ${JSON.stringify("throw new Error('teardown refused ' + response.statusCode)")}\n`));
    await writeFile(join(dir, 'checks.yaml'), docs.join('---\n'));

    const r = await runMac(['test', dir, '--format', 'json'], { timeoutMs: 400_000 });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    const byId = Object.fromEntries(report.checks.map((c: any) => [c.id, c]));
    for (const [id, pattern] of Object.entries(expected)) {
      expect(byId[id].status, `${id}: ${byId[id].message}`).toBe('fail');
      expect(byId[id].message, id).toMatch(pattern);
    }
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(byId.plain.status, byId.plain.message).toBe('pass');
    expect(byId['with-setup'].status, byId['with-setup'].message).toBe('pass');
    expect(byId['setup-throws']).toMatchObject({ status: 'fail', message: 'setup script failed: setup refused' });
    expect(byId['with-teardown'].status, byId['with-teardown'].message).toBe('pass');
    expect(byId['teardown-throws']).toMatchObject({ status: 'fail', message: 'teardown script failed: teardown refused 200' });
    expect(r.code).toBe(1);
  }, 420_000);

  it('without bubblewrap, mac test runs scripts unsandboxed with a one-line notice; --no-typescript still skips them', async () => {
    const dir = await tempDir('mac-sandbox-nobwrap-');
    await writeFile(join(dir, 'mac.config.yaml'), 'project: nobwrap\n');
    await writeFile(join(dir, 'checks.yaml'), `kind: MultiStepCheck\nid: plain\nname: plain\ndoubleCheck: false\nenvironmentVariables:\n  - { key: BASE, value: "${http.url}" }\nscript: |\n${indent(script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);"))}\n`);
    const r = await runMac(['test', dir], { env: { MAC_BWRAP: '' }, timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mac test: bubblewrap is not available: scripts run unsandboxed.*apt-get install -y bubblewrap/)]);
    const skipped = await runMac(['test', dir, '--no-typescript'], { env: { MAC_BWRAP: '' } });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain('multi-step scripts are code: not run with --no-typescript');
  }, 150_000);
});

describe('script sandbox escapes with mac serve', () => {
  it('every escape run on schedule fails with a recorded error; the service answers throughout and a URL monitor keeps its schedule', async () => {
    const dir = await tempDir('mac-sandbox-serve-');
    const keysFile = join(dir, 'keys.json');
    const dbFile = join(dir, 'state.db');
    await writeFile(keysFile, JSON.stringify({ keys: [{ key: SECRET, account: 'a', role: 'admin' }] }));
    // frequency 1 at time scale 30: due every 2 s.
    served = await startServe(['--keys', keysFile, '--state', dbFile, '--time-scale', '30'], { DATABASE_PASSWORD: SECRET });
    expect(served.log()).toMatch(/scripts: sandboxed \(bubblewrap/);
    const s = { url: served.url, apiKey: SECRET };
    const api = (method: string, path: string, body?: unknown) => callApi(s, method, path, body);
    const monitor = await api('POST', '/v1/checks/url', { name: 'heartbeat of the test', frequency: 0, frequencyOffset: 10, request: { url: `${http.url}/health` } });
    expect(monitor.status).toBe(201);
    const ids: Record<string, string> = {};
    for (const [name, text] of Object.entries(escapes({ keysFile, dbFile, pid: served.pid, cwdFile: join(process.cwd(), 'package.json') }))) {
      // Hourly at time scale 30 (every 2 min): each escape runs once at first, then waits its turn.
      const c = await api('POST', '/v1/checks/multistep', { name, frequency: 60, doubleCheck: false, script: text });
      expect(c.status).toBe(201);
      ids[name] = c.body.id;
    }
    let unanswered = 0;
    const poll = setInterval(() => {
      api('GET', '/v1/checks').then((r) => void (r.status !== 200 && unanswered++), () => void unanswered++);
    }, 500);
    try {
      for (const [name, id] of Object.entries(ids)) {
        const [result] = await waitFor(async () => {
          const r = await api('GET', `/v1/check-results/${id}`);
          return r.body.length > 0 ? r.body : undefined;
        }, 840_000, 500);
        expect(result.hasFailures || result.hasErrors, `${name}: ${result.multiStepCheckResult?.errors}`).toBe(true);
        expect(result.multiStepCheckResult.errors.join(' '), name).toMatch(expected[name]);
      }
    } finally {
      clearInterval(poll);
    }
    expect(unanswered).toBe(0);
    expect(served.exitCode()).toBeNull();
    const results = (await api('GET', `/v1/check-results/${monitor.body.id}?limit=100`)).body;
    // Every 10 s of schedule at time scale 30: a run about every 0.33 s, checked over the last minute.
    const times = results.map((r: any) => Date.parse(r.startedAt)).sort((a: number, b: number) => a - b);
    const recent = times.filter((t: number) => t > Date.now() - 60_000);
    expect(recent.length).toBeGreaterThan(30);
    const gaps = recent.slice(1).map((t: number, i: number) => t - recent[i]);
    expect(Math.max(...gaps)).toBeLessThan(5_000);
    const all = JSON.stringify(await Promise.all(Object.values(ids).map((id) => api('GET', `/v1/check-results/${id}`).then((r) => r.body))));
    expect(all).not.toContain(SECRET);
  }, 900_000);

  it("with two accounts, account B's two sleeping scripts do not keep account A's multi-step check from running on time", async () => {
    served = await startServe(['--api-key', 'key-a', '--account', 'a', '--api-key', 'key-b', '--account', 'b', '--time-scale', '30']);
    const a = { url: served.url, apiKey: 'key-a' };
    const b = { url: served.url, apiKey: 'key-b' };
    const sleeper = (who: string) =>
      script(who, `  await request.get(process.env.BASE + '/started?who=${who}');\n  await new Promise((r) => setTimeout(r, 100_000));`, 110_000);
    const env = [{ key: 'BASE', value: http.url }];
    for (const who of ['b1', 'b2']) {
      const c = await callApi(b, 'POST', '/v1/checks/multistep', { name: who, frequency: 1, doubleCheck: false, environmentVariables: env, script: sleeper(who) });
      expect(c.status).toBe(201);
    }
    await waitFor(async () => (started.includes('b1') && started.includes('b2') ? true : undefined), 120_000, 250);
    const since = Date.now();
    const c = await callApi(a, 'POST', '/v1/checks/multistep', {
      name: 'a-journey',
      frequency: 1,
      doubleCheck: false,
      environmentVariables: env,
      script: script('a', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);"),
    });
    expect(c.status).toBe(201);
    const [result] = await waitFor(async () => {
      const r = await callApi(a, 'GET', `/v1/check-results/${c.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 90_000, 250);
    expect(result).toMatchObject({ hasFailures: false, hasErrors: false });
    // B's scripts sleep 100 s: A ran while they slept, within a run's own time (Node and Playwright start).
    expect(Date.now() - since).toBeLessThan(90_000);
    expect(started.filter((w) => w === 'b1' || w === 'b2').length).toBe(2);
  }, 300_000);

  it('without bubblewrap the service refuses scripts with a clear error unless started with --unsafe-scripts, and says so when it starts', async () => {
    served = await startServe(['--time-scale', '30'], { MAC_BWRAP: '' });
    expect(served.log()).toMatch(/scripts: refused \(bwrap is not installed\): apt-get install -y bubblewrap, or start with --unsafe-scripts/);
    const body = { name: 'plain', frequency: 1, doubleCheck: false, environmentVariables: [{ key: 'BASE', value: http.url }], script: script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);") };
    const c = await callApi(served, 'POST', '/v1/checks/multistep', body);
    const [refused] = await waitFor(async () => {
      const r = await callApi(served!, 'GET', `/v1/check-results/${c.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 60_000, 250);
    expect(refused.hasErrors).toBe(true);
    expect(refused.multiStepCheckResult.errors[0]).toMatch(/apt-get install -y bubblewrap.*--unsafe-scripts/);
    await served.stop();

    served = await startServe(['--time-scale', '30', '--unsafe-scripts'], { MAC_BWRAP: '' });
    expect(served.log()).toMatch(/scripts: NOT sandboxed \(--unsafe-scripts; bwrap is not installed\)/);
    const d = await callApi(served, 'POST', '/v1/checks/multistep', body);
    const [ran] = await waitFor(async () => {
      const r = await callApi(served!, 'GET', `/v1/check-results/${d.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    }, 90_000, 250);
    expect(ran).toMatchObject({ hasFailures: false, hasErrors: false });
  }, 200_000);
});
