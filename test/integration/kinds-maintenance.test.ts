import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Served } from '../helpers/serve.js';
import { applied as appliedIn, planJson as planJsonIn } from './owned-fixtures.js';
import { macIn, startServeIn } from '../helpers/mac-inprocess.js';
import { api, writeProject } from '../e2e/apply-fixtures.js';

// Issue 25: the MaintenanceWindow kind planned and applied against `mac serve`, and imported back.

let served: Served;
beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

type Live = Record<string, any>;

const planJson = (dir: string, extra: string[] = []) => planJsonIn(served, dir, extra);
const applied = (dir: string, extra: string[] = []) => appliedIn(served, dir, extra);
const windows = async () => api<Live[]>(served, 'GET', '/v1/maintenance-windows?limit=100');

// Offsets and date-only values are written as people write them; the service stores UTC with ms.
const project = (weeklyEnd: string, description = 'Primary upgrade') => ({
  'mac.config.yaml': 'project: maint\n',
  'maintenance.yaml': `kind: MaintenanceWindow
id: db-upgrade
name: Database upgrade
tags: [database, prod]
startsAt: 2030-01-05T03:00:00+01:00
endsAt: 2030-01-05T05:00:00+01:00
description: ${description}
---
kind: MaintenanceWindow
id: weekly
name: Weekly deploy
tags: [web]
startsAt: 2030-01-07
endsAt: 2030-01-07T00:30:00Z
repeatUnit: WEEK
repeatInterval: 1
repeatEndsAt: ${weeklyEnd}
timezone: Europe/Berlin
`,
});

describe('MaintenanceWindow with mac plan and mac apply', () => {
  let dir: string;
  it('creates both windows, then plans no change', async () => {
    dir = writeProject(project('2030-12-31'));
    const { r, plan } = await planJson(dir);
    expect(r.code, r.stderr).toBe(2);
    expect(plan.summary).toMatchObject({ create: 2, update: 0, delete: 0 });
    await applied(dir);
    const live = await windows();
    expect(live.map((w) => [w.name, w.startsAt, w.endsAt, w.repeatUnit, w.repeatInterval, w.repeatEndsAt, w.timezone])).toEqual([
      ['Database upgrade', '2030-01-05T02:00:00.000Z', '2030-01-05T04:00:00.000Z', null, null, null, null],
      ['Weekly deploy', '2030-01-07T00:00:00.000Z', '2030-01-07T00:30:00.000Z', 'WEEK', 1, '2030-12-31', 'Europe/Berlin'],
    ]);
    const again = await planJson(dir);
    expect(again.r.code, again.r.stdout).toBe(0);
    expect(again.plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 2, orphaned: 0 });
  });

  it('a changed field is an update of the same window; the next plan is clean', async () => {
    const before = await windows();
    writeProject(project('2031-06-30T12:00:00Z', 'Primary and replica upgrade'), dir);
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 0, orphaned: 0 });
    await applied(dir);
    const after = await windows();
    expect(after.map((w) => w.id)).toEqual(before.map((w) => w.id));
    expect(after.map((w) => [w.description, w.repeatEndsAt])).toEqual([
      ['Primary and replica upgrade', null],
      [null, '2031-06-30'],
    ]);
    expect((await planJson(dir)).r.code).toBe(0);
  });

  it('a window the service would refuse fails validation with the file position', async () => {
    const bad = writeProject({
      'mac.config.yaml': 'project: maint-bad\n',
      'w.yaml': [
        'kind: MaintenanceWindow\nid: bad\nname: Bad\nstartsAt: 2030-01-05T04:00:00Z\nendsAt: 2030-01-05T02:00:00Z\nrepeatInterval: 2\n',
        'kind: MaintenanceWindow\nid: bad-zone\nname: Bad zone\nstartsAt: 2030-01-05T04:00:00Z\nendsAt: 2030-01-05T05:00:00Z\ntimezone: "+05:00"\n',
      ].join('---\n'),
    });
    const r = await macIn(served, ['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/w\.yaml:5:\d+: error: .*endsAt.*must be after startsAt/);
    expect(r.stderr).toMatch(/w\.yaml:\d+:\d+: error: .*repeatUnit.*is required when repeatInterval is set/);
    expect(r.stderr).toMatch(/w\.yaml:13:\d+: error: .*timezone.*IANA time zone name/);
  });

  it('round-trips through mac import: the imported directory plans no change', async () => {
    const out = writeProject({});
    const r = await macIn(served, ['import', '--out', out, '--project', 'maint', '--kind', 'maintenance-windows']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('Round trip: the written definitions match the account');
    const text = readFileSync(join(out, 'maintenance-windows.yaml'), 'utf8');
    expect(text).toContain('kind: MaintenanceWindow');
    expect(text).toContain('name: Weekly deploy');
    const { r: p, plan } = await planJson(out);
    expect(p.code, p.stdout).toBe(0);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 2, orphaned: 0 });
  });

  it('deletes with state: absent', async () => {
    writeProject(
      {
        'maintenance.yaml': 'kind: MaintenanceWindow\nid: db-upgrade\nname: Database upgrade\nstate: absent\n---\nkind: MaintenanceWindow\nid: weekly\nname: Weekly deploy\nstate: absent\n',
      },
      dir,
    );
    const { plan } = await planJson(dir);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 2, noop: 0, orphaned: 0 });
    await applied(dir);
    expect(await windows()).toEqual([]);
  });
});
