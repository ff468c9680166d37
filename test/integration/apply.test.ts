import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOptions, RunResult } from '../helpers/cli.js';
import { serviceAccounts } from '../helpers/accounts.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { api, checksByTag, config, connectionEnv, listAllOf, shop, SHOP_SECRET as SECRET, shopEnv as env, tcpChecks, writeProject } from '../e2e/apply-fixtures.js';

// One service for the file; each test works in an account of its own (its own API key), so
// that what one test creates or deletes is not in another's account.
const accounts = serviceAccounts('apply', 12);
let service: Served;
/** The service as the next account's key sees it: a fresh, empty account. */
const freshAccount = (): Served => accounts.next(service);
beforeAll(async () => {
  service = await startServeIn(['--no-runs', ...accounts.args]);
});
afterAll(async () => {
  await service?.stop();
});

/** Runs `mac ...args` in process against a served API. */
const mac = (served: Served, args: string[], opts: RunOptions & { env?: Record<string, string> } = {}): Promise<RunResult> =>
  runMacIn(args, { ...opts, env: connectionEnv(served, opts.env) });

type Check = { id: string; name: string; frequency: number; tags: string[]; setupSnippetId?: number; alertChannelSubscriptions: Array<{ alertChannelId: number }> };

describe('mac apply DIR', () => {
  it('applies from empty in waves: ids of created snippets and channels reach the checks; the next plan is empty', async () => {
    const served = freshAccount();
    const dir = writeProject(shop);
    const r = await mac(served, ['apply', dir, '--yes'], { env });
    expect(r.stderr + r.stdout).not.toContain(SECRET);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Apply: applied 5, failed 0, skipped 0');
    expect(r.stdout).toContain('Convergence: 5 objects re-read, no difference left');

    const [snippet] = await listAllOf<{ id: number }>(served, '/v1/snippets');
    const [channel] = await listAllOf<{ id: number }>(served, '/v1/alert-channels');
    const checks = await listAllOf<Check>(served, '/v1/checks');
    const byTag = (t: string) => checks.find((c) => c.tags.includes(t))!;
    expect(byTag('mac:shop/dns').setupSnippetId).toBe(snippet.id);
    expect(byTag('mac:shop/db').alertChannelSubscriptions.map((s) => s.alertChannelId)).toEqual([channel.id]);
    const [variable] = await listAllOf<{ key: string; secret: boolean }>(served, '/v1/variables');
    expect(variable).toMatchObject({ key: 'STRIPE_KEY', secret: true });

    const plan = await mac(served, ['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('applies updates in place (a rename keeps the id) and converges', async () => {
    const served = freshAccount();
    const dir = writeProject(shop);
    expect((await mac(served, ['apply', dir, '--yes'], { env })).code).toBe(0);
    const before = (await listAllOf<Check>(served, '/v1/checks')).find((c) => c.tags.includes('mac:shop/db'))!;

    writeFileSync(join(dir, 'checks.yaml'), shop['checks.yaml'].replace('name: Primary database', 'name: Primary DB').replace('frequency: 1', 'frequency: 5'));
    const r = await mac(served, ['apply', dir, '--yes', '--format', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { outcomes: Array<{ key: string; action: string; status: string }>; convergence: { issues: unknown[] } };
    expect(result.outcomes).toEqual([expect.objectContaining({ key: 'TcpCheck/db', action: 'update', status: 'applied' })]);
    expect(result.convergence.issues).toEqual([]);
    const after = await api<Check>(served, 'GET', `/v1/checks/${before.id}`);
    expect(after).toMatchObject({ name: 'Primary DB', frequency: 5 });
  });

});

describe('mac apply PLANFILE', () => {
  it('applies exactly the saved plan, not later edits, with secrets taken from the environment', async () => {
    const served = freshAccount();
    const dir = writeProject(shop);
    const planFile = join(dir, 'plan.json');
    expect((await mac(served, ['plan', dir, '--out', planFile], { env })).code).toBe(0);
    expect(readFileSync(planFile, 'utf8')).not.toContain(SECRET);
    // An edit after planning is not part of the reviewed plan.
    writeFileSync(join(dir, 'checks.yaml'), shop['checks.yaml'].replace('frequency: 1', 'frequency: 30'));

    const r = await mac(served, ['apply', planFile], { env });
    expect(r.code, r.stderr).toBe(0);
    const db = (await listAllOf<Check>(served, '/v1/checks')).find((c) => c.tags.includes('mac:shop/db'))!;
    expect(db.frequency).toBe(1);
    const variable = await api<{ value: unknown }>(served, 'GET', '/v1/variables/STRIPE_KEY');
    expect(variable.value).toBeNull(); // secret: the service never reads it back, but the create carried it
  });

  it('recovers a secret from the planned directory, and refuses naming it when it cannot', async () => {
    const served = freshAccount();
    // A literal secret comes back from the planned directory without any environment.
    const literal = writeProject({ 'mac.config.yaml': config('lit'), 'v.yaml': 'kind: EnvironmentVariable\nkey: LITERAL\nvalue: in-the-file\nsecret: true\n' });
    const literalPlan = join(literal, 'plan.json');
    expect((await mac(served, ['plan', literal, '--out', literalPlan])).code).toBe(0);
    expect(readFileSync(literalPlan, 'utf8')).not.toContain('in-the-file');
    const ok = await mac(served, ['apply', literalPlan]);
    expect(ok.code, ok.stderr).toBe(0);

    // A secret from the environment, with neither the variable nor the directory left: refused.
    const dir = writeProject(shop);
    const planFile = join(writeProject({}), 'plan.json');
    expect((await mac(served, ['plan', dir, '--out', planFile], { env })).code).toBe(0);
    rmSync(dir, { recursive: true });
    const r = await mac(served, ['apply', planFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable SHOP_STRIPE_KEY not set; cannot recover masked value the plan left out: EnvironmentVariable/STRIPE_KEY /value (env SHOP_STRIPE_KEY); nothing was applied');
    // The literal variable and the project's ownership record; nothing of the failed apply.
    expect((await listAllOf<{ key: string }>(served, '/v1/variables')).map((v) => v.key).filter((k) => !k.startsWith('MAC_OWNED_'))).toEqual(['LITERAL']);
  });

  it('refuses a stale plan, naming each object that moved, and writes nothing', async () => {
    const served = freshAccount();
    const dir = writeProject(shop);
    expect((await mac(served, ['apply', dir, '--yes'], { env })).code).toBe(0);
    writeFileSync(join(dir, 'checks.yaml'), shop['checks.yaml'].replace('frequency: 1', 'frequency: 2').replace('DNS main', 'DNS primary'));
    const planFile = join(dir, 'plan.json');
    expect((await mac(served, ['plan', dir, '--out', planFile], { env })).code).toBe(0);

    const db = (await listAllOf<Check>(served, '/v1/checks')).find((c) => c.tags.includes('mac:shop/db'))!;
    await api(served, 'PUT', `/v1/checks/tcp/${db.id}?autoAssignAlerts=false`, { muted: true });
    const r = await mac(served, ['apply', planFile], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the plan is stale: 1 object moved since it was written');
    expect(r.stderr).toContain(`TcpCheck/db (id ${db.id}): changed since the plan`);
    const dns = (await listAllOf<Check>(served, '/v1/checks')).find((c) => c.tags.includes('mac:shop/dns'))!;
    expect(dns.name).toBe('DNS main');
  });

  it('rejects a plan of an unknown version', async () => {
    const served = freshAccount();
    const dir = writeProject(shop);
    const planFile = join(dir, 'plan.json');
    expect((await mac(served, ['plan', dir, '--out', planFile], { env })).code).toBe(0);
    writeFileSync(planFile, readFileSync(planFile, 'utf8').replace('"version": 1', '"version": 7'));
    const r = await mac(served, ['apply', planFile], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan version 7 is not supported (this mac reads version 1)');
  });
});

describe('deletes', () => {
  it('prunes checks no longer defined, deletes tombstoned resources, and never touches an untagged check', async () => {
    const served = freshAccount();
    const dir = writeProject({ 'mac.config.yaml': config('shop'), 'checks.yaml': tcpChecks(3), 'snippet.yaml': 'kind: Snippet\nid: s\nname: helper\nscript: "1"\n' });
    expect((await mac(served, ['apply', dir, '--yes'])).code).toBe(0);
    const outsider = await api<{ id: string }>(served, 'POST', '/v1/checks/tcp?autoAssignAlerts=false', {
      name: 'Check 2',
      request: { hostname: 'x.example', port: 1 },
    });

    writeFileSync(join(dir, 'checks.yaml'), tcpChecks(2));
    writeFileSync(join(dir, 'snippet.yaml'), 'kind: Snippet\nid: s\nname: helper\nscript: "1"\nstate: absent\n');
    const r = await mac(served, ['apply', dir, '--yes', '--prune']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/applied {2}delete {2}TcpCheck\/c2/);
    expect(r.stdout).toMatch(/applied {2}delete {2}Snippet\/s/);
    expect([...(await checksByTag(served, 'shop')).keys()].sort()).toEqual(['mac:shop/c0', 'mac:shop/c1']);
    expect(await listAllOf(served, '/v1/snippets')).toEqual([]);
    expect((await api<{ id: string }>(served, 'GET', `/v1/checks/${outsider.id}`)).id).toBe(outsider.id);
  });

  it('refuses more deletes than --max-deletes, and a plan that would delete everything, before asking', async () => {
    const served = freshAccount();
    const dir = writeProject({ 'mac.config.yaml': config('shop'), 'checks.yaml': tcpChecks(4) });
    expect((await mac(served, ['apply', dir, '--yes'])).code).toBe(0);

    writeFileSync(join(dir, 'checks.yaml'), tcpChecks(1));
    const tooMany = await mac(served, ['apply', dir, '--yes', '--prune', '--max-deletes', '2']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('the plan deletes 3 resources, more than --max-deletes 2: TcpCheck/');
    expect(tooMany.stderr).toContain('run again with --max-deletes 3');

    rmSync(join(dir, 'checks.yaml'));
    writeFileSync(join(dir, 'other.yaml'), 'kind: Snippet\nid: s\nname: n\nscript: "1"\n');
    const all = await mac(served, ['apply', dir, '--yes', '--prune']);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain('the plan deletes every resource project "shop" manages');
    expect((await checksByTag(served, 'shop')).size).toBe(4);
    expect(await listAllOf(served, '/v1/snippets')).toEqual([]);
  });
});

describe('partial failure', () => {
  it('applies independent changes, skips the dependents of a rejected one, exits 1, and a fixed re-run converges', async () => {
    const served = freshAccount();
    // The service refuses bodies over 1 MiB (413): the snippet fails, the DNS check that needs it is skipped.
    // The script itself stays under the loader's 1 MiB: JSON escaping doubles each quote in the body.
    const big = `// ${'"'.repeat(600_000)}\n`;
    const dir = writeProject({ ...shop, 'big.js': big, 'resources.yaml': shop['resources.yaml'].replace(`script: "console.log('setup')"`, 'scriptFile: ./big.js') });
    const r = await mac(served, ['apply', dir, '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Apply: applied 3, failed 1, skipped 1');
    expect(r.stdout).toMatch(/failed {3}create {2}Snippet\/auth-setup +POST \/v1\/snippets failed: 413/);
    expect(r.stdout).toMatch(/skipped {2}create {2}DnsCheck\/dns +needs Snippet\/auth-setup, which did not apply/);
    expect([...(await checksByTag(served, 'shop')).keys()]).toEqual(['mac:shop/db']);

    writeFileSync(join(dir, 'big.js'), "console.log('setup')\n");
    const again = await mac(served, ['apply', dir, '--yes'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('Apply: applied 2, failed 0, skipped 0, unchanged 3');
    expect((await mac(served, ['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});
