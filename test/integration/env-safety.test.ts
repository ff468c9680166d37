import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccounts } from '../helpers/accounts.js';
import { macIn, runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { RunResult } from '../helpers/cli.js';
import type { Served } from '../helpers/serve.js';
import { api, listAllOf, writeProject } from '../e2e/apply-fixtures.js';

// Locked, secret and env-read values: never printed nor written to a plan file, yet applied; a
// secret whose variable is unset warns at plan and stops apply. In process, against one service,
// each test in an account of its own, all at once. What a CLI process reads of the environment
// it inherits (the env: allow-list, identity fields) is test/e2e/env-safety.test.ts.
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

// Values that must never be printed nor written to a plan file.
const LOCKED = 'locked-value-Q7x2';
const LOCKED_NEW = 'locked-value-R8y3';
const HEADER = 'Bearer hdr-secret-K9z4';
const HEADER_NEW = 'Bearer hdr-secret-L0a5';
const QUERY = 'qp-secret-M1b6';
const DB_HOST = 'db-from-env-N2c7.internal';
const SR_VAL = 'sr-secret-P3d8';
const NEVER = [LOCKED, LOCKED_NEW, HEADER, HEADER_NEW, QUERY, DB_HOST, SR_VAL];

function resources(locked: string, header: string): string {
  return `kind: EnvironmentVariable
key: LOCKED_ONE
value: ${locked}
locked: true
---
kind: AlertChannel
id: hook
type: WEBHOOK
config:
  name: ops hook
  url: https://hooks.example/ops
  headers:
    - { key: Authorization, value: "${header}", locked: true }
    - { key: X-Plain, value: plain-header }
  queryParameters:
    - { key: token, value: ${QUERY}, locked: true }
---
kind: TcpCheck
id: db
name: Database
request: { hostname: "\${{ env.DB_HOST }}", port: 5432 }
`;
}

const accounts = serviceAccounts('env', 5);
let service: Served;
beforeAll(async () => {
  service = await startServeIn(['--no-runs', '--rate-limit', '0/60', ...accounts.args]);
});
afterAll(async () => {
  await service?.stop();
});

/** Runs `mac ...args` in process in `served`'s account, and keeps every output in `outputs`. */
function runner(served: Served, outputs: string[] = []): (args: string[], env?: Record<string, string>) => Promise<RunResult> {
  return async (args, env = {}) => {
    const r = await macIn(served, args, { env });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
}

describe.concurrent('masking of locked and env-read values', () => {
  it('never shows a locked value, a locked webhook header or an env-read value, in any output or plan file, and still applies them', async () => {
    const served = accounts.next(service);
    /** Every output of every run here, searched for the values at the end. */
    const outputs: string[] = [];
    const run = runner(served, outputs);
    const dir = writeProject({ 'mac.config.yaml': 'project: masked\nenv: [DB_HOST]\n', 'resources.yaml': resources(LOCKED, HEADER) });
    const env = { DB_HOST };
    const planFile = join(dir, 'plan.json');
    for (const format of ['text', 'markdown', 'json']) expect((await run(['plan', dir, '--format', format], env)).code).toBe(0);
    expect((await run(['plan', dir, '--out', planFile], env)).code).toBe(0);
    const saved = readFileSync(planFile, 'utf8');
    outputs.push(saved);
    const created = await run(['apply', planFile, '--format', 'json'], env);
    expect(created.code, created.stderr).toBe(0);

    // The account holds the real values, recovered from the environment and the planned directory.
    expect(await api<{ value: string }>(served, 'GET', '/v1/variables/LOCKED_ONE')).toMatchObject({ value: LOCKED, locked: true });
    const [hook] = await listAllOf<{ config: { headers: Array<{ value: string }>; queryParameters: Array<{ value: string }> } }>(served, '/v1/alert-channels');
    expect(hook.config.headers.map((h) => h.value).sort()).toEqual([HEADER, 'plain-header']);
    expect(hook.config.queryParameters[0].value).toBe(QUERY);
    const [check] = await listAllOf<{ request: { hostname: string }; tags: string[] }>(served, '/v1/checks');
    expect(check.request.hostname).toBe(DB_HOST);

    // Changed masked values are compared and shown as a change, never as values.
    writeFileSync(join(dir, 'resources.yaml'), resources(LOCKED_NEW, HEADER_NEW));
    const text = await run(['plan', dir, '--detailed-exitcode'], env);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('~ value: (sensitive) -> (sensitive)');
    expect(text.stdout).toContain('~ config.headers[0].value: (sensitive) -> (sensitive)');
    const json = await run(['plan', dir, '--format', 'json', '--out', planFile], env);
    const plan = JSON.parse(json.stdout) as { changes: Array<{ id: string; patch: unknown[] }> };
    expect(plan.changes.find((c) => c.id === 'LOCKED_ONE')?.patch).toEqual([{ op: 'replace', path: '/value', value: '(sensitive)', oldValue: '(sensitive)' }]);
    expect(plan.changes.find((c) => c.id === 'hook')?.patch).toEqual([{ op: 'replace', path: '/config/headers/0/value', value: '(sensitive)', oldValue: '(sensitive)' }]);
    outputs.push(readFileSync(planFile, 'utf8'), (await run(['plan', dir, '--format', 'markdown'], env)).stdout);
    const updated = await run(['apply', planFile], env);
    expect(updated.code, updated.stderr).toBe(0);
    expect(await api<{ value: string }>(served, 'GET', '/v1/variables/LOCKED_ONE')).toMatchObject({ value: LOCKED_NEW });
    const direct = await run(['apply', dir, '--yes', '--format', 'json'], env);
    expect(direct.code, direct.stderr).toBe(0);

    for (const out of outputs) for (const v of NEVER) expect(out).not.toContain(v);
  }, 120_000);
});

describe.concurrent('secrets only where they are written', () => {
  const files = {
    'mac.config.yaml': 'project: sr\nenv: [SR_VAL]\n',
    'v.yaml': 'kind: EnvironmentVariable\nkey: SR_KEY\nvalue: ${{ env.SR_VAL }}\nsecret: true\n---\nkind: Snippet\nid: s\nname: helper\nscript: "1"\n',
  };
  const state = async (served: Served) => ({
    variables: (await listAllOf<{ key: string }>(served, '/v1/variables')).map((v) => v.key).filter((k) => k === 'SR_KEY'),
    snippets: (await listAllOf<{ name: string }>(served, '/v1/snippets')).filter((s) => s.name === 'helper'),
  });

  it('apply PLANFILE without the secret variable exits 1, names it and writes nothing (never the placeholder)', async () => {
    const served = accounts.next(service);
    const run = runner(served);
    const dir = writeProject(files);
    const planFile = join(dir, 'p.json');
    expect((await run(['plan', dir, '--out', planFile], { SR_VAL })).code).toBe(0);
    const r = await run(['apply', planFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable SR_VAL not set');
    expect(r.stderr).toContain('EnvironmentVariable/SR_KEY /value (env SR_VAL); nothing was applied');
    expect(await state(served)).toEqual({ variables: [], snippets: [] });
    rmSync(dir, { recursive: true });
  }, 120_000);

  it('plan and validate only warn, plan shows (sensitive, not set: NAME); apply DIR refuses before any write', async () => {
    const served = accounts.next(service);
    const run = runner(served);
    const dir = writeProject(files);
    const validate = await run(['validate', dir]);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('v.yaml:3:8: warning: value: environment variable SR_VAL is not set');
    const text = await run(['plan', dir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('+ value: (sensitive, not set: SR_VAL)');
    expect(text.stdout).toContain('EnvironmentVariable/SR_KEY: value (sensitive, not set: SR_VAL): mac apply refuses until SR_VAL is set');
    const json = await run(['plan', dir, '--format', 'json']);
    const change = (JSON.parse(json.stdout) as { changes: Array<{ id: string; secrets?: unknown; desired?: { value?: unknown } }> }).changes.find((c) => c.id === 'SR_KEY')!;
    expect(change.secrets).toEqual([{ path: '/value', env: 'SR_VAL', missing: ['SR_VAL'] }]);
    expect(change.desired?.value).toBe('(sensitive, not set: SR_VAL)');

    const r = await run(['apply', dir, '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable SR_VAL not set');
    expect(await state(served)).toEqual({ variables: [], snippets: [] });
  }, 120_000);

  it('validate and plan of examples/ without SHOP_STRIPE_KEY exit 0 with a warning', async () => {
    const served = accounts.next(service);
    const run = runner(served);
    const validate = await runMacIn(['validate', EXAMPLES]);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('variables.yaml:10:8: warning: value: environment variable SHOP_STRIPE_KEY is not set');
    const plan = await run(['plan', EXAMPLES]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('warning: value: environment variable SHOP_STRIPE_KEY is not set');
    expect(plan.stdout).toContain('(sensitive, not set: SHOP_STRIPE_KEY)');
  }, 120_000);

  it('a non-secret value whose variable is unset stays an error', async () => {
    const served = accounts.next(service);
    const run = runner(served);
    const dir = writeProject({ 'mac.config.yaml': 'project: ns\nenv: [REGION_NAME]\n', 'v.yaml': 'kind: EnvironmentVariable\nkey: REGION\nvalue: ${{ env.REGION_NAME }}\n' });
    const r = await run(['plan', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('v.yaml:3:8: error: value: environment variable REGION_NAME is not set');
  }, 120_000);
});
