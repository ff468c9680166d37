import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { macIn, serveInForFile } from '../helpers/mac-inprocess.js';
import { api, listAllOf, writeProject } from '../e2e/apply-fixtures.js';

// PrivateLocation and CheckGroup as definitions, end to end against `mac serve`.

type Live = Record<string, any>;
const file = serveInForFile(['--no-runs', '--rate-limit', '0/60']);

const planJson = async (dir: string, extra: string[] = []) => {
  const r = await macIn(file.served, ['plan', dir, '--format', 'json', '--detailed-exitcode', ...extra]);
  return { r, plan: JSON.parse(r.stdout) as Plan };
};
const applied = async (dir: string, extra: string[] = []) => {
  const r = await macIn(file.served, ['apply', dir, '--yes', ...extra]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return r;
};

// Every field of both kinds set to a value other than the service's default.
const location = (name: string) => `kind: PrivateLocation
id: dc
name: ${name}
slugName: dc-1
icon: cloud
proxyUrl: http://proxy.example:8080
`;
const group = (name: string) => `kind: CheckGroup
id: payments
name: ${name}
activated: false
muted: true
tags: [team-a, pci]
locations: [us-east-1, eu-west-1]
concurrency: 5
`;
const check = `kind: TcpCheck
id: api
name: Payments API
group: payments
groupOrder: 2
privateLocations: [dc, Rack-42]
request: { hostname: pay.example, port: 443 }
`;

describe('PrivateLocation and CheckGroup', () => {
  const files = (loc = 'DC One', grp = 'Payments') => ({
    'mac.config.yaml': 'project: kinds\n',
    'locations.yaml': location(loc),
    'groups.yaml': group(grp),
    'checks.yaml': check,
  });
  let dir: string;

  it('applies from empty: the check is in the group and runs in the location, by slug', async () => {
    // Rack-42 is a slug of a location outside the project: kept as written.
    await api(file.served, 'POST', '/v1/private-locations', { name: 'Rack', slugName: 'Rack-42' });
    dir = writeProject(files());
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 3, update: 0, delete: 0, noop: 0, orphaned: 0 });
    const checkChange = plan.changes.find((c) => c.kind === 'TcpCheck')!;
    expect(checkChange.dependsOn.sort()).toEqual(['CheckGroup/payments', 'PrivateLocation/dc']);
    expect(checkChange.desired).toMatchObject({ groupId: { $ref: 'CheckGroup/payments' }, privateLocations: ['Rack-42', 'dc-1'], groupOrder: 2 });

    await applied(dir);
    const [g] = (await listAllOf<Live>(file.served, '/v1/check-groups')).filter((x) => x.tags.includes('mac:kinds/payments'));
    expect(g).toMatchObject({ name: 'Payments', activated: false, muted: true, concurrency: 5 });
    const locs = await api<Live[]>(file.served, 'GET', '/v1/private-locations');
    expect(locs.find((l) => l.slugName === 'dc-1')).toMatchObject({ name: 'DC One', icon: 'cloud', proxyUrl: 'http://proxy.example:8080' });
    const [c] = (await listAllOf<Live>(file.served, '/v1/checks')).filter((x) => x.tags.includes('mac:kinds/api'));
    expect(c).toMatchObject({ groupId: g.id, groupOrder: 2 });
    expect([...c.privateLocations].sort()).toEqual(['Rack-42', 'dc-1']);
  });

  it('plans no change afterwards: every non-default field reads back equal', async () => {
    const { r, plan } = await planJson(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3, orphaned: 0 });
  });

  it('a new display name is an update of the same live object', async () => {
    const before = await listAllOf<Live>(file.served, '/v1/check-groups');
    writeProject(files('DC Uno', 'Payments and Billing'), dir);
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 1, orphaned: 0 });
    await applied(dir);
    const after = await listAllOf<Live>(file.served, '/v1/check-groups');
    expect(after.map((x) => x.id)).toEqual(before.map((x) => x.id));
    expect(after.find((x) => x.tags.includes('mac:kinds/payments'))!.name).toBe('Payments and Billing');
    expect((await api<Live[]>(file.served, 'GET', '/v1/private-locations')).find((l) => l.slugName === 'dc-1')!.name).toBe('DC Uno');
    expect((await planJson(dir)).plan.summary.noop).toBe(3);
  });

  it('a group is renamed by id with renamedFrom, keeping its API id', async () => {
    const before = (await listAllOf<Live>(file.served, '/v1/check-groups')).find((x) => x.tags.includes('mac:kinds/payments'))!;
    writeFileSync(join(dir, 'groups.yaml'), group('Payments and Billing').replace('id: payments', 'id: billing\nrenamedFrom: payments'));
    writeFileSync(join(dir, 'checks.yaml'), check.replace('group: payments', 'group: billing'));
    const { plan } = await planJson(dir);
    expect(plan.summary).toMatchObject({ create: 0, update: 1, delete: 0 });
    expect(plan.changes.find((c) => c.kind === 'CheckGroup')).toMatchObject({ action: 'update', id: 'billing', remoteId: before.id });
    await applied(dir);
    const after = await api<Live>(file.served, 'GET', `/v1/check-groups/${before.id}`);
    expect(after.tags).toContain('mac:kinds/billing');
    expect(after.tags).not.toContain('mac:kinds/payments');
    expect((await planJson(dir)).r.code).toBe(0);
  });

  it('an unresolvable group is an error at file:line:col with "did you mean"; a mistyped location id a warning', async () => {
    const bad = writeProject({
      ...files(),
      'checks.yaml': check.replace('group: payments', 'group: paymnts').replace('[dc, Rack-42]', '[dcc, Rack-42]'),
    });
    const r = await macIn(file.served, ['validate', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/checks\.yaml:4:8: error: group: no CheckGroup with id "paymnts"/);
    expect(r.stderr).toContain('did you mean "payments"');
    expect(r.stderr).toMatch(/checks\.yaml:6:\d+: warning: privateLocations\.0: no PrivateLocation with id "dcc"/);
    expect(r.stderr).toContain('did you mean "dc"');
  });

  it('an owned group no longer defined is orphaned, and pruned with --prune', async () => {
    const extra = writeProject({
      'mac.config.yaml': 'project: kinds2\n',
      'groups.yaml': 'kind: CheckGroup\nid: spare\nname: Spare\n---\nkind: CheckGroup\nid: kept\nname: Kept\n',
    });
    await applied(extra);
    writeFileSync(join(extra, 'groups.yaml'), 'kind: CheckGroup\nid: kept\nname: Kept\n');
    const { plan } = await planJson(extra);
    expect(plan.orphaned).toMatchObject([{ kind: 'CheckGroup', id: 'spare', name: 'Spare' }]);
    await applied(extra, ['--prune']);
    const left = await listAllOf<Live>(file.served, '/v1/check-groups');
    expect(left.some((x) => x.tags.includes('mac:kinds2/spare'))).toBe(false);
    expect(left.some((x) => x.tags.includes('mac:kinds2/kept'))).toBe(true);
    // mac destroy deletes the project's groups too.
    const d = await macIn(file.served, ['destroy', extra, '--yes']);
    expect(d.code, d.stderr + d.stdout).toBe(0);
    expect((await listAllOf<Live>(file.served, '/v1/check-groups')).some((x) => x.tags.some((t: string) => t.startsWith('mac:kinds2/')))).toBe(false);
  });

  it('deletes cleanly with state: absent: the check first, then its group and location', async () => {
    writeFileSync(join(dir, 'checks.yaml'), 'kind: TcpCheck\nid: api\nstate: absent\n');
    writeFileSync(join(dir, 'groups.yaml'), 'kind: CheckGroup\nid: billing\nstate: absent\n');
    writeFileSync(join(dir, 'locations.yaml'), 'kind: PrivateLocation\nid: dc\nslugName: dc-1\nstate: absent\n');
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 3, noop: 0, orphaned: 0 });
    await applied(dir);
    expect((await listAllOf<Live>(file.served, '/v1/check-groups')).some((x) => x.tags.includes('mac:kinds/billing'))).toBe(false);
    expect((await api<Live[]>(file.served, 'GET', '/v1/private-locations')).some((l) => l.slugName === 'dc-1')).toBe(false);
    expect((await listAllOf<Live>(file.served, '/v1/checks')).some((x) => x.tags.includes('mac:kinds/api'))).toBe(false);
    expect((await planJson(dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3, orphaned: 0 });
  });
});

describe('mac import of groups and private locations made in the app', () => {
  const other = serveInForFile(['--no-runs', '--rate-limit', '0/60']);

  it('writes them with references by logical id; the directory plans only adoptions, then nothing', async () => {
    const loc = await api<Live>(other.served, 'POST', '/v1/private-locations', { name: 'Basement', slugName: 'basement', icon: 'server', proxyUrl: 'http://p.example:3128' });
    const g = await api<Live>(other.served, 'POST', '/v1/check-groups', { name: 'Edge', tags: ['edge'], locations: ['ap-south-1'], concurrency: 7, muted: true });
    await api(other.served, 'POST', '/v1/checks/tcp', {
      name: 'Edge TCP',
      groupId: g.id,
      groupOrder: 1,
      privateLocations: ['basement'],
      locations: ['eu-west-1'],
      request: { hostname: 'edge.example', port: 22 },
    });
    const dir = writeProject({});
    const r = await macIn(other.served, ['import', '--out', dir, '--project', 'edge']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Round trip: the written definitions match the account');
    const groups = readFileSync(join(dir, 'check-groups.yaml'), 'utf8');
    expect(groups).toContain(`adopt: "${g.id}"`);
    expect(groups).toContain('concurrency: 7');
    const locations = readFileSync(join(dir, 'private-locations.yaml'), 'utf8');
    expect(locations).toContain('slugName: basement');
    const checks = readFileSync(join(dir, 'checks/tcp.yaml'), 'utf8');
    expect(checks).toMatch(/group: edge\b/);
    expect(checks).toMatch(/privateLocations:\s*\n\s*- basement|privateLocations: \[ ?basement ?\]/);

    const first = await macIn(other.served, ['plan', dir, '--format', 'json']);
    const plan = JSON.parse(first.stdout) as Plan;
    expect(plan.summary).toMatchObject({ create: 0, delete: 0, update: 2 });
    expect(plan.changes.filter((c) => c.action === 'update').every((c) => c.patch.every((op) => op.path.startsWith('/tags')))).toBe(true);
    await macIn(other.served, ['apply', dir, '--yes']).then((a) => expect(a.code, a.stderr).toBe(0));
    const again = await macIn(other.served, ['plan', dir, '--format', 'json', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect((await api<Live>(other.served, 'GET', `/v1/check-groups/${g.id}`)).tags).toContain('mac:edge/edge');
    expect(loc.id).toBeDefined();
  });
});
