import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { startHttpTarget, type HttpTarget } from '../helpers/http-target.js';

let web: HttpTarget;
const dirs: string[] = [];

beforeAll(async () => {
  web = await startHttpTarget({
    handler: (req, res) => {
      if (req.url.startsWith('/slow')) return void setTimeout(() => res.end('late'), 150);
      if (req.url.startsWith('/v1/orders')) {
        const authorized = req.headers.authorization === `Basic ${Buffer.from('monitor:pw-from-env').toString('base64')}`;
        res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json', 'x-region': 'local' });
        return void res.end(JSON.stringify(authorized ? { orders: [{ id: 'o-1', state: 'open' }] } : { error: 'unauthorized' }));
      }
      res.end('<h1>shop</h1>');
    },
  });
});
afterAll(async () => {
  await web.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function project(checks: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-test-http-'));
  dirs.push(dir);
  await writeFile(join(dir, 'mac.config.yaml'), 'project: shop\nenv: [ORDERS_PASSWORD]\n');
  await writeFile(join(dir, 'checks.yaml'), checks);
  return dir;
}

const checks = () => `kind: UrlMonitor
id: home
name: Home page
request:
  url: ${web.origin}/
  assertions:
    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }
---
kind: UrlMonitor
id: slow
name: Slow page
doubleCheck: false
degradedResponseTime: 100
maxResponseTime: 5000
request:
  url: ${web.origin}/slow
---
kind: ApiCheck
id: orders
name: Orders API
request:
  method: POST
  url: ${web.origin}/v1/orders
  bodyType: JSON
  body: '{"state":"open"}'
  basicAuth: { username: monitor, password: "\${{ env.ORDERS_PASSWORD }}" }
  assertions:
    - { source: JSON_BODY, property: "$.orders[0].id", comparison: EQUALS, target: o-1 }
    - { source: JSON_BODY, property: "$.orders.length", comparison: GREATER_THAN, target: "0" }
    - { source: HEADERS, property: X-Region, comparison: EQUALS, target: local }
    - { source: TEXT_BODY, comparison: CONTAINS, target: open }
    - { source: RESPONSE_TIME, comparison: LESS_THAN, target: "5000" }
`;

const failing = () => `---
kind: ApiCheck
id: orders-closed
name: Orders are closed
doubleCheck: false
request:
  method: GET
  url: ${web.origin}/v1/orders
  basicAuth: { username: monitor, password: "\${{ env.ORDERS_PASSWORD }}" }
  assertions:
    - { source: JSON_BODY, property: "$.orders[0].state", comparison: EQUALS, target: closed }
`;

describe('mac test runs URL monitors and API checks', () => {
  it('passes, marks degraded, and prints the same table as for TCP and DNS', async () => {
    const dir = await project(checks());
    const r = await runMacIn(['test', dir], { env: { ORDERS_PASSWORD: 'pw-from-env' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^UrlMonitor\/home\s+URL\s+pass\s+\d+ ms/m);
    expect(r.stdout).toMatch(/^UrlMonitor\/slow\s+URL\s+degraded\s+\d+ ms/m);
    expect(r.stdout).toMatch(/^ApiCheck\/orders\s+API\s+pass\s+\d+ ms/m);
    expect(r.stdout).toContain('2 passed, 0 failed, 1 degraded, 0 skipped');
    expect(web.received.some((q) => q.method === 'POST' && q.url === '/v1/orders' && q.body === '{"state":"open"}')).toBe(true);
  });

  it('fails on a failed assertion, names it, and never prints the password in JSON output', async () => {
    const dir = await project(checks() + failing());
    const table = await runMacIn(['test', dir], { env: { ORDERS_PASSWORD: 'pw-from-env' } });
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^ApiCheck\/orders-closed\s+API\s+fail\s+\d+ ms\s+JSON_BODY EQUALS "closed" failed, actual "open"$/m);
    expect(table.stdout).toContain('Failed assertions:\n  ApiCheck/orders-closed (checks.yaml:');
    const json = await runMacIn(['test', dir, '--format', 'json'], { env: { ORDERS_PASSWORD: 'pw-from-env' } });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.summary).toEqual({ pass: 2, fail: 1, degraded: 1, skipped: 0 });
    const orders = report.checks.find((c: { id: string }) => c.id === 'orders');
    expect(orders.result.apiCheckResult).toMatchObject({
      request: { method: 'POST', url: `${web.origin}/v1/orders`, data: '{"state":"open"}', headers: { Authorization: '<redacted>' } },
      response: { status: 200, headers: { 'x-region': 'local' } },
    });
    const phases = orders.result.apiCheckResult.response.timingPhases;
    expect(phases.dns + phases.tcp + phases.firstByte + phases.download + phases.wait).toBe(phases.total);
    expect(json.stdout).not.toContain('pw-from-env');
    expect(json.stdout).not.toContain(Buffer.from('monitor:pw-from-env').toString('base64'));
  });
});
