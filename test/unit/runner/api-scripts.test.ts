import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/runner/index.js';
import { HOOK_TIMEOUT_MS } from '../../../src/runner/http/scripts.js';
import { startHttpServer, type HttpServer } from '../../helpers/http-server.js';
import { requireBwrap } from '../../helpers/sandbox.js';

// Setup and teardown scripts of API checks, run in the real sandbox against a real target that
// only answers 200 to a request carrying the header the setup script adds.
let http: HttpServer;
const seen: Array<{ url: string; method: string; auth: string | undefined; body: string }> = [];
beforeAll(async () => {
  requireBwrap();
  http = await startHttpServer({
    '/private': (req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', method: req.method ?? '', auth: req.headers['x-token'] as string | undefined, body });
        const ok = req.headers['x-token'] === 'tok-from-setup';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok }));
      });
    },
  });
});
afterAll(() => http?.close());

/** A check of /private; `tag` (a query parameter) tells its requests apart from the other cases', which run at once. */
const check = (extra: Record<string, unknown>, tag = '') => ({
  checkType: 'API' as const,
  name: 'private api',
  doubleCheck: false,
  request: { method: 'GET' as const, url: `${http.url}/private${tag ? `?case=${tag}` : ''}`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
  environmentVariables: [{ key: 'TOKEN', value: 'tok-from-setup', secret: true }],
  ...extra,
});

// Each case is a Node start or two in the sandbox: they run at once.
describe.concurrent('setup and teardown scripts of API checks', () => {
  it('a setup script adds a header (from a variable, after an await), changes method, query and body: the target sees them and the check passes', async () => {
    const [r] = await runCheck(
      check({
        localSetupScript: `await new Promise((r) => setTimeout(r, 10));
request.headers['X-Token'] = process.env.TOKEN;
request.method = 'post';
request.queryParameters['page'] = '2';
request.body = JSON.stringify({ hello: 'world' });`,
      }),
    );
    expect(r.errorMessage).toBeNull();
    expect(r.hasFailures).toBe(false);
    expect(seen.filter((s) => s.url.startsWith('/private?page=2'))).toEqual([{ url: '/private?page=2', method: 'POST', auth: 'tok-from-setup', body: '{"hello":"world"}' }]);
  });

  it('a setup script that throws fails the run with its error, and nothing is sent', async () => {
    const [r] = await runCheck(check({ localSetupScript: `throw new Error('no token today, not even ' + process.env.TOKEN);` }, 'throws'));
    expect(r.hasFailures).toBe(true);
    expect(r.errorMessage).toBe('setup script failed: no token today, not even ********');
    expect(seen.filter((s) => s.url.includes('case=throws'))).toEqual([]);
  });

  it('a teardown script reads the response; its error fails the run; without the header the check fails on its status', async () => {
    const [passed] = await runCheck(
      check({
        localSetupScript: `request.headers['x-token'] = process.env.TOKEN;`,
        localTearDownScript: `if (response.statusCode !== 200 || JSON.parse(response.body).ok !== true) throw new Error('bad answer ' + response.statusCode);`,
      }),
    );
    expect(passed.errorMessage).toBeNull();
    const [failed] = await runCheck(check({ localTearDownScript: `if (response.statusCode !== 200) throw new Error('teardown saw ' + response.statusCode);` }));
    expect(failed.hasFailures).toBe(true);
    expect(failed.errorMessage).toBe('teardown script failed: teardown saw 401');
  });

  // The three scripts at once. The one that never ends is stopped at a limit of 2 s instead of
  // the reference's 10 s (the runner's option): the limit firing and its message are what it
  // tests, not how long the default is.
  it('a script that does not compile, never ends or exits at once fails with a clear error', async () => {
    const [[syntax], [exited], [hangs]] = await Promise.all([
      runCheck(check({ localSetupScript: `request.headers[ = 1` })),
      runCheck(check({ localSetupScript: `process.exit(0)` })),
      runCheck(check({ localSetupScript: `await new Promise(() => setInterval(() => {}, 1000));` }), { hookTimeoutMs: 2000 }),
    ]);
    expect(syntax.errorMessage).toMatch(/^setup script failed: the script does not compile: /);
    expect(exited.errorMessage).toMatch(/^setup script ended without a result \(exit code 0\)/);
    expect(hangs.errorMessage).toBe('setup script did not finish within 2 s');
    expect(HOOK_TIMEOUT_MS).toBe(10_000);
  }, 90_000);
});
