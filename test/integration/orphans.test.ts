import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { macIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { applied as appliedIn, planJson as planJsonIn } from './owned-fixtures.js';
import { api, checksByTag, config, listAllOf, tcpChecks, writeProject } from '../e2e/apply-fixtures.js';

let served: Served;

beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});

afterAll(async () => {
  await served?.stop();
});

const planJson = (dir: string, extra: string[] = []) => planJsonIn(served, dir, extra);
const applied = (dir: string, extra: string[] = []) => appliedIn(served, dir, extra);
type Live = Record<string, any>;
const checkWithTag = async (tag: string): Promise<Live[]> => (await listAllOf<Live>(served, '/v1/checks')).filter((c) => c.tags.includes(tag));

describe('orphans', () => {
  it('a removed check is orphaned: reported in JSON and text, exit 0 without --prune and 2 with it (--detailed-exitcode)', async () => {
    const dir = writeProject({ 'mac.config.yaml': config('orph'), 'checks.yaml': tcpChecks(3), 'snippet.yaml': 'kind: Snippet\nid: s\nname: orph helper\nscript: "1"\n' });
    await applied(dir);
    writeFileSync(join(dir, 'checks.yaml'), tcpChecks(2));

    const { r, plan } = await planJson(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3, orphaned: 1 });
    expect(plan.orphaned).toMatchObject([{ kind: 'TcpCheck', id: 'c2', name: 'Check 2' }]);

    const text = await macIn(served, ['plan', dir, '--detailed-exitcode']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');
    expect(text.stdout).not.toContain('The account matches the definitions');
    const md = await macIn(served, ['plan', dir, '--format', 'markdown']);
    expect(md.stdout).toContain('1 orphaned, not deleted: `mac plan --prune` deletes them');

    const pruned = await planJson(dir, ['--prune']);
    expect(pruned.r.code).toBe(2);
    expect(pruned.plan.summary).toEqual({ create: 0, update: 0, delete: 1, noop: 3, orphaned: 0 });

    // With no check defined at all, owned checks are still read and reported.
    rmSync(join(dir, 'checks.yaml'));
    const none = await planJson(dir);
    expect(none.r.code).toBe(0);
    expect(none.plan.summary.orphaned).toBe(3);
  }, 300_000);
});

describe('renamedFrom', () => {
  it('keeps the live check: the old id\'s check is updated in place with the new tag, same API id', async () => {
    const check = (id: string, extra = '') => `kind: TcpCheck\nid: ${id}\nname: Database\nrequest: { hostname: db.example, port: 5432 }\n${extra}`;
    const dir = writeProject({ 'mac.config.yaml': config('ren'), 'checks.yaml': check('db') });
    await applied(dir);
    const [before] = await checkWithTag('mac:ren/db');
    expect(before).toBeDefined();

    writeFileSync(join(dir, 'checks.yaml'), check('primary-db', 'renamedFrom: db\n'));
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 0, orphaned: 0 });
    expect(plan.changes[0]).toMatchObject({ action: 'update', id: 'primary-db', remoteId: before!.id });

    const r = await applied(dir);
    expect(r.stdout).toMatch(/applied {2}update {2}TcpCheck\/primary-db/);
    const after = await api<Live>(served, 'GET', `/v1/checks/${before!.id}`);
    expect(after.tags).toContain('mac:ren/primary-db');
    expect(after.tags).not.toContain('mac:ren/db');
    expect(await checkWithTag('mac:ren/primary-db')).toHaveLength(1);
    expect((await planJson(dir)).r.code).toBe(0);
  }, 300_000);

  it('naming an id that is still defined is an error at file:line:col, before any request', async () => {
    const dir = writeProject({
      'mac.config.yaml': config('ren2'),
      'checks.yaml': `${tcpChecks(1)}---\nkind: TcpCheck\nid: c1\nname: c1\nrequest: { hostname: h.example, port: 1 }\nrenamedFrom: [c0]\n`,
    });
    const r = await macIn(served, ['plan', dir, '--api-url', 'http://127.0.0.1:9']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('checks.yaml:10:15: error: renamedFrom.0: "c0" is still defined as a check');
    expect(r.stderr).not.toContain('ECONNREFUSED');
  });
});

describe('alert channel address change', () => {
  it('is one update of the previous channel: same id, subscriptions kept, channel count unchanged', async () => {
    const channel = (address: string) => `kind: AlertChannel\nid: oncall\ntype: EMAIL\nconfig: { address: ${address} }\n`;
    const checks = tcpChecks(2, 'alertChannels: [oncall]\n');
    const dir = writeProject({ 'mac.config.yaml': config('chan'), 'alerts.yaml': channel('old-oncall@example.com'), 'checks.yaml': checks });
    await applied(dir);
    const channels = await listAllOf<Live>(served, '/v1/alert-channels');
    const old = channels.find((c) => c.config.address === 'old-oncall@example.com')!;

    writeFileSync(join(dir, 'alerts.yaml'), channel('new-oncall@example.com'));
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 2, orphaned: 0 });
    expect(plan.changes.find((c) => c.action === 'update')).toMatchObject({ kind: 'AlertChannel', id: 'oncall', remoteId: old.id });

    await applied(dir);
    const after = await listAllOf<Live>(served, '/v1/alert-channels');
    expect(after).toHaveLength(channels.length);
    const moved = await api<Live>(served, 'GET', `/v1/alert-channels/${old.id}`);
    expect(moved.config.address).toBe('new-oncall@example.com');
    expect(moved.subscriptions).toHaveLength(2);
    expect((await planJson(dir)).r.code).toBe(0);
  });
});

describe('teardown', () => {
  const project = (name: string) => ({
    'mac.config.yaml': config(name),
    'checks.yaml': tcpChecks(3, 'alertChannels: [oncall]\n'),
    'resources.yaml': `kind: Snippet
id: helper
name: ${name} helper
script: "1"
---
kind: EnvironmentVariable
key: ${name.toUpperCase()}_VAR
value: v
---
kind: AlertChannel
id: oncall
type: EMAIL
config: { address: ${name}@example.com }
---
kind: Dashboard
id: board
customUrl: ${name}-board
header: ${name}
`,
  });
  const inventory = async (name: string) => ({
    checks: [...(await checksByTag(served, name)).values()].reduce((a, b) => a + b, 0),
    snippets: (await listAllOf<Live>(served, '/v1/snippets')).filter((s) => s.name === `${name} helper`).length,
    variables: (await listAllOf<Live>(served, '/v1/variables')).filter((v) => v.key === `${name.toUpperCase()}_VAR`).length,
    channels: (await listAllOf<Live>(served, '/v1/alert-channels')).filter((c) => c.config.address === `${name}@example.com`).length,
    dashboards: (await listAllOf<Live>(served, '/v1/dashboards')).filter((d) => d.customUrl === `${name}-board`).length,
  });

  it('mac destroy --yes deletes every resource of the project and none of another project', async () => {
    const alpha = writeProject(project('alpha'));
    const beta = writeProject(project('beta'));
    await applied(alpha);
    await applied(beta);
    const full = { checks: 3, snippets: 1, variables: 1, channels: 1, dashboards: 1 };
    expect(await inventory('alpha')).toEqual(full);
    // A check removed from the files is still the project's (tagged): destroy deletes it too.
    writeFileSync(join(alpha, 'checks.yaml'), tcpChecks(2, 'alertChannels: [oncall]\n'));

    const noTty = await macIn(served, ['destroy', alpha]);
    expect(noTty.code).toBe(1);
    expect(noTty.stderr).toContain('mac destroy needs --yes');
    const tooMany = await macIn(served, ['destroy', alpha, '--yes', '--max-deletes', '3']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('the plan deletes 7 resources, more than --max-deletes 3');
    expect(await inventory('alpha')).toEqual(full);

    const r = await macIn(served, ['destroy', alpha, '--yes']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(await inventory('alpha')).toEqual({ checks: 0, snippets: 0, variables: 0, channels: 0, dashboards: 0 });
    expect(await inventory('beta')).toEqual(full);

    const again = await macIn(served, ['destroy', alpha, '--yes']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('tombstoning every resource applies (the never-empty guard is for pruning only)', async () => {
    const dir = writeProject({ 'mac.config.yaml': config('tomb'), 'checks.yaml': tcpChecks(1), 'snippet.yaml': 'kind: Snippet\nid: s\nname: tomb helper\nscript: "1"\n' });
    await applied(dir);
    writeFileSync(join(dir, 'checks.yaml'), tcpChecks(1, 'state: absent\n'));
    writeFileSync(join(dir, 'snippet.yaml'), 'kind: Snippet\nid: s\nname: tomb helper\nstate: absent\n');
    const r = await applied(dir);
    expect(r.stdout).toMatch(/applied {2}delete {2}TcpCheck\/c0/);
    expect((await checksByTag(served, 'tomb')).size).toBe(0);
    expect((await listAllOf<Live>(served, '/v1/snippets')).filter((s) => s.name === 'tomb helper')).toEqual([]);
  });
});
