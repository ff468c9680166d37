import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFakeGitHub, type FakeComment, type FakeGitHub } from './fake-github.js';
import { apiOk, type Served } from './serve.js';

// The committed Action bundle (dist-action/index.mjs, action.yml's runs.main) run against a
// service and a fake GitHub API, two ways:
// - spawnBundle: `node dist-action/index.mjs` as the Actions runner starts it (test/e2e: exit
//   codes, the process ending, the bundle as GitHub runs it);
// - bundleInProcess: the same bundle imported once per test file and its `runAction()` called
//   for each run (test/integration: what the run does, without a Node start-up and a 3 MB parse,
//   about 0.65 s of CPU, per run). Runs in one process take turns; the tests of a file still run
//   concurrently around them.

export const BUNDLE = fileURLToPath(new URL('../../dist-action/index.mjs', import.meta.url));
export const REPO = 'acme/shop';
export const PR = 42;

/** What a run of the Action left: its exit code, its log, the job summary and its outputs. */
export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
}

export interface RunSpec {
  event: 'pull_request' | 'push' | 'workflow_dispatch';
  workspace: string;
  inputs: Record<string, string>;
  /** Head commit (pull_request) or pushed commit. */
  sha: string;
  baseSha?: string;
  /** The pull request comes from another repository (a fork). */
  fork?: boolean;
  /** More environment (what a workflow's `env:` sets). */
  env?: Record<string, string>;
}

/** The files the runner hands a step: GITHUB_STEP_SUMMARY and GITHUB_OUTPUT. */
interface RunFiles {
  summary: string;
  output: string;
}

/** Runs the Action once with this environment (the runner's), in `cwd` (the workspace). */
export type ActionRunner = (env: Record<string, string>, files: RunFiles, cwd: string) => Promise<ActionRun>;

/** Reads the `name<<DELIMITER ... DELIMITER` records @actions/core writes to GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]] = m[3];
  return out;
}

const ended = (code: number, stdout: string, stderr: string, files: RunFiles): ActionRun => ({
  code,
  stdout,
  stderr,
  summary: readFileSync(files.summary, 'utf8'),
  outputs: parseOutputs(readFileSync(files.output, 'utf8')),
});

/** Spawns the bundle as the Actions runner does (`node dist-action/index.mjs`). */
export const spawnBundle: ActionRunner = (env, files, cwd) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve(ended(code ?? 1, stdout, stderr, files)));
  });

/** Variables of a run that the test process's own environment must not lend it. */
const RUN_VARIABLES = /^(INPUT_|GITHUB_|RUNNER_|ACTIONS_|MAC_)/;

let bundle: Promise<{ runAction(): Promise<void> }> | undefined;
let turn: Promise<unknown> = Promise.resolve();
let stepSummary: string | undefined;

/**
 * Runs the bundle's `runAction()` in this process, one run at a time: for its duration the
 * process's environment is the run's (what the runner would give the process), and what it
 * writes to stdout and stderr is the run's log; its exit code is process.exitCode as it left it.
 * The working directory stays the test's: the run reads the workspace from GITHUB_WORKSPACE.
 */
export const bundleInProcess: ActionRunner = (env, files) => {
  const run = turn.then(() => runInProcess(env, files));
  turn = run.catch(() => undefined);
  return run;
};

async function runInProcess(env: Record<string, string>, files: RunFiles): Promise<ActionRun> {
  // Imported natively (vitest.config.ts keeps dist-action out of Vite's transform).
  const { runAction } = await (bundle ??= import(pathToFileURL(BUNDLE).href));
  // @actions/core keeps the summary file of its first run (core.summary caches the path): every
  // run of this process writes one file, emptied before each run and read after it.
  if (stepSummary === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'mac-action-summary-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    stepSummary = join(dir, 'step-summary.md');
  }
  writeFileSync(stepSummary, '');
  const saved = { ...process.env };
  const exitCode = process.exitCode;
  const write = { stdout: process.stdout.write, stderr: process.stderr.write };
  let stdout = '';
  let stderr = '';
  const collect = (append: (s: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  for (const key of Object.keys(process.env)) if (RUN_VARIABLES.test(key)) delete process.env[key];
  Object.assign(process.env, env, { GITHUB_STEP_SUMMARY: stepSummary });
  process.exitCode = undefined;
  process.stdout.write = collect((s) => (stdout += s));
  process.stderr.write = collect((s) => (stderr += s));
  let code: number;
  try {
    await runAction();
    code = Number(process.exitCode ?? 0);
  } finally {
    process.stdout.write = write.stdout;
    process.stderr.write = write.stderr;
    process.exitCode = exitCode;
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
  return ended(code, stdout, stderr, { summary: stepSummary, output: files.output });
}

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'ci', GIT_AUTHOR_EMAIL: 'ci@example.com', GIT_COMMITTER_NAME: 'ci', GIT_COMMITTER_EMAIL: 'ci@example.com' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Writes `files` into the repository and commits them, returning the sha. */
export function commit(repo: string, files: Record<string, string>, message: string): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

export function tcpCheck(id: string, port: number, name = `Database ${id}`): string {
  return `kind: TcpCheck\nid: ${id}\nname: ${name}\nrequest: { hostname: ${id}.internal.example, port: ${port} }\n`;
}

/** Every check in the account, page by page. */
export async function allChecks(serve: Served): Promise<Array<{ id: string; tags: string[] }>> {
  const all: Array<{ id: string; tags: string[] }> = [];
  for (let page = 1; ; page++) {
    const batch = (await apiOk(serve, 'GET', `/v1/checks?limit=100&page=${page}`)) as Array<{ id: string; tags: string[] }>;
    all.push(...batch);
    if (batch.length < 100) return all;
  }
}

/** One test's world: its own fake GitHub API and scratch directory, the file's service. */
export interface ActionScene {
  gh: FakeGitHub;
  tmp: string;
  /** Runs the Action with the environment the Actions runner gives a JavaScript action. */
  runAction(spec: RunSpec): Promise<ActionRun>;
  /** A repository with a mac project in monitoring/, committed on main. */
  newRepo(project: string): { dir: string; base: string };
  /** The plan comments of the project monitoring/ on pull request #42. */
  planComments(): FakeComment[];
  close(): Promise<void>;
}

/** Sets up one test's scene; `onTestFinished` (the test context's) closes it. */
export async function actionScene(serve: Served, runner: ActionRunner, onTestFinished: (fn: () => Promise<void>) => void): Promise<ActionScene> {
  const gh = await startFakeGitHub();
  const tmp = mkdtempSync(join(tmpdir(), 'mac-action-'));
  const scene: ActionScene = {
    gh,
    tmp,
    runAction: (spec) => {
      const runDir = mkdtempSync(join(tmp, 'run-'));
      const files = { event: join(runDir, 'event.json'), summary: join(runDir, 'summary.md'), output: join(runDir, 'output.txt') };
      const payload =
        spec.event === 'pull_request'
          ? {
              action: 'synchronize',
              number: PR,
              pull_request: {
                number: PR,
                head: { sha: spec.sha, ref: 'feature/db', repo: spec.fork ? { id: 666, full_name: 'mallory/shop' } : { id: 1, full_name: REPO } },
                base: { sha: spec.baseSha, ref: 'main', repo: { id: 1, full_name: REPO } },
              },
            }
          : { ref: 'refs/heads/main', after: spec.sha };
      writeFileSync(files.event, JSON.stringify(payload));
      writeFileSync(files.summary, '');
      writeFileSync(files.output, '');
      const inputs = {
        'api-url': serve.url,
        'api-key': serve.apiKey,
        'account-id': serve.accountId,
        'github-token': 'ghs_test',
        comment: 'true',
        dir: 'monitoring',
        ...spec.inputs,
      };
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NO_COLOR: '1',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: spec.event,
        GITHUB_EVENT_PATH: files.event,
        GITHUB_REPOSITORY: REPO,
        // For pull_request events GITHUB_SHA is the test merge commit, not the head the links must use.
        GITHUB_SHA: spec.event === 'pull_request' ? 'e'.repeat(40) : spec.sha,
        GITHUB_REF: spec.event === 'pull_request' ? `refs/pull/${PR}/merge` : 'refs/heads/main',
        GITHUB_WORKSPACE: spec.workspace,
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_API_URL: gh.url,
        GITHUB_STEP_SUMMARY: files.summary,
        GITHUB_OUTPUT: files.output,
        RUNNER_TEMP: runDir,
        ...spec.env,
        ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
      };
      return runner(env, files, spec.workspace);
    },
    newRepo: (project) => {
      const dir = join(tmp, 'repo');
      mkdirSync(dir);
      git(dir, 'init', '-q', '-b', 'main');
      const base = commit(dir, { 'monitoring/mac.config.yaml': `project: ${project}\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n` }, 'monitoring project');
      return { dir, base };
    },
    planComments: () => gh.comments.filter((c) => c.issue === `${REPO}#${PR}` && c.body.includes('<!-- mac-plan:monitoring -->')),
    async close() {
      await gh.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
  onTestFinished(() => scene.close());
  return scene;
}
