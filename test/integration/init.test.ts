import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mac-init-'));
let served: Served;
beforeAll(async () => {
  // No runs: the starter project's checks name public hosts, and no test here needs a run.
  served = await startServeIn(['--no-runs']);
}, 30_000);
afterAll(async () => {
  await served?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('mac init --typescript', () => {
  it('writes a typed check and a tsconfig.json with which tsc type-checks every *.mac.ts file against the package\'s types', async () => {
    const cwd = join(work, 'ts-repo');
    mkdirSync(join(cwd, 'node_modules'), { recursive: true });
    // The package as a project installs it (its exports point at dist/index.d.ts).
    symlinkSync(ROOT, join(cwd, 'node_modules', 'mac-monitoring'), 'dir');
    const init = await runMacIn(['init', 'monitoring', '--typescript'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    const dir = join(cwd, 'monitoring');
    expect(readdirSync(join(dir, 'checks')).sort()).toEqual(['api.mac.ts', 'dns.yaml', 'heartbeat.yaml', 'tcp.yaml']);
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))).toMatchObject({ compilerOptions: { strict: true, noEmit: true }, include: ['**/*.mac.ts'] });
    expect(init.stdout).toContain('npx tsc -p monitoring');
    const validate = await runMacIn(['validate', dir], { cwd });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('6 definitions in 5 files, valid');

    const tsc = () => spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd, encoding: 'utf8' });
    const ok = tsc();
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    // A wrong field type is a type error at its line, against the helpers' types.
    writeFileSync(join(dir, 'checks', 'bad.mac.ts'), "import { tcpCheck } from 'mac-monitoring';\nexport default tcpCheck({ id: 'bad', name: 'Bad', request: { hostname: 'x.example', port: 'https' } });\n");
    const bad = tsc();
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toMatch(/checks\/bad\.mac\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 180_000);
});

describe('mac init', () => {
  it('writes a starter project that validates, plans, applies and then plans no changes', async () => {
    const cwd = join(work, 'repo');
    mkdirSync(cwd);
    const init = await runMacIn(['init', 'Team Monitoring', '--github'], { cwd });
    expect(init.code, init.stderr).toBe(0);
    const dir = join(cwd, 'Team Monitoring');
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'alert-channels.yaml', 'checks', 'mac.config.yaml']);
    expect(readdirSync(join(dir, 'checks')).sort()).toEqual(['dns.yaml', 'heartbeat.yaml', 'tcp.yaml']);
    const config = readFileSync(join(dir, 'mac.config.yaml'), 'utf8');
    expect(config).toMatch(/^# yaml-language-server: \$schema=\.\.\/node_modules\/mac-monitoring\/schemas\/mac-config\.schema\.json$/m);
    expect(config).toMatch(/^project: team-monitoring$/m);
    expect(config).toMatch(/^env: \[\]$/m);
    expect(readFileSync(join(dir, 'checks', 'tcp.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/\.\.\/node_modules\/mac-monitoring\/schemas\/definition\.schema\.json$/m);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toMatch(/^\*\.plan\.json$/m);
    // The workflows land at the repository root, pointed at the project directory.
    expect(readdirSync(join(cwd, '.github', 'workflows')).sort()).toEqual(['mac-apply.yml', 'mac-drift.yml', 'mac-plan.yml']);
    const planWorkflow = readFileSync(join(cwd, '.github', 'workflows', 'mac-plan.yml'), 'utf8');
    expect(planWorkflow).toContain('dir: "Team Monitoring"');
    expect(planWorkflow).toContain('- "Team Monitoring/**"');
    expect(planWorkflow).not.toMatch(/monitoring\/\*\*|dir: monitoring/);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(planWorkflow).toMatch(new RegExp(`^\\s+uses: [\\w-]+/[\\w-]+@v${pkg.version.replace(/\./g, '\\.')}$`, 'm'));
    // It ends with the next three commands.
    expect(init.stdout.trimEnd().split('\n').slice(-3).map((l) => l.trim().split(/\s+#/)[0])).toEqual([
      "npx mac validate 'Team Monitoring'",
      "npx mac plan 'Team Monitoring'",
      "npx mac apply 'Team Monitoring'",
    ]);

    const env = { MAC_API_URL: served.url, MAC_API_KEY: served.apiKey, MAC_ACCOUNT_ID: served.accountId };
    const validate = await runMacIn(['validate', dir], { cwd, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('team-monitoring: 4 definitions in 4 files, valid');
    const plan = await runMacIn(['plan', dir, '--detailed-exitcode'], { cwd, env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/4 to create/);
    const apply = await runMacIn(['apply', dir, '--yes'], { cwd, env });
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const again = await runMacIn(['plan', dir, '--detailed-exitcode'], { cwd, env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/no changes/i);
  }, 120_000);

  it('writes nothing when any target exists', async () => {
    const cwd = join(work, 'taken');
    mkdirSync(join(cwd, 'checks'), { recursive: true });
    writeFileSync(join(cwd, 'checks', 'dns.yaml'), 'kept\n');
    const r = await runMacIn(['init', '--github', '--project', 'shop'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: checks/dns.yaml already exists; nothing was written');
    expect(readFileSync(join(cwd, 'checks', 'dns.yaml'), 'utf8')).toBe('kept\n');
    expect(readdirSync(cwd)).toEqual(['checks']);
    expect(readdirSync(join(cwd, 'checks'))).toEqual(['dns.yaml']);
  });

  it('adds the plan-file entries to an existing .gitignore instead of replacing it', async () => {
    const cwd = join(work, 'gitignored');
    mkdirSync(cwd);
    writeFileSync(join(cwd, '.gitignore'), 'node_modules');
    // A project at the repository's root reads only its own files, not every YAML file there.
    writeFileSync(join(cwd, 'docker-compose.yml'), 'services:\n  web: { image: nginx }\n');
    const r = await runMacIn(['init', '--project', 'shop'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const validate = await runMacIn(['validate'], { cwd });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('shop: 4 definitions in 4 files, valid');
    expect(readFileSync(join(cwd, '.gitignore'), 'utf8')).toBe('node_modules\n\n# plan files written by mac plan --out\n*.plan.json\nplan.json\n');
    expect(r.stdout).toContain('  npx mac validate ');
    expect(existsSync(join(cwd, '.github'))).toBe(false);
    expect(readFileSync(join(cwd, 'mac.config.yaml'), 'utf8')).toMatch(/^include: /m);
  });

  it('refuses a project name outside [a-z0-9-]', async () => {
    const cwd = join(work, 'badname');
    mkdirSync(cwd);
    const r = await runMacIn(['init', '--project', 'Shop_1'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('project name "Shop_1" must match [a-z0-9-]+');
    expect(readdirSync(cwd)).toEqual([]);
  });
});
