import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac, type RunResult } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';

// Which modules a run of the CLI loads, read the way Node loads them: a module hook (registered
// by `--import` in NODE_OPTIONS, as a user could) writes the URL of every module the process
// loads, ESM and CommonJS entry points alike, to a file. The figures of start-up time are
// measured in bench/cli-start.mjs; this file holds the behaviour that makes them: `--version`
// and `--help` load no command's code and none of the heavy libraries, `mac serve` does not load
// the plan engine, and `mac plan` does not load the service.
//
// Each case runs processes of its own, with a log of its own, and reads nothing another case
// writes: the cases run at once (about 15 processes, one after the other, waited on each other's
// start-ups).

const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/', import.meta.url))).href;

let dir: string;
let hooks: string;
let seq = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mac-modules-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function load(url, context, next) {',
      '  if (process.env.MAC_TEST_MODULE_LOG) appendFileSync(process.env.MAC_TEST_MODULE_LOG, `${url}\\n`);',
      '  return next(url, context);',
      '}',
    ].join('\n'),
  );
  hooks = join(dir, 'register.mjs');
  await writeFile(hooks, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a run whose modules are logged, and the log's file. */
function logged(): { env: Record<string, string>; file: string } {
  const file = join(dir, `modules-${++seq}.log`);
  return { env: { NODE_OPTIONS: `--import ${pathToFileURL(hooks).href}`, MAC_TEST_MODULE_LOG: file }, file };
}

/** What a run loaded: the files of dist/ (relative to it) and the packages of node_modules. */
interface Loaded {
  dist: string[];
  packages: string[];
}

async function loadedBy(file: string): Promise<Loaded> {
  const urls = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const dist = [...new Set(urls.filter((u) => u.startsWith(DIST)).map((u) => u.slice(DIST.length)))].sort();
  const packages = [
    ...new Set(
      urls
        .map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1])
        .filter((p): p is string => p !== undefined),
    ),
  ].sort();
  return { dist, packages };
}

async function mac(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<RunResult & Loaded> {
  const log = logged();
  const r = await runMac(args, { cwd: opts.cwd, env: { ...opts.env, ...log.env }, timeoutMs: 90_000 });
  return { ...r, ...(await loadedBy(log.file)) };
}

/** What every start loads: the entry, the output, and each command's declaration (flags and help). */
const START = /^(cli\/(main|output|help|flags)\.js|cli\/declare\/[a-z]+\.js|config\/(connection|options)\.js|render\/formats\.js|schema\/serve-defaults\.js|errors\.js)$/;

/** The packages a start needs: the argument parser and the colours. */
const START_PACKAGES = ['commander', 'picocolors'];

describe.concurrent('what a start of the CLI loads', () => {
  it.each([
    [['--version']],
    [['--help']],
    [['plan', '--help']],
    [['serve', '--help']],
    [['apply', '--help']],
    [['no-such-command']],
  ])('mac %j loads the declarations of the commands only', async (args) => {
    const r = await mac(args);
    // The run did what it does (printed the version, the help, or the usage error) ...
    expect(r.code, r.stderr).toBe(args[0] === 'no-such-command' ? 1 : 0);
    if (args[0] === '--version') expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    else if (args[0] === 'no-such-command') expect(r.stderr).toContain("unknown command 'no-such-command'");
    else expect(r.stdout).toContain('Usage: mac');
    // ... with the CLI's entry, declarations and nothing else of dist/ or node_modules.
    expect(r.dist).toContain('cli/main.js');
    expect(r.dist.filter((f) => !START.test(f))).toEqual([]);
    expect(r.packages.filter((p) => !START_PACKAGES.includes(p))).toEqual([]);
  });

  it('mac validate loads the loader and its schemas, not the API client, the plan engine or the service', async () => {
    const project = await mkdtemp(join(dir, 'validate-'));
    const init = await mac(['init', project]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.dist.filter((f) => f.startsWith('server/'))).toEqual([]);
    const r = await mac(['validate', project]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.dist).toContain('cli/commands/validate.js');
    expect(r.packages).toContain('zod');
    expect(r.dist.filter((f) => (/^(server|plan|apply|render|import|runner)\//.test(f) && !START.test(f)) || f === 'api/client.js' || (f.startsWith('cli/commands/') && f !== 'cli/commands/validate.js'))).toEqual([]);
    expect(r.packages.filter((p) => ['undici', 'simple-git', 'hono', 'pg', 'libsql', 'nodemailer', 'prom-client', 'playwright-core'].includes(p))).toEqual([]);
  });

  it('mac serve loads the service, not the plan engine; mac plan against it loads the engine, not the service', async () => {
    const log = logged();
    // The project is made while the service starts.
    const project = mkdtemp(join(dir, 'plan-')).then(async (p) => ({ path: p, init: await runMac(['init', p]) }));
    const served = await startServe(['--no-runs'], log.env);
    try {
      const serve = await loadedBy(log.file);
      expect(serve.dist).toContain('cli/commands/serve.js');
      expect(serve.dist).toContain('server/server.js');
      expect(serve.dist.filter((f) => (/^(plan|apply|render|import|testrun|agent|action|git)\//.test(f) && !START.test(f)) || (f.startsWith('cli/commands/') && f !== 'cli/commands/serve.js'))).toEqual([]);
      // undici is the service's own (alert deliveries, HTTP checks), loaded when they start: not asked about.
      expect(serve.packages.filter((p) => ['simple-git', 'jiti', 'fast-json-patch'].includes(p))).toEqual([]);
      // On the memory store without --metrics-port: neither SQLite's native module nor the metrics' client.
      expect(serve.packages.filter((p) => ['libsql', 'pg', 'prom-client'].includes(p))).toEqual([]);

      const { path, init } = await project;
      expect(init.code).toBe(0);
      const plan = await mac(['plan', path, '--api-url', served.url, '--api-key', served.apiKey, '--account-id', served.accountId]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toMatch(/to create/);
      expect(plan.dist).toContain('cli/commands/plan.js');
      expect(plan.dist).toContain('plan/plan.js');
      expect(plan.dist.filter((f) => f.startsWith('server/') || (f.startsWith('cli/commands/') && f !== 'cli/commands/plan.js'))).toEqual([]);
      expect(plan.packages.filter((p) => ['hono', '@hono/node-server', 'pg', 'libsql', 'nodemailer', 'prom-client', 'playwright-core'].includes(p))).toEqual([]);
      // The plan's git facts are one git process; simple-git only for --changed-since.
      expect(plan.packages).not.toContain('simple-git');
    } finally {
      await served.stop();
    }
  });
});

describe.concurrent('what a refused start of the service loads', () => {
  it('mac serve with a wrong flag: the message and exit code 1, without loading the service', async () => {
    const r = await mac(['serve', '--port', '0', '--time-scale', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: --time-scale must be a positive number, not "0"');
    expect(r.dist).toContain('cli/commands/serve.js');
    expect(r.dist.filter((f) => f === 'server/server.js' || f === 'server/app.js' || f.startsWith('server/routes/') || f.startsWith('server/runs/') || f.startsWith('runner/http/'))).toEqual([]);
    expect(r.packages.filter((p) => ['hono', '@hono/node-server', 'undici', 'libsql', 'pg', 'prom-client'].includes(p))).toEqual([]);
  });
});

describe.concurrent('a reader that goes away', () => {
  it('mac --help into a pipe closed before it is read: exit 0, no stack trace', async () => {
    const { spawn } = await import('node:child_process');
    const { MAC_BIN } = await import('../helpers/cli.js');
    // The pipe's reading end is closed at once (as `mac --help | head -0` does), so every write fails with EPIPE.
    const child = spawn(process.execPath, [MAC_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
