import { ownedVariableKey } from '../../src/schema/lock-key.js';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, MAC_BIN, runMac } from '../helpers/cli.js';
import { apiOk, callApi, startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, listAllOf, mac, tcpChecks, writeProject } from './apply-fixtures.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

const LOCK = (project: string) => `MAC_LOCK_${project.toUpperCase().replace(/-/g, '_')}`;

/** ~40 checks, two snippets and two alert channels the checks use. */
function bigProject(project: string): Record<string, string> {
  return {
    'mac.config.yaml': config(project),
    'shared.yaml': [
      'kind: Snippet\nid: setup-a\nname: Setup A\nscript: "console.log(1)"\n',
      'kind: Snippet\nid: setup-b\nname: Setup B\nscript: "console.log(2)"\n',
      'kind: AlertChannel\nid: oncall\ntype: EMAIL\nconfig: { address: oncall@example.com }\n',
      'kind: AlertChannel\nid: ops\ntype: EMAIL\nconfig: { address: ops@example.com }\n',
      'kind: EnvironmentVariable\nkey: API_URL\nvalue: https://api.example.com\n',
    ].join('---\n'),
    'checks.yaml': tcpChecks(36, 'alertChannels: [oncall, ops]\n'),
    'dns.yaml': Array.from({ length: 4 }, (_, i) => `kind: DnsCheck\nid: d${i}\nname: DNS ${i}\nrequest: { query: d${i}.example.com, recordType: A }\nsetupSnippet: setup-a\n`).join('---\n'),
  };
}

/** Every resource of bigProject exists exactly once, and no lock is left. */
async function expectOneCopyEach(s: Served, project: string): Promise<void> {
  const checks = await checksByTag(s, project);
  expect([...checks].filter(([, n]) => n > 1)).toEqual([]);
  expect(checks.size).toBe(40);
  const snippets = await listAllOf<{ name: string }>(s, '/v1/snippets');
  expect(snippets.map((x) => x.name).sort()).toEqual(['Setup A', 'Setup B']);
  const channels = await listAllOf<{ config: { address: string } }>(s, '/v1/alert-channels');
  expect(channels.map((c) => c.config.address).sort()).toEqual(['oncall@example.com', 'ops@example.com']);
  const variables = await listAllOf<{ key: string }>(s, '/v1/variables');
  // The project's variable, and its ownership record (one, however many applies raced).
  expect(variables.map((v) => v.key).sort()).toEqual(['API_URL', ownedVariableKey(project)]);
}

/** A lock record as mac writes it. */
function lockValue(fields: { user?: string; host: string; pid: number; expires?: string; started?: string; command?: string }): string {
  return JSON.stringify({
    v: 1,
    user: fields.user ?? 'ci',
    host: fields.host,
    pid: fields.pid,
    command: fields.command ?? 'mac apply',
    token: 'hand-made',
    started: fields.started ?? '2026-01-02T03:04:05.000Z',
    expires: fields.expires ?? new Date(Date.now() + 3_600_000).toISOString(),
  });
}

/** The pid of a process that has ended (and so is provably gone on this host). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

describe('one apply at a time', () => {
  it('two applies started together: one applies, the other refuses at once naming the holder; one copy of everything', async () => {
    served = await startServe(['--no-runs', '--latency', '100']);
    const dir = writeProject(bigProject('twin'));
    // --concurrency 1 keeps the first apply busy for seconds (45 creates at 100 ms), far longer than the two processes start apart.
    const args = ['apply', dir, '--yes', '--concurrency', '1'];
    const [a, b] = await Promise.all([mac(served, args, { timeoutMs: 120_000 }), mac(served, args, { timeoutMs: 120_000 })]);
    const codes = [a.code, b.code].sort();
    expect(codes, a.stderr + b.stderr).toEqual([0, 1]);
    const refused = a.code === 1 ? a : b;
    expect(refused.stderr).toMatch(/the apply lock of project "twin" is held by \S+@\S+ pid \d+ since \S+ \(mac apply\)/);
    expect(refused.stderr).toContain('nothing was written');
    expect(refused.stderr).toContain('--lock-timeout');
    await expectOneCopyEach(served, 'twin');
    expect((await mac(served, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('with --lock-timeout both apply, one after the other, and still one copy of everything', async () => {
    served = await startServe(['--no-runs', '--latency', '100']);
    const dir = writeProject(bigProject('twin'));
    const args = ['apply', dir, '--yes', '--concurrency', '2', '--lock-timeout', '60'];
    const [a, b] = await Promise.all([mac(served, args, { timeoutMs: 150_000 }), mac(served, args, { timeoutMs: 150_000 })]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    // The second waited, then planned from what the first wrote: nothing left to do.
    const waited = /waiting up to/.test(a.stderr) ? a : b;
    expect(waited.stderr).toMatch(/waiting up to \d+ s for the apply lock of project "twin", held by \S+@\S+ pid \d+/);
    expect(waited.stdout).toMatch(/applied 0, failed 0, skipped 0, unchanged 45/);
    await expectOneCopyEach(served, 'twin');
  }, 180_000);

  it('mac unlock removes the lock of an apply killed on another host, naming it; apply then runs', async () => {
    served = await startServe(['--no-runs', '--latency', '100']);
    const dir = writeProject({ 'mac.config.yaml': config('far'), 'checks.yaml': tcpChecks(30) });
    // An apply that is SIGKILLed while it holds the lock (it cannot release it)...
    const child = spawn(process.execPath, [MAC_BIN, 'apply', dir, '--yes', '--concurrency', '1'], { env: cleanEnv(connectionEnv(served)), stdio: 'ignore' });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let held: { value: string } | undefined;
    while (held === undefined && child.exitCode === null) {
      const r = await callApi(served, 'GET', `/v1/variables/${LOCK('far')}`);
      if (r.status === 200) held = r.body;
      else await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await exited;
    expect(held, 'the apply never held the lock').toBeDefined();
    // ...on another machine: its pid means nothing here, and its lease has not expired.
    const record = JSON.parse(held!.value);
    expect(record).toMatchObject({ v: 1, pid: child.pid, host: hostname(), command: 'mac apply' });
    await apiOk(served, 'PUT', `/v1/variables/${LOCK('far')}`, { value: JSON.stringify({ ...record, user: 'ci', host: 'build-7.example' }) });

    const refused = await mac(served, ['apply', dir, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`held by ci@build-7.example pid ${child.pid} since ${record.started} (mac apply)`);
    const before = await checksByTag(served, 'far');

    const unlock = await mac(served, ['unlock', dir]);
    expect(unlock.code, unlock.stderr).toBe(0);
    expect(unlock.stdout).toContain(`removed the apply lock of project "far", held by ci@build-7.example pid ${child.pid} since ${record.started} (mac apply)`);
    expect((await callApi(served, 'GET', `/v1/variables/${LOCK('far')}`)).status).toBe(404);
    // The refused apply wrote nothing; once unlocked, apply converges.
    expect(await checksByTag(served, 'far')).toEqual(before);
    const again = await mac(served, ['unlock', dir]);
    expect(again.stdout).toContain('no apply lock is held for project "far"');
    const rerun = await mac(served, ['apply', dir, '--yes'], { timeoutMs: 120_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect([...(await checksByTag(served, 'far')).values()]).toEqual(Array(30).fill(1));
  }, 180_000);

  it.each(['SIGINT', 'SIGTERM'] as const)('an apply stopped by %s releases its lock and writes nothing more', async (signal) => {
    served = await startServe(['--no-runs', '--latency', '100']);
    const dir = writeProject({ 'mac.config.yaml': config('stop'), 'checks.yaml': tcpChecks(40) });
    const child = spawn(process.execPath, [MAC_BIN, 'apply', dir, '--yes', '--concurrency', '1'], { env: cleanEnv(connectionEnv(served)), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // Stop it once it has written a few checks (it holds the lock then).
    while ([...(await checksByTag(served, 'stop')).values()].length < 3 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    child.kill(signal);
    expect(await exited).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(stderr).toContain(`${signal}: no further writes; releasing the apply lock`);
    expect((await callApi(served, 'GET', `/v1/variables/${LOCK('stop')}`)).status).toBe(404);
    const written = (await checksByTag(served, 'stop')).size;
    expect(written).toBeLessThan(40);
    await new Promise((r) => setTimeout(r, 500));
    expect((await checksByTag(served, 'stop')).size).toBe(written);
    const rerun = await mac(served, ['apply', dir, '--yes'], { timeoutMs: 120_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect([...(await checksByTag(served, 'stop')).values()]).toEqual(Array(40).fill(1));
  }, 120_000);

  it('takes over a lock whose holder is a dead pid of this host, or whose lease expired; refuses a live one', async () => {
    served = await startServe(['--no-runs']);
    const dir = writeProject({ 'mac.config.yaml': config('solo'), 'checks.yaml': tcpChecks(3) });
    const key = LOCK('solo');
    const dead = deadPid();
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: hostname(), pid: dead }) });
    const r = await mac(served, ['apply', dir, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`took over the apply lock of project "solo" from ci@${hostname()} pid ${dead}`);
    expect(r.stderr).toContain(`its holder (pid ${dead} on ${hostname()}) is no longer running`);
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);

    // A live process of this host (this test) holds it: refused, and unlock will not remove it without --force.
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: hostname(), pid: process.pid }) });
    const live = await mac(served, ['apply', dir, '--yes']);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain(`held by ci@${hostname()} pid ${process.pid}`);
    expect((await mac(served, ['unlock', dir])).code).toBe(1);
    expect((await mac(served, ['unlock', dir, '--force'])).code).toBe(0);

    // Another host's lock whose lease ended is taken over too.
    await apiOk(served, 'POST', '/v1/variables', { key, value: lockValue({ host: 'gone.example', pid: 7, expires: '2026-01-01T00:00:00.000Z' }) });
    const expired = await mac(served, ['apply', dir, '--yes']);
    expect(expired.code, expired.stderr).toBe(0);
    expect(expired.stderr).toContain('its lease expired at 2026-01-01T00:00:00.000Z');
    expect((await callApi(served, 'GET', `/v1/variables/${key}`)).status).toBe(404);
  }, 120_000);

  it('mac destroy takes the lock too: it refuses while another holder has it, naming it, and deletes nothing; then destroys under it', async () => {
    served = await startServe(['--no-runs']);
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
    served = await startServe(['--no-runs']);
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
    const r = await runMac(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/vars\.yaml:2:\d+.*variable keys starting with "MAC_LOCK_" or "MAC_OWNED_" are reserved/);
  });
});
