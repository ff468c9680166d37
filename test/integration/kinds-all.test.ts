import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import type { Served } from '../helpers/serve.js';
import { macIn, startServeIn } from '../helpers/mac-inprocess.js';
import { writeProject } from '../e2e/apply-fixtures.js';

// Issue 16 acceptance: one project with all four new kinds and every reference between them.

let served: Served;
beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

const planJson = async (dir: string) => {
  const r = await macIn(served, ['plan', dir, '--format', 'json', '--detailed-exitcode']);
  return { r, plan: JSON.parse(r.stdout) as Plan };
};
const applied = async (dir: string) => {
  const r = await macIn(served, ['apply', dir, '--yes']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
};

const project = (n: string, previous = '') => ({
  'mac.config.yaml': 'project: all\n',
  'resources.yaml': `kind: PrivateLocation
id: dc
name: DC ${n}
slugName: all-dc
---
kind: CheckGroup
id: core
name: Core ${n}
concurrency: 4
---
kind: StatusPageService
id: web
name: Web ${n}
${previous}---
kind: StatusPage
id: public
name: Public ${n}
url: all-public
cards:
  - name: Everything
    services: [web]
`,
  'checks.yaml': `kind: TcpCheck
id: web
name: Web port
group: core
groupOrder: 1
privateLocations: [dc]
request: { hostname: web.example, port: 443 }
triggerIncident: { service: web, severity: MINOR, name: Web down, description: d, notifySubscribers: false }
`,
});

describe('all four kinds with every reference', () => {
  let dir: string;
  it('applies from empty, then plans no change', async () => {
    dir = writeProject(project('one'));
    await applied(dir);
    const { r, plan } = await planJson(dir);
    expect(r.code, r.stdout).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 5, orphaned: 0 });
  });

  it('a new display name of each kind is an update of the same object', async () => {
    const before = JSON.parse((await macIn(served, ['plan', dir, '--format', 'json'])).stdout) as Plan;
    writeProject(project('two', 'previousNames: [Web one]\n'), dir);
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 4, delete: 0, noop: 1, orphaned: 0 });
    for (const c of plan.changes.filter((x) => x.action === 'update')) {
      expect(c.remoteId).toBe(before.changes.find((b) => b.kind === c.kind && b.id === c.id)!.remoteId);
    }
    await applied(dir);
    expect((await planJson(dir)).plan.summary.noop).toBe(5);
  });

  it('round-trips through mac import: the imported directory plans no change', async () => {
    const out = writeProject({});
    const r = await macIn(served, ['import', '--out', out, '--project', 'all']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Round trip: the written definitions match the account');
    const { r: p, plan } = await planJson(out);
    expect(p.code, p.stdout).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 5, orphaned: 0 });
  });

  it('deletes cleanly with state: absent, in an order the service accepts', async () => {
    writeFileSync(
      join(dir, 'resources.yaml'),
      [
        'kind: PrivateLocation\nid: dc\nslugName: all-dc\nstate: absent\n',
        'kind: CheckGroup\nid: core\nstate: absent\n',
        'kind: StatusPageService\nid: web\nname: Web two\nstate: absent\n',
        'kind: StatusPage\nid: public\nurl: all-public\nstate: absent\n',
      ].join('---\n'),
    );
    writeFileSync(join(dir, 'checks.yaml'), 'kind: TcpCheck\nid: web\nstate: absent\n');
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 5, noop: 0, orphaned: 0 });
    await applied(dir);
    expect((await planJson(dir)).plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 5, orphaned: 0 });
  });
});
