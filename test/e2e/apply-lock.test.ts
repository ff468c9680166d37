import { ownedVariableKey } from '../../src/schema/lock-key.js';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccounts } from '../helpers/accounts.js';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { macIn } from '../helpers/mac-inprocess.js';
import { apiOk, callApi, startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, listAllOf, LOCK, mac, tcpChecks, writeProject } from './apply-fixtures.js';

// The apply lock where the process is the point: two CLI processes racing for it, an apply
// killed (kill -9) while it holds it, an apply stopped by SIGINT/SIGTERM. One service (each write
// answered after 100 ms, so that an apply holds the lock for seconds) with an account per test;
// the tests run at once. The commands that only read or repair what those processes left (the
// plan, unlock, the re-run apply) run in process (macIn), as does what the commands print and
// refuse about the lock: test/integration/apply-lock.test.ts.
const accounts = serviceAccounts('lock', 5);
let service: Served;
beforeAll(async () => {
  service = await startServe(['--no-runs', '--latency', '100', ...accounts.args]);
});
afterAll(async () => {
  await service?.stop();
});

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

describe.concurrent('one apply at a time', () => {
  it('two applies started together: one applies, the other refuses at once naming the holder; one copy of everything', async () => {
    const served = accounts.next(service);
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
    expect((await macIn(served, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('with --lock-timeout both apply, one after the other, and still one copy of everything', async () => {
    const served = accounts.next(service);
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
    const served = accounts.next(service);
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

    const refused = await macIn(served, ['apply', dir, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`held by ci@build-7.example pid ${child.pid} since ${record.started} (mac apply)`);
    const before = await checksByTag(served, 'far');

    const unlock = await macIn(served, ['unlock', dir]);
    expect(unlock.code, unlock.stderr).toBe(0);
    expect(unlock.stdout).toContain(`removed the apply lock of project "far", held by ci@build-7.example pid ${child.pid} since ${record.started} (mac apply)`);
    expect((await callApi(served, 'GET', `/v1/variables/${LOCK('far')}`)).status).toBe(404);
    // The refused apply wrote nothing; once unlocked, apply converges.
    expect(await checksByTag(served, 'far')).toEqual(before);
    const again = await macIn(served, ['unlock', dir]);
    expect(again.stdout).toContain('no apply lock is held for project "far"');
    const rerun = await macIn(served, ['apply', dir, '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect([...(await checksByTag(served, 'far')).values()]).toEqual(Array(30).fill(1));
  }, 180_000);

  it.each(['SIGINT', 'SIGTERM'] as const)('an apply stopped by %s releases its lock and writes nothing more', async (signal) => {
    const served = accounts.next(service);
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
    const rerun = await macIn(served, ['apply', dir, '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect([...(await checksByTag(served, 'stop')).values()]).toEqual(Array(40).fill(1));
  }, 180_000);
});
