import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Plan } from '../../src/plan/types.js';
import type { RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, type Served } from '../helpers/serve.js';
import { writeProject } from '../e2e/apply-fixtures.js';

// URL monitors and API checks through the engine: apply, plan again = no change, one edited
// assertion = one operation, secrets never printed; import of an account holding both kinds =
// the same definitions, and its plan converges.

const SECRETS = { ORDERS_TOKEN: 'Bearer SECRET-tok-81f2', ORDERS_PASSWORD: 'pw-SECRET-c0ffee', ORDERS_PASSWORD_2: 'pw-SECRET-2-beef' };

let served: Served;
let importServed: Served;
let work: string;
const outputs: RunResult[] = [];

async function mac(s: Served, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const r = await runMacIn(args, { cwd: work, env: { MAC_API_URL: s.url, MAC_API_KEY: s.apiKey, ...env } });
  outputs.push(r);
  return r;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mac-http-kinds-'));
  [served, importServed] = await Promise.all([startServeIn(['--no-runs', '--rate-limit', '0/60']), startServeIn(['--no-runs', '--rate-limit', '0/60'])]);
});

afterAll(async () => {
  await Promise.all([served?.stop(), importServed?.stop()]);
  if (work) await rm(work, { recursive: true, force: true });
});

const checksYaml = (o: { target?: string; headers?: string; password?: string } = {}) => `kind: UrlMonitor
id: home
name: Shop home
frequency: 1
request:
  url: https://www.shop.example/
  followRedirects: false
  assertions:
    - { source: STATUS_CODE, comparison: LESS_THAN, target: "400" }
degradedResponseTime: 2000
alertChannels: [oncall]
---
kind: ApiCheck
id: orders
name: Orders API
frequency: 0
frequencyOffset: 20
request:
  method: POST
  url: https://api.shop.example/v1/orders/search
  bodyType: JSON
  body: '{"status":"open"}'
  headers:
${o.headers ?? `    - { key: Authorization, value: "\${{ env.ORDERS_TOKEN }}", locked: true }
    - { key: Accept, value: application/json }`}
  queryParameters:
    - { key: limit, value: "10" }
    - { key: a, value: "1" }
  basicAuth: { username: monitor, password: "\${{ env.${o.password ?? 'ORDERS_PASSWORD'} }}" }
  assertions:
    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }
    - { source: JSON_BODY, property: "$.orders[0].id", comparison: EQUALS, target: "${o.target ?? '7'}" }
    - { source: HEADERS, property: content-type, comparison: CONTAINS, target: json, regex: null }
    - { source: TEXT_BODY, comparison: NOT_CONTAINS, target: error }
setupSnippet: login
maxResponseTime: 45000
`;

const project = (o: Parameters<typeof checksYaml>[0] = {}) => ({
  'mac.config.yaml': 'project: http\nenv: [ORDERS_TOKEN, ORDERS_PASSWORD, ORDERS_PASSWORD_2]\n',
  'resources.yaml': `kind: AlertChannel
id: oncall
type: EMAIL
config: { address: oncall@shop.example }
---
kind: Snippet
id: login
name: Orders login
script: request.headers['X-Session'] = 'monitor';
`,
  'checks.yaml': checksYaml(o),
});

describe('UrlMonitor and ApiCheck: plan, apply, plan again', () => {
  let dir: string;
  const env = { ORDERS_TOKEN: SECRETS.ORDERS_TOKEN, ORDERS_PASSWORD: SECRETS.ORDERS_PASSWORD, ORDERS_PASSWORD_2: SECRETS.ORDERS_PASSWORD_2 };
  const plan = async () => {
    const r = await mac(served, ['plan', dir, '--format', 'json', '--detailed-exitcode'], env);
    return { code: r.code, plan: JSON.parse(r.stdout) as Plan, stderr: r.stderr };
  };

  it('applies both kinds from empty; the service holds what the definitions say', async () => {
    dir = writeProject(project());
    const r = await mac(served, ['apply', dir, '--yes'], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const checks = await apiOk(served, 'GET', '/v1/checks?limit=100');
    const url = checks.find((c: any) => c.checkType === 'URL');
    const api = checks.find((c: any) => c.checkType === 'API');
    expect(url).toMatchObject({ name: 'Shop home', frequency: 1, degradedResponseTime: 2000, maxResponseTime: 5000, request: { method: 'GET', followRedirects: false } });
    const [snippet] = await apiOk(served, 'GET', '/v1/snippets');
    expect(api).toMatchObject({
      frequency: 0, frequencyOffset: 20, maxResponseTime: 45000, degradedResponseTime: 5000, setupSnippetId: snippet.id,
      request: {
        method: 'POST', bodyType: 'JSON', body: '{"status":"open"}',
        // A set by name: sent sorted.
        headers: [{ key: 'Accept', value: 'application/json', locked: false }, { key: 'Authorization', value: SECRETS.ORDERS_TOKEN, locked: true }],
        queryParameters: [{ key: 'limit', value: '10', locked: false }, { key: 'a', value: '1', locked: false }],
        basicAuth: { username: 'monitor', password: SECRETS.ORDERS_PASSWORD },
      },
    });
    // A null regex means "none", like "": the engine sends "".
    expect(api.request.assertions[2]).toEqual({ source: 'HEADERS', comparison: 'CONTAINS', property: 'content-type', target: 'json', regex: '' });
    expect(api.tags).toEqual(['mac:http/orders']);
  });

  it('plans no change, with headers reordered too', async () => {
    let p = await plan();
    expect(p.code, p.stderr).toBe(0);
    expect(p.plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 4, orphaned: 0 });
    writeProject(project({ headers: `    - { key: Accept, value: application/json }\n    - { key: Authorization, value: "\${{ env.ORDERS_TOKEN }}", locked: true }` }), dir);
    p = await plan();
    expect(p.code, p.stderr).toBe(0);
  });

  it('one edited assertion is one operation; applied, the plan converges', async () => {
    writeProject(project({ target: '8' }), dir);
    const p = await plan();
    expect(p.code).toBe(2);
    expect(p.plan.summary).toMatchObject({ update: 1, noop: 3 });
    const change = p.plan.changes.find((c) => c.action === 'update')!;
    expect(change).toMatchObject({ kind: 'ApiCheck', id: 'orders' });
    expect(change.patch).toEqual([{ op: 'replace', path: '/request/assertions/1/target', value: '8', oldValue: '7' }]);
    expect((await mac(served, ['apply', dir, '--yes'], env)).code).toBe(0);
    expect((await plan()).code).toBe(0);
  });

  it('a changed basic-auth password is an update shown masked', async () => {
    writeProject(project({ target: '8', password: 'ORDERS_PASSWORD_2' }), dir);
    const r = await mac(served, ['plan', dir, '--detailed-exitcode'], env);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('(sensitive');
    expect((await mac(served, ['apply', dir, '--yes'], env)).code).toBe(0);
    const api = (await apiOk(served, 'GET', '/v1/checks?checkType=API'))[0];
    expect(api.request.basicAuth.password).toBe(SECRETS.ORDERS_PASSWORD_2);
    expect((await plan()).code).toBe(0);
  });
});

describe('mac import of URL monitors and API checks', () => {
  let ids: { url: string; api: string; snippet: number };

  it('writes both kinds: references by logical id, secrets as placeholders, defaults left out', async () => {
    const snippet = await apiOk(importServed, 'POST', '/v1/snippets', { name: 'Login', script: 'login();' });
    const url = await apiOk(importServed, 'POST', '/v1/checks/url?autoAssignAlerts=false', {
      name: 'Shop home',
      frequency: 0,
      frequencyOffset: 10,
      request: { url: 'https://www.shop.example/', skipSSL: true, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    });
    const api = await apiOk(importServed, 'POST', '/v1/checks/api?autoAssignAlerts=false', {
      name: 'Orders API',
      setupSnippetId: snippet.id,
      localTearDownScript: 'cleanup();',
      degradedResponseTime: 700,
      request: {
        method: 'PUT',
        url: 'https://api.shop.example/v1/orders/1',
        body: 'status=open',
        bodyType: 'FORM',
        headers: [{ key: 'Authorization', value: SECRETS.ORDERS_TOKEN, locked: true }, { key: 'X-Team', value: 'shop' }],
        basicAuth: { username: 'monitor', password: SECRETS.ORDERS_PASSWORD },
        assertions: [
          { source: 'JSON_BODY', comparison: 'HAS_KEY', property: '$.order' },
          { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500', regex: null },
        ],
      },
    });
    ids = { url: url.id, api: api.id, snippet: snippet.id };

    const r = await mac(importServed, ['import', '--out', 'imp']);
    expect(r.stderr).not.toContain('error');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const docs = async (file: string) => parseAllDocuments(await readFile(join(work, 'imp', file), 'utf8')).map((d) => d.toJS());
    expect(await docs('checks/url.yaml')).toEqual([
      {
        kind: 'UrlMonitor', id: 'shop-home', adopt: ids.url, name: 'Shop home', frequency: 0, frequencyOffset: 10,
        request: { url: 'https://www.shop.example/', skipSSL: true, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
      },
    ]);
    expect(await docs('checks/api.yaml')).toEqual([
      {
        kind: 'ApiCheck', id: 'orders-api', adopt: ids.api, name: 'Orders API',
        request: {
          method: 'PUT',
          url: 'https://api.shop.example/v1/orders/1',
          body: 'status=open',
          bodyType: 'FORM',
          headers: [{ key: 'Authorization', value: '${{ env.ORDERS_API_AUTHORIZATION }}', locked: true }, { key: 'X-Team', value: 'shop' }],
          basicAuth: { username: 'monitor', password: '${{ env.ORDERS_API_PASSWORD }}' },
          assertions: [
            { source: 'JSON_BODY', comparison: 'HAS_KEY', property: '$.order' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' },
          ],
        },
        degradedResponseTime: 700,
        localTearDownScript: 'cleanup();',
        setupSnippet: 'login',
      },
    ]);
    expect(await readFile(join(work, 'imp/mac.config.yaml'), 'utf8')).toMatch(/ORDERS_API_AUTHORIZATION[\s\S]*ORDERS_API_PASSWORD|ORDERS_API_PASSWORD[\s\S]*ORDERS_API_AUTHORIZATION/);
  });

  it('the imported project plans only the adoptions; applied, it plans no change', async () => {
    const env = { ORDERS_API_AUTHORIZATION: SECRETS.ORDERS_TOKEN, ORDERS_API_PASSWORD: SECRETS.ORDERS_PASSWORD };
    const p = await mac(importServed, ['plan', 'imp', '--format', 'json', '--detailed-exitcode'], env);
    expect(p.code, p.stderr).toBe(2);
    const plan = JSON.parse(p.stdout) as Plan;
    const updates = plan.changes.filter((c) => c.action !== 'noop');
    expect(updates.map((c) => `${c.kind}/${c.id}`).sort()).toEqual(['ApiCheck/orders-api', 'UrlMonitor/shop-home']);
    for (const c of updates) expect(c.patch!.every((d) => d.path.startsWith('/tags')), JSON.stringify(c.patch)).toBe(true);
    expect((await mac(importServed, ['apply', 'imp', '--yes'], env)).code).toBe(0);
    const again = await mac(importServed, ['plan', 'imp', '--detailed-exitcode'], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    // Same API ids: adopted, not re-created.
    const live = await apiOk(importServed, 'GET', '/v1/checks');
    expect(live.map((c: any) => c.id).sort()).toEqual([ids.url, ids.api].sort());
  });

  it('no secret value appears in any output', () => {
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n');
    for (const value of Object.values(SECRETS)) expect(all).not.toContain(value);
  });
});
