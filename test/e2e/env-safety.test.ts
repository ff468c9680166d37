import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac, type RunResult } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { api, listAllOf, mac, writeProject } from './apply-fixtures.js';

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

let served: Served;
/** Every output of every run here, searched for the values at the end. */
const outputs: string[] = [];
async function run(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const r = await mac(served, args, { env });
  outputs.push(r.stdout, r.stderr);
  return r;
}

beforeAll(async () => {
  served = await startServe(['--no-runs', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

describe('env allow-list', () => {
  // A URL where nothing listens: the live state read while the files load fails with ECONNREFUSED,
  // and the diagnostics must be what is reported.
  const offline = ['--api-url', 'http://127.0.0.1:9', '--api-key', 'k'];

  it('refuses a name not declared under env:, at file:line:col, with no plan made', async () => {
    const dir = writeProject({
      'mac.config.yaml': 'project: allow\nenv: [SHOP_HOST]\n',
      'c.yaml': 'kind: TcpCheck\nid: x\nname: x\nrequest: { hostname: "${{ env.OTHER_HOST }}", port: 5432 }\n',
    });
    const r = await runMac(['plan', dir, ...offline], { env: { OTHER_HOST: 'other-host-value', SHOP_HOST: 'h' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('c.yaml:4:22: error: request.hostname: environment variable OTHER_HOST is not declared under env: in mac.config.yaml');
    expect(r.stderr).toContain('hint: add OTHER_HOST under env: in mac.config.yaml');
    expect(r.stderr).toContain('nothing was planned');
    expect(r.stderr).not.toContain('ECONNREFUSED');
    expect(r.stdout + r.stderr).not.toContain('other-host-value');
  });

  it('never reads MAC_API_KEY, GITHUB_TOKEN or INPUT_*, even when declared, and says so at the env: entry', async () => {
    const dir = writeProject({
      'mac.config.yaml': 'project: forbidden\nenv:\n  - MAC_API_KEY\n  - GITHUB_TOKEN\n  - INPUT_X\n',
      'c.yaml': [
        'kind: TcpCheck',
        'id: leak',
        'name: "${{ env.MAC_API_KEY }}"',
        'description: "token ${{ env.GITHUB_TOKEN }}"',
        'request: { hostname: "${{ env.INPUT_X }}", port: 5432 }',
        '',
      ].join('\n'),
    });
    const secrets = { MAC_API_KEY: 'mac-key-S4e9', GITHUB_TOKEN: 'ghs_token_T5f0', INPUT_X: 'input-U6g1' };
    const r = await runMac(['validate', dir], { env: secrets });
    expect(r.code).toBe(1);
    for (const [i, name] of ['MAC_API_KEY', 'GITHUB_TOKEN', 'INPUT_X'].entries()) {
      expect(r.stderr).toContain(`mac.config.yaml:${3 + i}:5: error: env.${i}: ${name} cannot be declared`);
    }
    expect(r.stderr).toMatch(/c\.yaml:3:7: error: name: environment variable MAC_API_KEY is never readable/);
    expect(r.stderr).toMatch(/c\.yaml:4:14: error: description: environment variable GITHUB_TOKEN is never readable/);
    expect(r.stderr).toMatch(/c\.yaml:5:22: error: request\.hostname: environment variable INPUT_X is never readable/);
    for (const v of Object.values(secrets)) expect(r.stdout + r.stderr).not.toContain(v);

    const plan = await runMac(['plan', dir, '--api-url', 'http://127.0.0.1:9'], { env: secrets });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('nothing was planned');
    expect(plan.stderr).not.toContain('ECONNREFUSED');
    for (const v of Object.values(secrets)) expect(plan.stdout + plan.stderr).not.toContain(v);
  });
});

describe('identity fields never read the environment', () => {
  it('refuses ${{ env.NAME }} in kind, id, key, project, previousNames and a matched name, at the field, without reading it', async () => {
    const dir = writeProject({
      'mac.config.yaml': 'project: "${{ env.PROJ }}"\nenv: [PEMX, IDX, PROJ]\n',
      'a.yaml': 'kind: "${{ env.PEMX }}"\nid: a\nname: a\n',
      'b.yaml': 'kind: TcpCheck\nid: "db-${{ env.IDX }}"\nname: b\nrequest: { hostname: h.example, port: 1 }\n',
      'c.yaml': 'kind: EnvironmentVariable\nkey: "${{ env.IDX }}"\nvalue: v\n',
      'd.yaml': 'kind: Snippet\nid: s\nname: "${{ env.IDX }}"\nscript: "x"\n',
      'e.yaml': 'kind: TcpCheck\nid: e\nname: e\npreviousNames: ["${{ env.IDX }}"]\nrequest: { hostname: h.example, port: 1 }\n',
      // Value fields read it as before.
      'f.yaml': 'kind: TcpCheck\nid: f\nname: f\nrequest: { hostname: "${{ env.IDX }}", port: 1 }\n',
    });
    // A multi-line secret holding `|`: the example of a PEM read into the wrong place.
    const env = { PEMX: 'TcpCheck\n-----BEGIN KEY-----|pem-V7h2\n-----END KEY-----', IDX: 'idx-W8i3', PROJ: 'proj-X9j4' };
    const offline = ['--api-url', 'http://127.0.0.1:9', '--api-key', 'k'];
    for (const args of [['validate', dir], ['plan', dir, '--out', join(dir, 'plan.json'), ...offline], ['plan', dir, '--format', 'json', ...offline]]) {
      const r = await runMac(args, { env });
      expect(r.code, r.stderr).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/mac\.config\.yaml:1:10: error: project: "project" cannot read the environment \(\$\{\{ env\.PROJ \}\}\)/);
      expect(out).toMatch(/a\.yaml:1:7: error: kind: "kind" cannot read the environment \(\$\{\{ env\.PEMX \}\}\): it identifies the definition/);
      expect(out).toMatch(/b\.yaml:2:5: error: id: "id" cannot read the environment/);
      expect(out).toMatch(/c\.yaml:2:6: error: key: "key" cannot read the environment/);
      expect(out).toMatch(/d\.yaml:3:7: error: name: "name" cannot read the environment/);
      expect(out).toMatch(/e\.yaml:4:\d+: error: previousNames\.0: "previousNames" cannot read the environment/);
      expect(out).not.toMatch(/f\.yaml.*error/);
      expect(out).not.toContain('ECONNREFUSED');
      for (const v of ['pem-V7h2', 'BEGIN KEY', 'idx-W8i3', 'proj-X9j4']) expect(out).not.toContain(v);
    }
  });
});

describe('masking of locked and env-read values', () => {
  it('never shows a locked value, a locked webhook header or an env-read value, in any output or plan file, and still applies them', async () => {
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
  });
});

describe('secrets only where they are written', () => {
  const files = {
    'mac.config.yaml': 'project: sr\nenv: [SR_VAL]\n',
    'v.yaml': 'kind: EnvironmentVariable\nkey: SR_KEY\nvalue: ${{ env.SR_VAL }}\nsecret: true\n---\nkind: Snippet\nid: s\nname: helper\nscript: "1"\n',
  };
  const state = async () => ({
    variables: (await listAllOf<{ key: string }>(served, '/v1/variables')).map((v) => v.key).filter((k) => k === 'SR_KEY'),
    snippets: (await listAllOf<{ name: string }>(served, '/v1/snippets')).filter((s) => s.name === 'helper'),
  });

  it('apply PLANFILE without the secret variable exits 1, names it and writes nothing (never the placeholder)', async () => {
    const dir = writeProject(files);
    const planFile = join(dir, 'p.json');
    expect((await run(['plan', dir, '--out', planFile], { SR_VAL })).code).toBe(0);
    const r = await run(['apply', planFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable SR_VAL not set');
    expect(r.stderr).toContain('EnvironmentVariable/SR_KEY /value (env SR_VAL); nothing was applied');
    expect(await state()).toEqual({ variables: [], snippets: [] });
    rmSync(dir, { recursive: true });
  });

  it('plan and validate only warn, plan shows (sensitive, not set: NAME); apply DIR refuses before any write', async () => {
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
    expect(await state()).toEqual({ variables: [], snippets: [] });
  });

  it('validate and plan of examples/ without SHOP_STRIPE_KEY exit 0 with a warning', async () => {
    const validate = await runMac(['validate', EXAMPLES]);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('variables.yaml:10:8: warning: value: environment variable SHOP_STRIPE_KEY is not set');
    const plan = await run(['plan', EXAMPLES]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('warning: value: environment variable SHOP_STRIPE_KEY is not set');
    expect(plan.stdout).toContain('(sensitive, not set: SHOP_STRIPE_KEY)');
  });

  it('a non-secret value whose variable is unset stays an error', async () => {
    const dir = writeProject({ 'mac.config.yaml': 'project: ns\nenv: [REGION_NAME]\n', 'v.yaml': 'kind: EnvironmentVariable\nkey: REGION\nvalue: ${{ env.REGION_NAME }}\n' });
    const r = await run(['plan', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('v.yaml:3:8: error: value: environment variable REGION_NAME is not set');
  });
});
