import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { writeProject } from './apply-fixtures.js';

// What a CLI process reads of the environment it inherits: only the names declared under env:,
// never MAC_API_KEY, GITHUB_TOKEN or INPUT_*, never in a field that identifies a definition. The
// process is the point (its whole environment holds the values, and nothing may read them); no
// service is needed (the API URL is one where nothing listens). The tests run at once. Masking
// and secrets against a service run in process: test/integration/env-safety.test.ts.

describe.concurrent('env allow-list', () => {
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
  }, 120_000);

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
    const [r, plan] = await Promise.all([runMac(['validate', dir], { env: secrets }), runMac(['plan', dir, '--api-url', 'http://127.0.0.1:9'], { env: secrets })]);
    expect(r.code).toBe(1);
    for (const [i, name] of ['MAC_API_KEY', 'GITHUB_TOKEN', 'INPUT_X'].entries()) {
      expect(r.stderr).toContain(`mac.config.yaml:${3 + i}:5: error: env.${i}: ${name} cannot be declared`);
    }
    expect(r.stderr).toMatch(/c\.yaml:3:7: error: name: environment variable MAC_API_KEY is never readable/);
    expect(r.stderr).toMatch(/c\.yaml:4:14: error: description: environment variable GITHUB_TOKEN is never readable/);
    expect(r.stderr).toMatch(/c\.yaml:5:22: error: request\.hostname: environment variable INPUT_X is never readable/);
    for (const v of Object.values(secrets)) expect(r.stdout + r.stderr).not.toContain(v);

    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('nothing was planned');
    expect(plan.stderr).not.toContain('ECONNREFUSED');
    for (const v of Object.values(secrets)) expect(plan.stdout + plan.stderr).not.toContain(v);
  }, 120_000);
});

describe.concurrent('identity fields never read the environment', () => {
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
    const runs = [['validate', dir], ['plan', dir, '--out', join(dir, 'plan.json'), ...offline], ['plan', dir, '--format', 'json', ...offline]];
    for (const r of await Promise.all(runs.map((args) => runMac(args, { env })))) {
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
  }, 120_000);
});
