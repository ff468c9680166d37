import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import { apiOk, type Served } from '../helpers/serve.js';

// Values that must never appear in a written file or in any output: the secret variable's value
// (unreadable through the API), a secret check variable, and readable credentials.
const SECRETS = {
  API_TOKEN: 'tok-SECRET-9f3a61',
  LOGIN_FLOW_PASSWORD: 'pw-SECRET-77c2',
  WEBHOOK_OPS_HOOK_WEBHOOK_SECRET: 'whsec-SECRET-42aa',
  WEBHOOK_OPS_HOOK_AUTHORIZATION: 'Bearer SECRET-hdr-5d',
  DB_PASSWORD: 'hunter2-SECRET-locked',
};

let served: Served;
let work: string;
const outputs: RunResult[] = [];

const api = (method: string, path: string, body?: unknown): Promise<any> => apiOk(served, method, path, body);

async function mac(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const r = await runMacIn(args, { cwd: work, env: { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey, ...env } });
  outputs.push(r);
  return r;
}

/** Every file under dir, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** An account with every kind and each field shape: references, subscriptions, secrets, name collisions. */
async function populate(): Promise<void> {
  const email = await api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@shop.example' } });
  const hook = await api('POST', '/v1/alert-channels', {
    type: 'WEBHOOK',
    sendDegraded: true,
    config: {
      name: 'ops hook',
      url: 'https://hooks.shop.example/ops',
      webhookSecret: SECRETS.WEBHOOK_OPS_HOOK_WEBHOOK_SECRET,
      headers: [
        { key: 'Authorization', value: SECRETS.WEBHOOK_OPS_HOOK_AUTHORIZATION, locked: true },
        { key: 'X-Team', value: 'shop', locked: false },
      ],
    },
  });
  await api('POST', '/v1/alert-channels', { type: 'SMS', config: { number: '+15550100', name: 'Night shift' } });
  const setup = await api('POST', '/v1/snippets', { name: 'DNS setup', script: 'export const setup = () => 1;\n' });
  const teardown = await api('POST', '/v1/snippets', { name: 'DNS teardown', script: 'export const teardown = () => 0;' });
  await api('POST', '/v1/variables', { key: 'API_TOKEN', value: SECRETS.API_TOKEN, secret: true });
  await api('POST', '/v1/variables', { key: 'DB_PASSWORD', value: SECRETS.DB_PASSWORD, locked: true });
  await api('POST', '/v1/variables', { key: 'BASE_URL', value: 'https://shop.example' });
  const noAuto = '?autoAssignAlerts=false';
  // Two checks with the same name: ids are suffixed in creation order.
  await api('POST', `/v1/checks/tcp${noAuto}`, {
    name: 'Primary DB',
    request: { hostname: 'db-1.shop.internal', port: 5432, data: 'PING', assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }] },
    tags: ['team-shop', 'db'],
    locations: ['eu-west-1', 'eu-central-1'],
    frequency: 0,
    frequencyOffset: 30,
    alertChannelSubscriptions: [
      { alertChannelId: email.id, activated: true },
      { alertChannelId: hook.id, activated: false },
    ],
    alertSettings: { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 10 }, reminders: { amount: 2, interval: 10 } },
    retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 30, maxRetries: 3 },
  });
  await api('POST', `/v1/checks/tcp${noAuto}`, { name: 'Primary DB', request: { hostname: 'db-2.shop.internal', port: 5432 }, muted: true });
  // Managed by another project: never imported.
  await api('POST', `/v1/checks/tcp${noAuto}`, { name: 'Billing DB', request: { hostname: 'billing', port: 5432 }, tags: ['mac:billing/db'] });
  await api('POST', `/v1/checks/dns${noAuto}`, {
    name: 'Shop DNS',
    request: { query: 'shop.example', recordType: 'A', nameServer: '1.1.1.1', assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' }] },
    heartbeat: {},
    script: 'console.log("dns");\n',
    setupSnippetId: setup.id,
    tearDownSnippetId: teardown.id,
    alertChannelSubscriptions: [{ alertChannelId: hook.id, activated: true }],
  });
  await api('POST', `/v1/checks/dns${noAuto}`, {
    name: 'Mail DNS',
    request: { query: 'shop.example', recordType: 'MX' },
    heartbeat: {},
    script: '',
    degradedResponseTime: 800,
  });
  await api('POST', `/v1/checks/multistep${noAuto}`, {
    name: 'Login flow',
    script: 'const res = await fetch(process.env.BASE_URL);\nif (!res.ok) throw new Error("down");\n',
    frequency: 15,
    environmentVariables: [
      { key: 'USER', value: 'monitor' },
      { key: 'PASSWORD', value: SECRETS.LOGIN_FLOW_PASSWORD, secret: true },
    ],
  });
  await api('POST', `/v1/checks/heartbeat${noAuto}`, {
    name: 'Nightly backup',
    heartbeat: { period: 1, periodUnit: 'days', grace: 2, graceUnit: 'hours' },
    tags: ['jobs'],
  });
  await api('POST', '/v1/dashboards', { header: 'Shop status', customUrl: 'shop-status', tags: ['team-shop'], refreshRate: 300 });
  await api('POST', '/v1/dashboards', { header: 'Internal', customUrl: 'shop-internal', width: '960PX', showP99: false });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mac-import-'));
  served = await startServeIn(['--no-runs', '--rate-limit', '0/60']);
  await populate();
});

afterAll(async () => {
  await served?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('mac import of a whole account', () => {
  const dir = 'shop';
  const env = { ...SECRETS };
  let files: string[];

  it('writes every kind, proves the round trip and names the environment to set', async () => {
    const r = await mac(['import', '--out', dir, '--project', 'shop']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Imported 16 resources');
    expect(r.stdout).toContain('Round trip: the written definitions match the account. 6 checks will be adopted');
    for (const name of Object.keys(SECRETS)) expect(r.stdout).toContain(name);
    expect(r.stdout).toMatch(/Secret values not compared \(the API does not return them\): API_TOKEN, LOGIN_FLOW_PASSWORD/);
    expect(r.stderr).toContain('TcpCheck "Billing DB"');
    expect(r.stderr).toContain('managed by project "billing"');

    files = await filesUnder(join(work, dir));
    expect(files).toEqual(
      expect.arrayContaining([
        'mac.config.yaml',
        'variables.yaml',
        'snippets.yaml',
        'snippets/dns-setup.js',
        'snippets/dns-teardown.js',
        'alert-channels.yaml',
        'checks/tcp.yaml',
        'checks/dns.yaml',
        'checks/dns/shop-dns.js',
        'checks/multistep.yaml',
        'checks/multistep/login-flow.js',
        'checks/heartbeat.yaml',
        'dashboards.yaml',
        'schemas/tcp-check.schema.json',
      ]),
    );
  });

  it('writes readable definitions: ids from names, references by logical id, defaults left out', async () => {
    const read = async (f: string) => parseAllDocuments(await readFile(join(work, dir, f), 'utf8')).map((d) => d.toJS());
    const tcp = await read('checks/tcp.yaml');
    expect(tcp.map((d) => d.id)).toEqual(['primary-db', 'primary-db-2']);
    expect(tcp[0]).toMatchObject({
      kind: 'TcpCheck',
      name: 'Primary DB',
      alertChannels: ['email-oncall-shop-example'],
      alertChannelSubscriptions: [{ alertChannelId: expect.any(Number), activated: false }],
      frequency: 0,
      frequencyOffset: 30,
      retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 30, maxRetries: 3 },
    });
    expect(tcp[0].adopt).toMatch(/^[0-9a-f-]{36}$/);
    expect(tcp[1]).toEqual({ kind: 'TcpCheck', id: 'primary-db-2', adopt: tcp[1].adopt, name: 'Primary DB', muted: true, request: { hostname: 'db-2.shop.internal', port: 5432 } });

    const dns = await read('checks/dns.yaml');
    expect(dns[0]).toMatchObject({ id: 'shop-dns', setupSnippet: 'dns-setup', tearDownSnippet: 'dns-teardown', scriptFile: './dns/shop-dns.js', alertChannels: ['webhook-ops-hook'] });
    expect(dns[1]).not.toHaveProperty('script');
    expect(await readFile(join(work, dir, 'checks/dns/shop-dns.js'), 'utf8')).toBe('console.log("dns");\n');

    const channels = await read('alert-channels.yaml');
    const hook = channels.find((c) => c.type === 'WEBHOOK');
    expect(hook.config.webhookSecret).toBe('${{ env.WEBHOOK_OPS_HOOK_WEBHOOK_SECRET }}');
    expect(hook.config.headers[0].value).toBe('${{ env.WEBHOOK_OPS_HOOK_AUTHORIZATION }}');

    // Every placeholder's variable is declared under env:, or the definitions could not read it.
    const [cfg] = await read('mac.config.yaml');
    expect([...cfg.env].sort()).toEqual(Object.keys(SECRETS).sort());

    const variables = await read('variables.yaml');
    expect(variables.map((v) => [v.key, v.value])).toEqual([
      ['API_TOKEN', '${{ env.API_TOKEN }}'],
      ['DB_PASSWORD', '${{ env.DB_PASSWORD }}'],
      ['BASE_URL', 'https://shop.example'],
    ]);
    const text = await readFile(join(work, dir, 'checks/tcp.yaml'), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../schemas/tcp-check.schema.json');
    expect(text.match(/^---$/gm)).toHaveLength(1);
  });

  it('validates', async () => {
    const r = await mac(['validate', dir], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('plans only the ownership-tag adoptions', async () => {
    const r = await mac(['plan', dir, '--format', 'json'], env);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    const changed = plan.changes.filter((c: { action: string }) => c.action !== 'noop');
    expect(plan.summary).toMatchObject({ create: 0, update: 6, delete: 0 });
    for (const c of changed) {
      expect(c.action).toBe('update');
      expect(c.kind).toMatch(/Check$/);
      expect(c.patch.every((op: { path: string }) => op.path.startsWith('/tags'))).toBe(true);
      expect(c.desired.tags).toContain(`mac:shop/${c.id}`);
    }
    expect(plan.warnings).toEqual([]);
  });

  it('applies, and a plan afterwards has no change', async () => {
    const apply = await mac(['apply', dir, '--yes'], env);
    expect(apply.code).toBe(0);
    const plan = await mac(['plan', dir, '--detailed-exitcode'], env);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('adds nothing on a re-import and touches no file', async () => {
    const before = await Promise.all(files.map(async (f) => [f, await readFile(join(work, dir, f), 'utf8')]));
    const r = await mac(['import', '--out', dir], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Nothing to import');
    expect(await filesUnder(join(work, dir))).toEqual(files);
    const after = await Promise.all(files.map(async (f) => [f, await readFile(join(work, dir, f), 'utf8')]));
    expect(after).toEqual(before);
  });

  it('writes no secret value anywhere: not in a file, not in any output', async () => {
    for (const f of await filesUnder(work)) {
      const text = await readFile(join(work, f), 'utf8');
      for (const value of Object.values(SECRETS)) expect(text, f).not.toContain(value);
    }
    expect(outputs.length).toBe(6);
    for (const o of outputs) for (const value of Object.values(SECRETS)) expect(o.stdout + o.stderr).not.toContain(value);
  });
});
