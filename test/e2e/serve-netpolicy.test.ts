import { createServer as createTcpServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { apiOk, callApi, refusedServe, startServe, waitFor, type Served } from '../helpers/serve.js';
import { startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { pgDatabase } from '../helpers/pg-url.js';

// The service's network policy (--deny-targets), with the built CLI: one account's checks may not
// reach the service itself, its database, nor what the operator denies; other loopback ports stay open.
// The cases run at once, each with services of its own but the first two, which share one with the
// default policy (neither reads what the other writes); a case's time limit leaves room for the
// others under way on a loaded machine.
const CASES = { timeout: 180_000 };

let allowed: HttpTarget;
let listener: Server;
let listenerPort = 0;
let redirectTo = '';
/** The services started by the file, stopped at its end (or by the case that started them). */
const services = new Set<Served>();
/** The service with the default policy the first two cases share. */
let shared: Promise<Served> | undefined;

beforeAll(async () => {
  allowed = await startHttpTarget({
    handler: (req, res) => {
      if (req.url === '/hop') return void res.writeHead(302, { location: redirectTo }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('allowed');
    },
  });
  listener = createTcpServer((s) => s.end('secret banner\r\n'));
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  listenerPort = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  await Promise.all([...services].map((s) => s.stop()));
  await allowed.close();
  await new Promise<void>((r) => listener.close(() => r()));
});

/** `mac serve --no-runs ...args`, stopped when the case `ctx` ends. */
async function serveFor(ctx: TestContext, args: string[]): Promise<Served> {
  const s = await startServe(['--no-runs', ...args]);
  services.add(s);
  ctx.onTestFinished(async () => {
    services.delete(s);
    await s.stop();
  });
  return s;
}
/** The default-policy service of the first two cases. */
function defaultPolicy(): Promise<Served> {
  shared ??= startServe(['--no-runs']).then((s) => (services.add(s), s));
  return shared;
}

const portOf = (url: string) => Number(new URL(url).port);

/** Creates a check of `kind`, triggers one session and returns its FINAL result. */
async function runOnce(s: Served, kind: 'url' | 'tcp', body: Record<string, unknown>): Promise<any> {
  const check = await apiOk(s, 'POST', `/v1/checks/${kind}`, { name: `${kind} check`, frequency: 1440, doubleCheck: false, locations: ['eu-west-1'], ...body });
  await apiOk(s, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
  return waitFor(async () => {
    const r = await callApi(s, 'GET', `/v1/check-results/${check.id}`);
    return r.body.find((x: any) => x.resultType === 'FINAL');
  });
}

describe.concurrent('mac serve --deny-targets (default policy)', CASES, () => {
  it('refuses the service itself by every form, and a redirect to it; another loopback port runs', async () => {
    const served = await defaultPolicy();
    const own = portOf(served.url);
    const refused = new RegExp(`^target (127\\.0\\.0\\.1|0\\.0\\.0\\.0):${own} is refused by the service's network policy \\(--deny-targets: the service itself\\)$`);
    redirectTo = `http://127.0.0.1:${own}/v1/checks`;
    // Every run at once: each is a check of its own.
    const urls = [`http://127.0.0.1:${own}/v1/checks`, `http://2130706433:${own}/`, `http://localhost:${own}/`, `http://0x7f.1:${own}/`, `http://0.0.0.0:${own}/`];
    const [forms, hop, tcp, ok, banner] = await Promise.all([
      Promise.all(urls.map((url) => runOnce(served, 'url', { request: { url } }))),
      runOnce(served, 'url', { request: { url: `${allowed.origin}/hop`, followRedirects: true } }),
      runOnce(served, 'tcp', { request: { hostname: 'localhost', port: own } }),
      runOnce(served, 'url', { request: { url: `${allowed.origin}/` } }),
      runOnce(served, 'tcp', { request: { hostname: '127.0.0.1', port: listenerPort } }),
    ]);
    urls.forEach((url, i) => {
      const r = forms[i];
      expect(r.hasFailures, url).toBe(true);
      expect(r.apiCheckResult.requestError, url).toMatch(refused);
      expect(r.apiCheckResult.response.body, url).toBe('');
    });
    expect(hop.hasFailures).toBe(true);
    expect(hop.apiCheckResult.requestError).toMatch(refused);
    expect(tcp.apiCheckResult.requestError).toMatch(refused);

    expect(ok).toMatchObject({ hasFailures: false, hasErrors: false, apiCheckResult: { requestError: null, response: { status: 200, body: 'allowed' } } });
    expect(banner.apiCheckResult).toMatchObject({ requestError: null, response: { body: 'secret banner\r\n' } });
  });

  it("refuses a webhook channel aimed at the service itself: the alert fails for good, naming the policy", async () => {
    const served = await defaultPolicy();
    const own = portOf(served.url);
    const channel = await apiOk(served, 'POST', '/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'inside', url: `http://2130706433:${own}/v1/checks`, method: 'POST' } });
    const check = await apiOk(served, 'POST', '/v1/checks/tcp', {
      name: 'closed',
      frequency: 1440,
      locations: ['eu-west-1'],
      request: { hostname: '127.0.0.1', port: 9, assertions: [] },
      alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
    });
    await apiOk(served, 'POST', '/v1/check-sessions/trigger', { target: { checkId: [check.id] } });
    const n = await waitFor(async () => {
      const [first] = (await callApi(served, 'GET', '/v1/alert-notifications')).body;
      return first?.status === 'FAILURE' ? first : undefined;
    });
    expect(n).toMatchObject({ type: 'WEBHOOK', attempts: 1 });
    expect(n.notificationResult).toMatch(/refused by the service's network policy/);
  });

  it("refuses a TCP check to the service's PostgreSQL database", async (ctx) => {
    const db = pgDatabase();
    const dbPort = Number(new URL(db).port) || 5432;
    const served = await serveFor(ctx, ['--database', db]);
    const hostnames = ['127.0.0.1', 'localhost', '::ffff:127.0.0.1'];
    const results = await Promise.all(hostnames.map((hostname) => runOnce(served, 'tcp', { request: { hostname, port: dbPort, data: 'SELECT 1;' } })));
    for (const [i, hostname] of hostnames.entries()) {
      const r = results[i];
      expect(r.hasFailures, hostname).toBe(true);
      expect(r.apiCheckResult.requestError, hostname).toBe(`target 127.0.0.1:${dbPort} is refused by the service's network policy (--deny-targets: the service's database)`);
    }
  });

  it('adds the listed targets, and `none` opens the defaults for a single-team service', async (ctx) => {
    const [listed, open] = await Promise.all([serveFor(ctx, ['--deny-targets', `127.0.0.1:${listenerPort}`]), serveFor(ctx, ['--deny-targets', 'none'])]);
    const [r, self] = await Promise.all([
      runOnce(listed, 'tcp', { request: { hostname: '127.0.0.1', port: listenerPort } }),
      waitFor(async () => (open.log().includes('network policy: --deny-targets none') ? true : undefined), 5000).then(() => runOnce(open, 'url', { request: { url: `${open.url}/v1/checks` } })),
    ]);
    expect(r.apiCheckResult.requestError).toBe(`target 127.0.0.1:${listenerPort} is refused by the service's network policy (--deny-targets: 127.0.0.1:${listenerPort})`);
    expect(r.apiCheckResult.response.body).toBe('');

    // Reached: the service answers 401 to a request without a key.
    expect(self.apiCheckResult).toMatchObject({ requestError: null, response: { status: 401 } });
  });

  it('names a wrong item of --deny-targets', async () => {
    const [bad, unresolved] = await Promise.all([refusedServe(['--deny-targets', '10.0.0.0/8,10.0.0.1:99999']), refusedServe(['--deny-targets', 'nowhere.invalid'])]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--deny-targets: invalid item "10.0.0.1:99999": the port must be 1..65535');
    expect(unresolved.code).toBe(1);
    expect(unresolved.stderr).toContain('--deny-targets: cannot resolve "nowhere.invalid"');
  });
});

describe.concurrent('mac serve --host beyond loopback', CASES, () => {
  it('refuses to start without keys, and with the dev key given as a key', async () => {
    const [none, dev] = await Promise.all([refusedServe(['--host', '0.0.0.0']), refusedServe(['--host', '::', '--api-key', 'mac-dev-key'])]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('--host 0.0.0.0 is not a loopback address: pass API keys (--api-key KEY --account ID, or --keys FILE)');
    expect(dev.code).toBe(1);
    expect(dev.stderr).toContain('the dev key mac-dev-key is accepted only on loopback');
  });

  it('starts with keys and does not accept the dev key', async (ctx) => {
    const served = await serveFor(ctx, ['--host', '0.0.0.0', '--api-key', 'team-key-1234', '--account', 'team']);
    const url = served.url.replace('0.0.0.0', '127.0.0.1');
    expect((await callApi({ url, apiKey: 'team-key-1234' }, 'GET', '/v1/checks')).status).toBe(200);
    expect((await callApi({ url, apiKey: 'mac-dev-key' }, 'GET', '/v1/checks')).status).toBe(401);
  });
});
