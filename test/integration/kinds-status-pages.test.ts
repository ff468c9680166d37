import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import type { Served } from '../helpers/serve.js';
import { macIn, serveInForFile } from '../helpers/mac-inprocess.js';
import { api, listAllOf, writeProject } from '../e2e/apply-fixtures.js';
import { planJson } from './owned-fixtures.js';

// StatusPageService and StatusPage as definitions, and checks' triggerIncident.service, end to end.

type Live = Record<string, any>;
const file = serveInForFile(['--no-runs', '--rate-limit', '0/60']);
const applied = async (s: Served, dir: string, extra: string[] = []) => {
  const r = await macIn(s, ['apply', dir, '--yes', ...extra]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
};
const services = async (s: Served): Promise<Live[]> => (await api<{ entries: Live[] }>(s, 'GET', '/v1/status-pages/services?limit=100')).entries;
const pages = async (s: Served): Promise<Live[]> => (await api<{ entries: Live[] }>(s, 'GET', '/v1/status-pages?limit=100')).entries;

const serviceDocs = (dbName: string, previous = '') => `kind: StatusPageService
id: db
name: ${dbName}
${previous}---
kind: StatusPageService
id: api
name: API
`;
// Every field of the page set to a value other than the service's default.
const page = (name: string) => `kind: StatusPage
id: shop
name: ${name}
url: shop-kinds-test
cards:
  - name: Core
    services: [db, api]
  - name: Edge
    services: [api]
customDomain: status.shop.example
logo: https://shop.example/logo.png
redirectTo: https://shop.example
favicon: https://shop.example/favicon.ico
defaultTheme: DARK
whiteLabel: true
`;
const check = `kind: TcpCheck
id: db-check
name: DB reachable
request: { hostname: db.example, port: 5432 }
triggerIncident:
  service: db
  severity: MAJOR
  name: Database down
  description: The database does not answer
  notifySubscribers: false
`;

describe('StatusPageService and StatusPage', () => {
  let dir: string;
  const write = (db = 'Database', title = 'Shop status', previous = '') =>
    writeProject({ 'mac.config.yaml': 'project: pages\n', 'services.yaml': serviceDocs(db, previous), 'pages.yaml': page(title), 'checks.yaml': check }, dir);

  it('applies from empty: cards and the check point at the services by API id', async () => {
    dir = writeProject({});
    write();
    const { plan } = await planJson(file.served, dir);
    expect(plan.summary).toEqual({ create: 4, update: 0, delete: 0, noop: 0, orphaned: 0 });
    expect(plan.changes.find((c) => c.kind === 'StatusPage')!.dependsOn.sort()).toEqual(['StatusPageService/api', 'StatusPageService/db']);
    await applied(file.served, dir);
    const byName = new Map((await services(file.served)).map((s) => [s.name, s.id]));
    const [p] = await pages(file.served);
    expect(p).toMatchObject({ name: 'Shop status', url: 'shop-kinds-test', defaultTheme: 'DARK', whiteLabel: true, customDomain: 'status.shop.example' });
    expect(p.cards.map((c: Live) => [c.name, c.services.map((s: Live) => s.id)])).toEqual([
      ['Core', [byName.get('Database'), byName.get('API')]],
      ['Edge', [byName.get('API')]],
    ]);
    const [c] = (await listAllOf<Live>(file.served, '/v1/checks')).filter((x) => x.tags.includes('mac:pages/db-check'));
    expect(c.triggerIncident).toMatchObject({ serviceId: byName.get('Database'), severity: 'MAJOR' });
  });

  it('plans no change afterwards', async () => {
    const { r, plan } = await planJson(file.served, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 4, orphaned: 0 });
  });

  it('a renamed service (previousNames) and page title are updates: the service keeps its id and its incidents', async () => {
    const db = (await services(file.served)).find((s) => s.name === 'Database')!;
    const incident = await api<Live>(file.served, 'POST', '/v1/status-pages/incidents', {
      name: 'Slow queries',
      severity: 'MINOR',
      services: [{ id: db.id }],
      incidentUpdates: [{ description: 'Looking into it' }],
    });
    write('Primary database', 'Shop status page', 'previousNames: [Database]\n');
    const { plan } = await planJson(file.served, dir);
    expect(plan.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 2, orphaned: 0 });
    const svc = plan.changes.find((c) => c.kind === 'StatusPageService' && c.id === 'db')!;
    expect(svc).toMatchObject({ action: 'update', remoteId: db.id });
    expect(svc.notes?.join('\n')).toContain('matched by its logical id');
    await applied(file.served, dir);
    expect((await services(file.served)).find((s) => s.id === db.id)!.name).toBe('Primary database');
    const after = await api<Live>(file.served, 'GET', `/v1/status-pages/incidents/${incident.id}`);
    expect(after.services.map((s: Live) => s.name)).toEqual(['Primary database']);
    expect((await planJson(file.served, dir)).r.code).toBe(0);
    await api(file.served, 'DELETE', `/v1/status-pages/incidents/${incident.id}`);
  });

  it('an unknown service on a card or in triggerIncident is an error at file:line:col with "did you mean"', async () => {
    const bad = writeProject({
      'mac.config.yaml': 'project: pages\n',
      'services.yaml': serviceDocs('Database'),
      'pages.yaml': page('Shop').replace('services: [db, api]', 'services: [db, apii]'),
      'checks.yaml': check.replace('service: db', 'service: dbb'),
    });
    const r = await macIn(file.served, ['validate', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/pages\.yaml:7:\d+: error: cards\.0\.services\.1: no StatusPageService with id "apii"/);
    expect(r.stderr).toContain('did you mean "api"');
    expect(r.stderr).toMatch(/checks\.yaml:6:\d+: error: triggerIncident\.service: no StatusPageService with id "dbb"/);
    expect(r.stderr).toContain('did you mean "db"');
  });

  it('deletes cleanly with state: absent: the page and the check before the services', async () => {
    writeFileSync(join(dir, 'pages.yaml'), 'kind: StatusPage\nid: shop\nurl: shop-kinds-test\nstate: absent\n');
    writeFileSync(join(dir, 'checks.yaml'), 'kind: TcpCheck\nid: db-check\nstate: absent\n');
    writeFileSync(join(dir, 'services.yaml'), 'kind: StatusPageService\nid: db\nname: Primary database\nstate: absent\n---\nkind: StatusPageService\nid: api\nname: API\nstate: absent\n');
    const { plan } = await planJson(file.served, dir);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 4, noop: 0, orphaned: 0 });
    await applied(file.served, dir);
    expect(await services(file.served)).toEqual([]);
    expect(await pages(file.served)).toEqual([]);
    expect((await planJson(file.served, dir)).plan.summary.noop).toBe(4);
  });
});

describe('mac import of status pages and services made in the app', () => {
  const other = serveInForFile(['--no-runs', '--rate-limit', '0/60']);

  it('writes cards and triggerIncident by logical id; the directory plans only adoptions, then nothing', async () => {
    const svc = await api<Live>(other.served, 'POST', '/v1/status-pages/services', { name: 'Checkout' });
    await api(other.served, 'POST', '/v1/status-pages', { name: 'Imported', url: 'imported-kinds', cards: [{ name: 'Main', services: [{ id: svc.id }] }], whiteLabel: true });
    await api(other.served, 'POST', '/v1/checks/tcp', {
      name: 'Checkout TCP',
      request: { hostname: 'checkout.example', port: 443 },
      triggerIncident: { serviceId: svc.id, severity: 'CRITICAL', name: 'Checkout down', description: 'd', notifySubscribers: true },
    });
    const dir = writeProject({});
    const r = await macIn(other.served, ['import', '--out', dir, '--project', 'imp']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Round trip: the written definitions match the account');
    expect(readFileSync(join(dir, 'status-page-services.yaml'), 'utf8')).toContain('kind: StatusPageService');
    const text = readFileSync(join(dir, 'status-pages.yaml'), 'utf8');
    expect(text).toContain('kind: StatusPage');
    expect(text).toMatch(/services:\s*\n\s*- checkout|services: \[ ?checkout ?\]/);
    expect(readFileSync(join(dir, 'checks/tcp.yaml'), 'utf8')).toMatch(/service: checkout/);
    // Status pages alone bring the services their cards show (a card has no raw form of a service);
    // before the first project applies and records them as its own.
    const pagesOnly = writeProject({});
    const only = await macIn(other.served, ['import', '--out', pagesOnly, '--project', 'pages-only', '--kind', 'status-pages']);
    expect(only.code, only.stderr + only.stdout).toBe(0);
    expect(only.stdout).toContain('Round trip: the written definitions match the account');
    expect(readFileSync(join(pagesOnly, 'status-page-services.yaml'), 'utf8')).toContain('name: Checkout');
    const first = JSON.parse((await macIn(other.served, ['plan', dir, '--format', 'json'])).stdout) as Plan;
    expect(first.summary).toMatchObject({ create: 0, update: 1, delete: 0 });
    await applied(other.served, dir);
    expect((await macIn(other.served, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  });
});
