import { describe, expect, it } from 'vitest';
import { macIn, serveInForFile } from '../helpers/mac-inprocess.js';
import { api, listAllOf, writeProject } from '../e2e/apply-fixtures.js';
import { runOnce } from '../e2e/pages-fixtures.js';
import { waitFor } from '../helpers/serve.js';
import { accountIds, applied, everyKind, planJsonOk as planJson, projectFiles, type Live } from './owned-fixtures.js';

// Every kind is owned: a new display name (or URL, or address) is an update of the same object;
// mac destroy removes what blocks it and nothing of another project. Both compare the whole
// account before and after, so they run one after the other on their own service.

const file = serveInForFile(['--no-runs', '--rate-limit', '0/60']);

describe('every kind is owned', () => {
  it('a new display name (URL, address) of every kind is one update of the same object, and no copy', async () => {
    const p = 'evn';
    const dir = writeProject(projectFiles(p));
    await applied(file.served, dir);
    const before = (await planJson(file.served, dir)).plan;
    const idsBefore = await accountIds(file.served);
    writeProject(projectFiles(p, '2'), dir);
    const { plan } = await planJson(file.served, dir);
    const display: Record<string, string> = { AlertChannel: '/config/address', Dashboard: '/customUrl', StatusPage: '/url' };
    const updates = plan.changes.filter((c) => c.action === 'update');
    expect(plan.summary).toEqual({ create: 0, update: 16, delete: 0, noop: 1, orphaned: 0 });
    for (const c of updates) {
      expect(c.patch.map((op) => `${op.op} ${op.path}`), `${c.kind}/${c.id}`).toEqual([`replace ${display[c.kind] ?? '/name'}`]);
      expect(c.remoteId).toBe(before.changes.find((b) => b.kind === c.kind && b.id === c.id)!.remoteId);
    }
    await applied(file.served, dir);
    expect((await planJson(file.served, dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 17, orphaned: 0 });
    // Same live ids, no copy: the account holds exactly the objects it held (the lock is gone again).
    expect([...(await accountIds(file.served))].sort()).toEqual([...idsBefore].sort());
    expect((await macIn(file.served, ['destroy', dir, '--yes', '--max-deletes', '20'])).code).toBe(0);
  }, 900_000);
});

describe('destroy finishes', () => {
  it("removes the incident triggerIncident opened on the project's service, and nothing of another project", async () => {
    const other = writeProject({ 'mac.config.yaml': 'project: bystander\n', ...Object.fromEntries(everyKind('bys').map((d) => [d.file, d.yaml])) });
    await applied(file.served, other);
    // What the account holds without the project: exactly what it must hold after its destroy.
    const before = await accountIds(file.served);
    const dir = writeProject({
      'mac.config.yaml': 'project: incid\n',
      'svc.yaml': 'kind: StatusPageService\nid: api\nname: Products API\n',
      'page.yaml': 'kind: StatusPage\nid: page\nname: Products\nurl: incid-page\ncards: [{ name: All, services: [api] }]\n',
      // Port 9 on loopback: closed (or denied), so a run fails and opens the incident.
      'check.yaml':
        'kind: TcpCheck\nid: down\nname: Products API down\ndoubleCheck: false\nrequest: { hostname: 127.0.0.1, port: 9 }\ntriggerIncident: { service: api, severity: MAJOR, name: Products API down, description: d, notifySubscribers: false }\n',
    });
    await applied(file.served, dir);
    const check = (await listAllOf<Live>(file.served, '/v1/checks')).find((c) => c.tags.includes('mac:incid/down'))!;
    const service = (await api<Live>(file.served, 'GET', '/v1/status-pages/services?limit=100')).entries.find((s: Live) => s.name === 'Products API');
    await runOnce(file.served, check.id);
    const incident = await waitFor(async () => (await api<Live>(file.served, 'GET', '/v1/status-pages/incidents')).entries.find((i: Live) => i.services.some((s: Live) => s.id === service.id)));
    // A subscriber of the page is removed with it.
    await api(file.served, 'POST', `/v1/status-pages/${(await api<Live>(file.served, 'GET', '/v1/status-pages?limit=100')).entries.find((x: Live) => x.url === 'incid-page').id}/subscriptions/bulk`, {
      subscriptions: [{ type: 'EMAIL', config: 'reader@example.com' }],
      autoVerify: true,
    });

    const r = await macIn(file.served, ['destroy', dir, '--yes']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain('Removed first, so that the deletes succeed');
    expect(r.stderr).toMatch(new RegExp(`- delete Incident "Products API down" \\[${incident.id}\\]`));
    expect(r.stderr).toContain('- delete StatusPageSubscription');
    const left = await accountIds(file.served);
    // Nothing of the project (its record and lock included), and everything of the other project.
    expect([...left].sort()).toEqual([...before].sort());
    expect(left.has(`incident:${incident.id}`)).toBe(false);
    expect((await macIn(file.served, ['plan', other, '--detailed-exitcode'])).code).toBe(0);
    expect((await macIn(file.served, ['destroy', other, '--yes', '--max-deletes', '20'])).code).toBe(0);
  }, 600_000);

});
