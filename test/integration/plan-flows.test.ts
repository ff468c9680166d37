import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Plan } from '../../src/plan/types.js';
import type { RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { createAsEngine, writeProject } from '../e2e/plan-helpers.js';

let served: Served;
let client: ApiClient;

const run = (dir: string, args: string[]): Promise<RunResult> => runMacIn(args, { env: { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey }, cwd: dir });
const planJson = async (dir: string, extra: string[] = []) => {
  const r = await run(dir, ['plan', '.', '--format', 'json', '--detailed-exitcode', ...extra]);
  return { r, plan: JSON.parse(r.stdout) as Plan };
};
const checkByTag = async (tag: string) =>
  (await client.get<Array<Record<string, unknown>>>('/v1/checks', { limit: 100 })).find((c) => (c.tags as string[]).includes(tag))!;

beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
  client = new ApiClient({ apiUrl: served.url, apiKey: served.apiKey });
});

afterAll(async () => {
  await client?.close();
  await served?.stop();
});

describe('minimal definitions', () => {
  it('every kind and alert-channel type with only its required fields: created as the engine would, the plan has no change', async () => {
    const channels = [
      'EMAIL\nconfig: { address: min@example.com }',
      'SLACK\nconfig: { url: "https://hooks.slack.example/min" }',
      'WEBHOOK\nconfig: { name: Min hook, url: "https://hooks.example/min" }',
      'SMS\nconfig: { number: "+4915100000001", name: Min sms }',
      'CALL\nconfig: { number: "+4915100000002", name: Min call }',
      'PAGERDUTY\nconfig: { serviceKey: min-pd-key }',
      'OPSGENIE\nconfig: { apiKey: min-og-key }',
    ].map((c, i) => `kind: AlertChannel\nid: c${i}\ntype: ${c}\n`);
    const dir = await writeProject({
      'mac.config.yaml': 'project: minimal\n',
      'alerts.yaml': channels.join('---\n'),
      'resources.yaml': `kind: Snippet
id: s
name: Minimal snippet
script: "1"
---
kind: EnvironmentVariable
key: MINIMAL
value: v
---
kind: Dashboard
id: d
customUrl: minimal-dash
header: Minimal
`,
      'checks.yaml': `kind: TcpCheck
id: tcp
name: Minimal TCP
request: { hostname: min.example, port: 1 }
---
kind: DnsCheck
id: dns
name: Minimal DNS
request: { query: min.example, recordType: A }
---
kind: MultiStepCheck
id: ms
name: Minimal flow
script: "1"
---
kind: HeartbeatCheck
id: hb
name: Minimal heartbeat
heartbeat: { period: 1, periodUnit: hours, grace: 1, graceUnit: minutes }
---
kind: TcpCheck
id: partial
name: Partial objects
request: { hostname: min.example, port: 2, assertions: [{ source: RESPONSE_DATA, comparison: CONTAINS, target: x }] }
alertSettings: { escalationType: TIME_BASED }
retryStrategy: { type: SINGLE_RETRY }
`,
    });
    await createAsEngine(dir, client, {});
    const { r, plan } = await planJson(dir);
    expect(plan.changes.filter((c) => c.action !== 'noop').map((c) => ({ ref: `${c.kind}/${c.id}`, patch: c.patch }))).toEqual([]);
    expect(plan.summary.noop).toBe(15);
    expect(r.code).toBe(0);
  });
});

describe('fields the service keeps on a merging update', () => {
  it('a live frequencyOffset (and sslCheckDomain) that the definitions omit: plan exits 0, apply and plan stay converged', async () => {
    const dir = await writeProject({
      'mac.config.yaml': 'project: offsets\n',
      'checks.yaml': `kind: TcpCheck
id: db
name: Database
request: { hostname: db.internal.example, port: 5432 }
---
kind: DnsCheck
id: dns
name: Resolver
request: { query: example.com, recordType: A }
alertSettings: { escalationType: TIME_BASED }
`,
    });
    // Created through the API (as another tool or an older definition would have), with the
    // fields the definitions do not mention.
    await client.post('/v1/checks/tcp', { name: 'Database', tags: ['mac:offsets/db'], frequencyOffset: 30, request: { hostname: 'db.internal.example', port: 5432 } }, { autoAssignAlerts: false });
    await client.post(
      '/v1/checks/dns',
      { name: 'Resolver', tags: ['mac:offsets/dns'], heartbeat: {}, script: '', sslCheckDomain: 'example.com', alertSettings: { escalationType: 'TIME_BASED' }, request: { query: 'example.com', recordType: 'A' } },
      { autoAssignAlerts: false },
    );

    const first = await planJson(dir);
    expect(first.plan.changes.filter((c) => c.action !== 'noop').map((c) => c.patch)).toEqual([]);
    expect(first.r.code).toBe(0);
    const notes = first.plan.changes.flatMap((c) => c.notes ?? []);
    expect(notes.some((n) => n.startsWith('frequencyOffset: not set in the definition, so not managed'))).toBe(true);
    expect(notes.some((n) => n.startsWith('sslCheckDomain: not set in the definition, so not managed'))).toBe(true);

    // An update of another field goes through, and apply's convergence check finds nothing left.
    const file = join(dir, 'checks.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('name: Database', 'name: Primary database'));
    const applied = await run(dir, ['apply', '.', '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('no difference left');
    const second = await planJson(dir);
    expect(second.r.code).toBe(0);
    expect(await checkByTag('mac:offsets/db')).toMatchObject({ name: 'Primary database', frequencyOffset: 30 });

    // Setting it in the definition manages it again: one replace, applied, then converged.
    await writeFile(file, (await readFile(file, 'utf8')).replace('name: Primary database', 'name: Primary database\nfrequencyOffset: 5'));
    const third = await planJson(dir);
    expect(third.r.code).toBe(2);
    expect(third.plan.changes.find((c) => c.id === 'db')!.patch).toEqual([{ op: 'replace', path: '/frequencyOffset', value: 5, oldValue: 30 }]);
    expect((await run(dir, ['apply', '.', '--yes'])).code).toBe(0);
    expect((await planJson(dir)).r.code).toBe(0);
    expect(await checkByTag('mac:offsets/db')).toMatchObject({ frequencyOffset: 5 });
  });
});

describe('mac plan --changed-since / --only-changed-since', () => {
  it('--changed-since plans everything and lists the changed files first; --only-changed-since narrows and says what it left out', async () => {
    const dir = await writeProject({
      'mac.config.yaml': 'project: scoped\n',
      'checks/a.yaml': 'kind: TcpCheck\nid: a\nname: A\nrequest: { hostname: a.example, port: 1 }\n',
      'checks/b.yaml': 'kind: TcpCheck\nid: b\nname: B\nrequest: { hostname: b.example, port: 2 }\n',
      'vars.yaml': 'kind: EnvironmentVariable\nkey: REGION\nvalue: eu\n',
    });
    const git = simpleGit({ baseDir: dir });
    await git.init();
    await git.addConfig('user.email', 'ci@example.com').addConfig('user.name', 'CI').addConfig('commit.gpgsign', 'false');
    await git.add('.').commit('definitions');
    await git.branch(['base']);
    expect((await run(dir, ['apply', '.', '--yes'])).code).toBe(0);

    // Check a changes in the files (uncommitted), check b in the account only (drift).
    await writeFile(join(dir, 'checks/a.yaml'), 'kind: TcpCheck\nid: a\nname: A renamed\nrequest: { hostname: a.example, port: 1 }\n');
    await writeFile(join(dir, 'checks/b.yaml'), 'kind: TcpCheck\nid: b\nname: B renamed\nrequest: { hostname: b.example, port: 2 }\n');
    expect((await run(dir, ['apply', '.', '--yes'])).code).toBe(0);
    await git.checkout(['--', 'checks/b.yaml']);
    await writeFile(join(dir, 'checks/a.yaml'), 'kind: TcpCheck\nid: a\nname: A third\nrequest: { hostname: a.example, port: 1 }\n');

    const head = await planJson(dir, ['--changed-since', 'HEAD']);
    expect(head.r.code).toBe(2);
    expect(head.plan.changedSince).toEqual({ ref: 'HEAD', files: ['checks/a.yaml'] });
    expect(head.plan.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 1, orphaned: 0 });
    expect(head.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.action} ${c.kind}/${c.id} ${c.inChangedFiles ?? false}`)).toEqual([
      'update TcpCheck/a true',
      'update TcpCheck/b false',
    ]);
    const text = await run(dir, ['plan', '.', '--changed-since', 'HEAD']);
    const inFiles = text.stdout.indexOf('In the 1 file(s) changed since HEAD:');
    const also = text.stdout.indexOf('Also differs in the account (not in the files changed since HEAD):');
    expect(inFiles).toBeGreaterThan(0);
    expect(also).toBeGreaterThan(inFiles);
    expect(text.stdout.indexOf('~ update TcpCheck/a')).toBeGreaterThan(inFiles);
    expect(text.stdout.indexOf('~ update TcpCheck/a')).toBeLessThan(also);
    expect(text.stdout.indexOf('~ update TcpCheck/b')).toBeGreaterThan(also);
    const md = await run(dir, ['plan', '.', '--format', 'markdown', '--changed-since', 'HEAD']);
    expect(md.stdout).toContain('**Also differs in the account (not in the files changed since `HEAD`)** (1)');

    // The old narrowing, under its own name: it says so first and counts what it left out.
    const only = await planJson(dir, ['--only-changed-since', 'HEAD']);
    expect(only.plan.changedSince).toEqual({ ref: 'HEAD', files: ['checks/a.yaml'], only: true, leftOut: 1 });
    expect(only.plan.changes.map((c) => `${c.action} ${c.kind}/${c.id}`)).toEqual(['update TcpCheck/a']);
    const onlyText = await run(dir, ['plan', '.', '--only-changed-since', 'HEAD']);
    expect(onlyText.stdout.split('\n')[0]).toBe('Plan narrowed to files changed since HEAD: 1 other change left out.');
    expect(onlyText.stdout).not.toContain('TcpCheck/b');
    const onlyMd = await run(dir, ['plan', '.', '--format', 'markdown', '--only-changed-since', 'HEAD']);
    expect(onlyMd.stdout.split('\n')[0]).toBe('**Plan narrowed to files changed since `HEAD`: 1 other change left out.**');
    const both = await run(dir, ['plan', '.', '--changed-since', 'HEAD', '--only-changed-since', 'HEAD']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--changed-since and --only-changed-since exclude each other');

    // Committed on a branch: the same highlight against the branch it started from.
    await git.checkoutLocalBranch('rename-a');
    await git.add('.').commit('rename a');
    const branch = await planJson(dir, ['--changed-since', 'base']);
    expect(branch.plan.changedSince).toEqual({ ref: 'base', files: ['checks/a.yaml'] });
    expect(branch.plan.git).toMatchObject({ branch: 'rename-a' });
  });
});

describe('--rewrite-secrets', () => {
  it('pushes a rotated secret that a plain plan cannot see, never printing it', async () => {
    const journal = join(await mkdtemp(join(tmpdir(), 'mac-state-')), 'state.db');
    const own = await startServeIn(['--no-runs', '--rate-limit', '0/60', '--state', journal]);
    const outputs: string[] = [];
    const macWith = async (secret: string, args: string[]) => {
      const r = await runMacIn(args, { env: { MAC_API_URL: own.url, MAC_API_KEY: own.apiKey, ROTATED: secret }, cwd: dir });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const dir = await writeProject({
      'mac.config.yaml': 'project: rotate\nenv: [ROTATED]\n',
      'vars.yaml': 'kind: EnvironmentVariable\nkey: PAYMENT_KEY\nvalue: ${{ env.ROTATED }}\nsecret: true\n---\nkind: EnvironmentVariable\nkey: REGION\nvalue: eu\n',
    });
    try {
      expect((await macWith('old-secret-A1b2', ['apply', '.', '--yes'])).code).toBe(0);
      // The new value cannot be compared with the (unreadable) live one: a plain plan sees nothing.
      const plain = await macWith('new-secret-C3d4', ['plan', '.', '--detailed-exitcode']);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('--rewrite-secrets');

      const rewrite = await macWith('new-secret-C3d4', ['plan', '.', '--detailed-exitcode', '--rewrite-secrets']);
      expect(rewrite.code).toBe(2);
      expect(rewrite.stdout).toContain('~ update EnvironmentVariable/PAYMENT_KEY');
      expect(rewrite.stdout).toContain('~ value: (sensitive) -> (sensitive)');
      expect(rewrite.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');

      const applied = await macWith('new-secret-C3d4', ['apply', '.', '--yes', '--rewrite-secrets']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain('applied 1');
      // The service's database holds what it stored (the API never reads a secret back): the new value.
      const db = new Database(journal, { readonly: true });
      try {
        const row = db.prepare("SELECT data FROM records WHERE data LIKE '%PAYMENT_KEY%'").raw().get() as [string] | undefined;
        expect(row?.[0]).toContain('new-secret-C3d4');
      } finally {
        db.close();
      }
      expect((await macWith('new-secret-C3d4', ['plan', '.', '--detailed-exitcode'])).code).toBe(0);
      for (const out of outputs) {
        expect(out).not.toContain('old-secret-A1b2');
        expect(out).not.toContain('new-secret-C3d4');
      }
    } finally {
      await own.stop();
    }
  });
});
