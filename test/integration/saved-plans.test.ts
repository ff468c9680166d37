import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../../src/plan/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { macIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { api, listAllOf, writeProject } from '../e2e/apply-fixtures.js';
import { applied, type Live } from './owned-fixtures.js';

// Saved plans are verified again at apply: a retargeted update, an edited summary, a plan file
// that is a device or a FIFO.

let served: Served;
beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});


describe('saved plans are verified again at apply', () => {
  it("refuses an update retargeted to another project's check, and an edited summary, naming the operation", async () => {
    const mine = writeProject({ 'mac.config.yaml': 'project: sp-mine\n', 'c.yaml': 'kind: TcpCheck\nid: db\nname: Mine\nrequest: { hostname: a.example, port: 1 }\n' });
    const theirs = writeProject({ 'mac.config.yaml': 'project: sp-theirs\n', 'c.yaml': 'kind: TcpCheck\nid: db\nname: Theirs\nrequest: { hostname: b.example, port: 1 }\n' });
    await applied(served, mine);
    await applied(served, theirs);
    const victim = (await listAllOf<Live>(served, '/v1/checks')).find((c) => c.tags.includes('mac:sp-theirs/db'))!;
    writeFileSync(join(mine, 'c.yaml'), 'kind: TcpCheck\nid: db\nname: Mine renamed\nrequest: { hostname: a.example, port: 1 }\n');
    const file = join(mine, 'plan.json');
    expect((await macIn(served, ['plan', mine, '--out', file])).code).toBe(0);
    const plan = JSON.parse(readFileSync(file, 'utf8')) as Plan;
    const { fingerprint } = await import('../../src/plan/compare.js');
    const retargeted = { ...plan, changes: plan.changes.map((c) => (c.action === 'update' ? { ...c, remoteId: victim.id, liveFingerprint: fingerprint('TcpCheck', victim) } : c)) };
    writeFileSync(file, JSON.stringify(retargeted));
    const r = await macIn(served, ['apply', file, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`update TcpCheck/db (id ${victim.id}): the live check belongs to project "sp-theirs"`);
    expect((await api<Live>(served, 'GET', `/v1/checks/${victim.id}`)).name).toBe('Theirs');

    writeFileSync(file, JSON.stringify({ ...plan, summary: { ...plan.summary, update: 0, noop: 1 } }));
    const edited = await macIn(served, ['apply', file, '--yes']);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('summary.update is 0 but the changes hold 1 (update TcpCheck/db)');
  }, 300_000);

  it('refuses /dev/zero and a FIFO as the plan file at once', async () => {
    const zero = await macIn(served, ['apply', '/dev/zero', '--yes'], { timeoutMs: 60_000 });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('/dev/zero is a device, not a plan file');
    const dir = writeProject({});
    const fifo = join(dir, 'plan.json');
    execFileSync('mkfifo', [fifo]);
    const r = await macIn(served, ['apply', fifo, '--yes'], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is a FIFO (named pipe), not a plan file');
  }, 180_000);
});
