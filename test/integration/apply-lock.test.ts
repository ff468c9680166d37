import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccounts } from '../helpers/accounts.js';
import { macIn as mac, runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, callApi, type Served } from '../helpers/serve.js';
import { checksByTag, config, deadPid, LOCK, lockValue, tcpChecks, writeProject } from '../e2e/apply-fixtures.js';

// The apply lock as the commands see it (apply, destroy, unlock, plan, import, validate), in
// process against one service; each test in an account of its own, all at once. The cases where
// the process is the point (two CLI processes racing, kill -9, SIGINT/SIGTERM) are in
// test/e2e/apply-lock.test.ts; the lock engine itself in apply-lock-engine.test.ts.
const accounts = serviceAccounts('lock', 4);
let service: Served;
beforeAll(async () => {
  service = await startServeIn(['--no-runs', ...accounts.args]);
});
afterAll(async () => {
  await service?.stop();
});

describe.concurrent('one apply at a time', () => {
  it('takes over a lock whose holder is a dead pid of this host, or whose lease expired; refuses a live one', async () => {
    const served = accounts.next(service);
    const dir = writeProject({ 'mac.config.yaml': config('solo'), 'checks.yaml': tcpChecks(3) });
    const key = LOCK('solo');
    const dead = deadPid();
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: hostname(), pid: dead }) });
    const r = await mac(served, ['apply', dir, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`took over the apply lock of project "solo" from ci@${hostname()} pid ${dead}`);
    expect(r.stderr).toContain(`its holder (pid ${dead} on ${hostname()}) is no longer running`);
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);

    // A live process of this host holds it: refused, and unlock will not remove it without
    // --force. (Not this test's own process: in process, that is the apply's own pid, which
    // marks an earlier run of the same pid and is taken over.)
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: hostname(), pid: other.pid! }) });
      const live = await mac(served, ['apply', dir, '--yes']);
      expect(live.code).toBe(1);
      expect(live.stderr).toContain(`held by ci@${hostname()} pid ${other.pid}`);
      expect((await mac(served, ['unlock', dir])).code).toBe(1);
      expect((await mac(served, ['unlock', dir, '--force'])).code).toBe(0);
    } finally {
      other.kill('SIGKILL');
    }

    // Another host's lock whose lease ended is taken over too.
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: 'gone.example', pid: 7, expires: '2026-01-01T00:00:00.000Z' }) });
    const expired = await mac(served, ['apply', dir, '--yes']);
    expect(expired.code, expired.stderr).toBe(0);
    expect(expired.stderr).toContain('its lease expired at 2026-01-01T00:00:00.000Z');
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);
  }, 120_000);

  it('mac destroy takes the lock too: it refuses while another holder has it, naming it, and deletes nothing; then destroys under it', async () => {
    const served = accounts.next(service);
    const dir = writeProject({ 'mac.config.yaml': config('razed'), 'checks.yaml': tcpChecks(3), 'vars.yaml': 'kind: EnvironmentVariable\nkey: RAZED_URL\nvalue: https://razed.example\n' });
    const applied = await mac(served, ['apply', dir, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    const key = LOCK('razed');
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ user: 'ops', host: 'deploy-3.example', pid: 4242, started: '2026-02-03T04:05:06.000Z' }) });

    const refused = await mac(served, ['destroy', dir, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('held by ops@deploy-3.example pid 4242 since 2026-02-03T04:05:06.000Z (mac apply)');
    expect([...(await checksByTag(served, 'razed')).values()]).toEqual([1, 1, 1]);
    expect((await callApi(served, 'GET', '/v1/variables/RAZED_URL')).status).toBe(200);
    // --lock-timeout has apply's bounds.
    const tooLong = await mac(served, ['destroy', dir, '--yes', '--lock-timeout', '86401']);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain('--lock-timeout must be a whole number from 0 to 86400, got "86401"');
    expect(tooLong.stderr).toContain('run "mac destroy --help" for usage');
    // It waits no longer than --lock-timeout, then refuses the same way.
    const waited = await mac(served, ['destroy', dir, '--yes', '--lock-timeout', '1']);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain('held by ops@deploy-3.example pid 4242');
    expect(await checksByTag(served, 'razed')).toHaveProperty('size', 3);

    // Once the holder is gone, destroy takes the lock, deletes everything and releases the lock.
    expect((await mac(served, ['unlock', dir])).code).toBe(0);
    const destroyed = await mac(served, ['destroy', dir, '--yes']);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect((await checksByTag(served, 'razed')).size).toBe(0);
    expect((await callApi(served, 'GET', '/v1/variables/RAZED_URL')).status).toBe(404);
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);
  }, 120_000);

  it('mac plan and mac import never take the lock nor show it; a saved plan is not made stale by it', async () => {
    const served = accounts.next(service);
    const dir = writeProject({
      'mac.config.yaml': config('seen'),
      'vars.yaml': 'kind: EnvironmentVariable\nkey: API_URL\nvalue: https://api.example.com\n',
      'checks.yaml': tcpChecks(2),
    });
    const key = LOCK('seen');
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: 'build-7.example', pid: 99 }) });

    const plan = await mac(served, ['plan', dir, '--format', 'json', '--out', join(dir, 'plan.json')]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('MAC_LOCK');
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 3, update: 0, delete: 0 });
    const text = await mac(served, ['plan', dir, '--prune']);
    expect(text.code).toBe(0);
    expect(text.stdout + text.stderr).not.toContain('MAC_LOCK');
    // Planning left the lock as it was.
    expect(JSON.parse((await apiOk(served, 'GET', `/v1/variables/${key}`)).value)).toMatchObject({ host: 'build-7.example', pid: 99 });

    const out = mkdtempSync(join(tmpdir(), 'mac-lock-import-'));
    const imported = await mac(served, ['import', '--out', out, '--project', 'copy']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout + imported.stderr).not.toContain('MAC_LOCK');
    expect(spawnSync('grep', ['-rl', 'MAC_LOCK', out], { encoding: 'utf8' }).stdout).toBe('');

    // The saved plan applies once the holder is gone, and the lock it takes does not make it stale.
    await apiOk(served, 'DELETE', `/v1/variables/${key}`);
    const applied = await mac(served, ['apply', join(dir, 'plan.json')]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('applied 3, failed 0');
    expect((await mac(served, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);

    // A plan file that names the lock variable (edited by hand) is refused before any write.
    const forged = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    forged.changes = [{ ...forged.changes.find((c: { kind: string }) => c.kind === 'EnvironmentVariable'), id: key, desired: { key, value: 'x' } }];
    // Its summary counts its one change, so the refusal is the lock's, not the summary's.
    forged.summary = { create: 0, update: 0, delete: 0, noop: 0, orphaned: 0, [forged.changes[0].action]: 1 };
    writeFileSync(join(dir, 'forged.json'), JSON.stringify(forged));
    const refused = await mac(served, ['apply', join(dir, 'forged.json')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the plan touches mac's own variable ${key} (apply lock or ownership record)`);
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);
  }, 120_000);

  it('refuses a definition of a lock variable (the key prefix is reserved)', async () => {
    const dir = writeProject({ 'mac.config.yaml': config('res'), 'vars.yaml': 'kind: EnvironmentVariable\nkey: MAC_LOCK_OTHER\nvalue: x\n' });
    const r = await runMacIn(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/vars\.yaml:2:\d+.*variable keys starting with "MAC_LOCK_" or "MAC_OWNED_" are reserved/);
  });
});
