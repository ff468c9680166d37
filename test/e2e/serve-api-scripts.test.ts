import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, startServe, waitFor, type Served } from '../helpers/serve.js';
import { startHttpServer, type HttpServer } from '../helpers/http-server.js';
import { requireBwrap } from '../helpers/sandbox.js';

// API checks' setup and teardown scripts run by mac serve on its schedule, in the sandbox: the
// setup changes the request the target gets, the teardown reads the response it got, and a
// script's error is the run's recorded error. One service for the file: the two cases use checks
// and variables of their own (the first case's scripts read no variable) and run at once.
let http: HttpServer;
let served: Served | undefined;
const seen: Array<{ token: string | undefined; query: string | null }> = [];

beforeAll(async () => {
  requireBwrap();
  http = await startHttpServer({
    '/private': (req, res) => {
      const token = req.headers['x-token'] as string | undefined;
      seen.push({ token, query: new URL(req.url ?? '/', 'http://x').searchParams.get('from') });
      const allowed = token === 'tok-from-variable';
      res.writeHead(allowed ? 200 : 401, { 'content-type': 'application/json', 'x-served-by': 'target' });
      res.end(JSON.stringify({ allowed, greeting: allowed ? 'hello' : null }));
    },
  });
  served = await startServe(['--time-scale', '30']);
}, 60_000);
afterAll(async () => {
  await served?.stop();
  await http?.close();
});

const api = (method: string, path: string, body?: unknown) => callApi(served!, method, path, body);

async function firstResult(id: string): Promise<any> {
  return waitFor(async () => {
    const r = await api('GET', `/v1/check-results/${id}`);
    return r.body.find((x: { resultType: string }) => x.resultType === 'FINAL');
  }, 120_000, 250);
}

describe.concurrent('mac serve runs the setup and teardown scripts of API checks', () => {
  it('a setup script changes the request, a teardown reads the response; a teardown that throws fails the run with its error', async () => {
    expect(served!.log()).toMatch(/scripts: sandboxed \(bubblewrap/);
    const base = {
      frequency: 60,
      doubleCheck: false,
      request: { method: 'GET', url: `${http.url}/private`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    };
    // The setup adds a header the target requires and a query parameter it records.
    const setup = "request.headers['x-token'] = 'tok-from-' + 'variable'; request.queryParameters.from = 'setup';";
    const teardown =
      "const body = JSON.parse(response.body); if (response.statusCode !== 200 || response.headers['x-served-by'] !== 'target' || body.greeting !== 'hello') throw new Error('unexpected answer ' + response.statusCode);";
    const passing = await api('POST', '/v1/checks/api', { ...base, name: 'setup and teardown', localSetupScript: setup, localTearDownScript: teardown });
    expect(passing.status).toBe(201);
    const throwing = await api('POST', '/v1/checks/api', {
      ...base,
      name: 'teardown throws',
      localSetupScript: setup,
      localTearDownScript: "throw new Error('teardown saw ' + response.statusCode + ' ' + JSON.parse(response.body).greeting)",
    });
    expect(throwing.status).toBe(201);
    const noSetup = await api('POST', '/v1/checks/api', { ...base, name: 'teardown without setup', localTearDownScript: teardown });
    expect(noSetup.status).toBe(201);

    const ok = await firstResult(passing.body.id);
    expect(ok, JSON.stringify(ok)).toMatchObject({ hasFailures: false, hasErrors: false });
    expect(ok.apiCheckResult.response.status).toBe(200);
    expect(seen).toContainEqual({ token: 'tok-from-variable', query: 'setup' });

    const failed = await firstResult(throwing.body.id);
    // The request itself succeeded: the teardown's error is the run's.
    expect(failed.hasFailures, JSON.stringify(failed)).toBe(true);
    expect(failed.apiCheckResult).toMatchObject({ requestError: 'teardown script failed: teardown saw 200 hello', response: { status: 200 } });
    const groups = await waitFor(async () => {
      const r = await api('GET', `/v1/error-groups/checks/${throwing.body.id}`);
      return r.body.length > 0 ? r.body : undefined;
    });
    expect(groups[0].rawErrorMessage).toBe('teardown script failed: teardown saw 200 hello');

    // Without the setup's header the target refuses; the teardown's check of the answer fails the run.
    const refused = await firstResult(noSetup.body.id);
    expect(refused.hasFailures).toBe(true);
    expect(refused.apiCheckResult.response.status).toBe(401);
  }, 300_000);

  it("a script's process.env holds the account's variables, secret ones included", async () => {
    // The header the target wants is built from three variables of the account, one of them secret.
    for (const [key, value, secret] of [['PREFIX', 'tok-', true], ['MIDDLE', 'from-', false], ['SUFFIX', 'variable', false]] as const) {
      expect((await api('POST', '/v1/variables', { key, value, secret })).status).toBe(201);
    }
    const check = await api('POST', '/v1/checks/api', {
      name: 'variables of the account',
      frequency: 60,
      doubleCheck: false,
      request: { method: 'GET', url: `${http.url}/private`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
      localSetupScript: "request.headers['x-token'] = process.env.PREFIX + process.env.MIDDLE + process.env.SUFFIX; request.queryParameters.from = 'variables';",
    });
    expect(check.status).toBe(201);
    const result = await firstResult(check.body.id);
    expect(result, JSON.stringify(result)).toMatchObject({ hasFailures: false, hasErrors: false });
    expect(seen).toContainEqual({ token: 'tok-from-variable', query: 'variables' });
  }, 300_000);
});
