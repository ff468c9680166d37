import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startFakeGitHub } from '../helpers/fake-github.js';

/**
 * `npm pack` of this repository installs into an empty directory and runs there: bin, dist,
 * schemas, workflow templates and the types of the TS helpers. No network: the dependencies come
 * from the npm cache `npm ci` filled, pinned by a lockfile derived from this repository's.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mac-pack-'));
const started = Date.now();
const app = join(work, 'team-repo');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const installed = join(app, 'node_modules', pkg.name);

// npm and npx as a user runs them, without the MAC_* of the developer's shell or npm_* of a parent npm run.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('MAC_') && !k.toLowerCase().startsWith('npm_')),
) as Record<string, string>;
env.NO_COLOR = '1';

/** Runs a command in the team's repository (or `cwd`) without blocking the test's process: commands that do not depend on each other run at once. */
function runAsync(cmd: string, args: string[], extra: Record<string, string> = {}, cwd = app): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 }); // a hang guard: commands run at once take long under load
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

type Serve = { url: string; stop(): Promise<void> };
/**
 * The file's service, started once the package is installed and awaited by the cases that call
 * it: `mac init` and the first commands run while it starts.
 */
let serving: Promise<Serve> | undefined;

beforeAll(async () => {
  expect(existsSync(join(ROOT, 'dist', 'cli', 'main.js')), 'run npm run build first').toBe(true);
  mkdirSync(app);
  const pack = await runAsync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {}, ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0].filename;
  // The lockfile of the team's repository: this package from the tarball, its dependencies as
  // this repository resolved them (npm's cache holds their tarballs, not registry listings).
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, any> };
  const self = lock.packages[''];
  const deps = Object.fromEntries(Object.entries(lock.packages).filter(([k, v]) => k.startsWith('node_modules/') && !v.dev && !v.link));
  const spec = `file:../${tarball}`;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'team-repo', private: true, type: 'module', devDependencies: { [pkg.name]: spec } }, null, 2));
  writeFileSync(
    join(app, 'package-lock.json'),
    JSON.stringify({
      name: 'team-repo',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'team-repo', devDependencies: { [pkg.name]: spec } },
        [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: spec, dev: true, dependencies: self.dependencies, bin: self.bin, engines: self.engines },
        ...Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, { ...v, dev: true }])),
      },
    }, null, 2),
  );
  const install = await runAsync('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
  expect(install.code, install.stderr).toBe(0);
  // One `mac serve` of the installed package for the file: the plan, the Action and `mac test` use it.
  serving = startInstalledServe();
  serving.catch(() => undefined); // awaited by the cases; unhandled until then
}, 180_000); // pack and install: minutes under load

/** The file's `mac serve`, once it listens (its start failing fails the cases that need it). */
function served(): Promise<Serve> {
  if (serving === undefined) throw new Error('the package was not installed');
  return serving;
}

afterAll(async () => {
  await serving?.then((s) => s.stop(), () => undefined);
  rmSync(work, { recursive: true, force: true });
});

/** The account the installed service answers for the dev key (`GET /v1/accounts/me`). */
async function answersAccount(url: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/accounts/me`, { headers: { authorization: 'Bearer mac-dev-key' } });
  return ((await res.json()) as { id?: unknown }).id;
}

/** `mac serve --port 0` of the installed package. */
function startInstalledServe(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(installed, 'bin', 'mac.js'), 'serve', '--port', '0'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mac serve did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: async () => { if (child.exitCode === null) child.kill('SIGTERM'); await exited; } });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mac serve exited with ${code}:\n${out}`)));
  });
}

describe('the packed package, installed into an empty repository', () => {
  it.concurrent('ships bin, dist, schemas, the workflow templates and the helpers\' types, and nothing of the tests', ({ expect }) => {
    for (const f of ['bin/mac.js', 'dist/cli/main.js', 'dist/index.d.ts', 'schemas/definition.schema.json', 'schemas/mac-config.schema.json', 'examples/workflows/mac-plan.yml', 'action.yml']) {
      expect(existsSync(join(installed, f)), f).toBe(true);
    }
    expect(existsSync(join(installed, 'test'))).toBe(false);
    expect(existsSync(join(installed, 'src'))).toBe(false);
  });

  it.concurrent('is the package the README tells a team to install, right after the two set-up commands', ({ expect }) => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].split('\n'));
    expect(blocks[0].slice(0, 2).map((l) => l.split('#')[0].trim())).toEqual(['npm ci && npm run demo', 'npm ci && npm test']);
    expect(blocks[1][0].split('#')[0].trim()).toBe(`npm install --save-dev ${pkg.name}`);
    expect(blocks[1].slice(1).filter((l) => l.trim() !== '').every((l) => l.startsWith('npx mac '))).toBe(true);
  });

  // The starter project of `mac init`, planned, then committed and planned by the Action: one after the other,
  // beside the other cases of the file.
  describe.concurrent('from mac init to the plan comment', () => {
    it.sequential('runs mac init, validate (YAML and a *.mac.ts with the typed helpers) and plan against mac serve', async ({ expect }) => {
      const init = await runAsync('npx', ['--no-install', 'mac', 'init', 'monitoring', '--github']);
      expect(init.code, init.stderr).toBe(0);
      // The editor schema line resolves to a file of the installed package.
      const line = /\$schema=(\S+)/.exec(readFileSync(join(app, 'monitoring', 'checks', 'tcp.yaml'), 'utf8'))![1];
      expect(existsSync(join(app, 'monitoring', 'checks', line))).toBe(true);
      writeFileSync(
        join(app, 'monitoring', 'checks', 'api.mac.ts'),
        [
          "import { tcpCheck, type TcpCheckDefinition } from 'mac-monitoring';",
          'const port: number = 8443;',
          "const check: TcpCheckDefinition = tcpCheck({ id: 'api-tls', name: 'API answers on its TLS port', request: { hostname: 'api.example.com', port } });",
          'export default check;',
          '',
        ].join('\n'),
      );
      // The helpers' types resolve from the installed package (as an editor or `tsc` in CI sees them).
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true }, include: ['monitoring/**/*.mac.ts'] }));
      // A wrong field is a type error with the same settings, so the check above is not vacuous (a
      // directory of its own, outside the project that validate and plan read at the same time).
      // One compiler run checks both (its seconds of CPU go to loading the package's types): the
      // wrong file has its error, the project's file none.
      mkdirSync(join(app, 'typecheck'));
      writeFileSync(join(app, 'typecheck', 'bad.mac.ts'), "import { tcpCheck } from 'mac-monitoring';\nexport default tcpCheck({ id: 'x', name: 'x', request: { hostname: 'h', port: 'not a number' } });\n");
      writeFileSync(join(app, 'tsconfig.both.json'), JSON.stringify({ extends: './tsconfig.json', include: ['monitoring/**/*.mac.ts', 'typecheck/**/*.mac.ts'] }));
      const tscBin = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const serve = await served();
      const [tsc, validate, plan] = await Promise.all([
        runAsync(process.execPath, [tscBin, '-p', 'tsconfig.both.json']),
        runAsync('npx', ['--no-install', 'mac', 'validate', 'monitoring']),
        runAsync('npx', ['--no-install', 'mac', 'plan', 'monitoring', '--detailed-exitcode'], { MAC_API_URL: serve.url, MAC_API_KEY: 'mac-dev-key', MAC_ACCOUNT_ID: 'dev' }),
      ]);
      rmSync(join(app, 'typecheck'), { recursive: true });
      rmSync(join(app, 'tsconfig.both.json'));
      // tsc names each error's file first: `typecheck/bad.mac.ts(2,83): error TS2322: ...`.
      const erring = [...new Set([...tsc.stdout.matchAll(/^(\S+\.mac\.ts)\(\d+,\d+\): error TS\d+/gm)].map((m) => m[1]))];
      expect(erring, tsc.stdout + tsc.stderr).toEqual(['typecheck/bad.mac.ts']);
      expect(tsc.code).not.toBe(0);
      expect(tsc.stdout).toContain('bad.mac.ts');

      expect(validate.code, validate.stderr).toBe(0);
      expect(validate.stdout).toContain('monitoring: 5 definitions in 5 files, valid');

      expect(plan.code, plan.stderr).toBe(2);
      expect(plan.stdout).toMatch(/5 to create/);
      expect(plan.stdout).toContain('api-tls');
    }, 240_000);

    it.sequential('the workflow mac init --github wrote comments a green plan on a pull request (Action bundle, fake GitHub API)', async ({ expect }) => {
      const serve = await served();
      expect(await answersAccount(serve.url), 'the file\'s mac serve answers with the dev key').toBe('dev');
      const git = (...args: string[]) => {
        const r = spawnSync('git', args, { cwd: app, encoding: 'utf8', env: { ...env, GIT_AUTHOR_NAME: 'ci', GIT_AUTHOR_EMAIL: 'ci@example.com', GIT_COMMITTER_NAME: 'ci', GIT_COMMITTER_EMAIL: 'ci@example.com' } });
        if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
        return r.stdout.trim();
      };
      writeFileSync(join(app, '.gitignore'), 'node_modules\n');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'monitoring: starter project');
      const base = git('rev-parse', 'HEAD');
      git('checkout', '-q', '-b', 'more-checks');
      writeFileSync(join(app, 'monitoring', 'checks', 'db.yaml'), 'kind: TcpCheck\nid: db\nname: Database reachable\nrequest: { hostname: db.internal.example, port: 5432 }\n');
      git('add', '-A');
      git('commit', '-q', '-m', 'monitoring: database check');
      const head = git('rev-parse', 'HEAD');

      // The inputs of the mac step of the plan workflow init wrote, with the repository's variables and secrets.
      const workflow = parse(readFileSync(join(app, '.github', 'workflows', 'mac-plan.yml'), 'utf8')) as { jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }> };
      const step = Object.values(workflow.jobs).flatMap((j) => j.steps).find((st) => st.uses !== undefined && !st.uses.startsWith('actions/'))!;
      const settings: Record<string, string> = { 'vars.MAC_API_URL': serve.url, 'secrets.MAC_READ_ONLY_API_KEY': 'mac-dev-key', 'vars.MAC_ACCOUNT_ID': 'dev' };
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, String(v).replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => settings[name] ?? '')]),
      );
      expect(inputs).toMatchObject({ command: 'plan', dir: 'monitoring', 'api-url': serve.url });

      const gh = await startFakeGitHub();
      try {
        const runDir = mkdtempSync(join(work, 'run-'));
        const event = join(runDir, 'event.json');
        writeFileSync(event, JSON.stringify({ action: 'opened', number: 7, pull_request: { number: 7, head: { sha: head, ref: 'more-checks', repo: { id: 1, full_name: 'team/repo' } }, base: { sha: base, ref: 'main', repo: { id: 1, full_name: 'team/repo' } } } }));
        writeFileSync(join(runDir, 'summary.md'), '');
        writeFileSync(join(runDir, 'output.txt'), '');
        const actionEnv: Record<string, string> = {
          PATH: env.PATH ?? '', HOME: env.HOME ?? '', NO_COLOR: '1', GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event,
          GITHUB_REPOSITORY: 'team/repo', GITHUB_SHA: 'e'.repeat(40), GITHUB_REF: 'refs/pull/7/merge', GITHUB_WORKSPACE: app, GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_API_URL: gh.url, GITHUB_STEP_SUMMARY: join(runDir, 'summary.md'), GITHUB_OUTPUT: join(runDir, 'output.txt'), RUNNER_TEMP: runDir,
          'INPUT_GITHUB-TOKEN': 'ghs_test', INPUT_COMMENT: 'true',
          ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
        };
        // Spawned asynchronously: the fake GitHub API answers from this process.
        const action = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
          const child = spawn(process.execPath, [join(ROOT, 'dist-action', 'index.mjs')], { cwd: app, env: actionEnv, stdio: ['ignore', 'pipe', 'pipe'] });
          let stdout = '';
          let stderr = '';
          child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
          child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
          child.on('error', reject);
          child.on('close', (status) => resolve({ status, stdout, stderr }));
        });
        expect(action.status, action.stdout + action.stderr).toBe(0);
        const comments = gh.comments.filter((c) => c.issue === 'team/repo#7');
        expect(comments).toHaveLength(1);
        expect(comments[0].body).toContain('db');
        expect(comments[0].body).toMatch(/6 to create/);
      } finally {
        await gh.close();
      }
      // The figure for the docs: from an empty directory to the plan comment, machine time.
      console.log(`pack, install, init, validate, plan, PR plan comment: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }, 240_000);
  });

  it.concurrent('mac test runs a multi-step script with the @playwright/test the package brings', async ({ expect }) => {
    const serve = await served();
    expect(await answersAccount(serve.url), 'the file\'s mac serve answers with the dev key').toBe('dev');
    const dir = join(app, 'journeys');
    mkdirSync(dir);
    writeFileSync(join(dir, 'mac.config.yaml'), 'project: journeys\n');
    const script = "import { test, expect } from '@playwright/test';\ntest('unknown status page', async ({ request }) => {\n  expect((await request.get(process.env.BASE + '/status/nope')).status()).toBe(404);\n});\n";
    writeFileSync(join(dir, 'journey.yaml'), `kind: MultiStepCheck\nid: journey\nname: journey\ndoubleCheck: false\nenvironmentVariables: [{ key: BASE, value: "${serve.url}" }]\nscript: ${JSON.stringify(script)}\n`);
    const r = await runAsync('npx', ['--no-install', 'mac', 'test', 'journeys']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^MultiStepCheck\/journey\s+MULTI_STEP\s+pass\s+\d+ ms/m);
  }, 240_000); // beside the init-plan-Action chain: as long
});
