import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { expectInert } from '../helpers/markup.js';
import { apiOk, startServe, type Served } from '../helpers/serve.js';

// The committed bundle, run the way the Actions runner runs `runs.main` of action.yml.
const BUNDLE = fileURLToPath(new URL('../../dist-action/index.mjs', import.meta.url));
const REPO = 'acme/shop';
const PR = 42;

interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
}

interface RunSpec {
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

let serve: Served;
let gh: FakeGitHub;
let tmp: string;

beforeAll(async () => {
  serve = await startServe(['--rate-limit', '0/60', '--no-runs']);
});
afterAll(async () => {
  await serve?.stop();
});
beforeEach(async () => {
  gh = await startFakeGitHub();
  tmp = mkdtempSync(join(tmpdir(), 'mac-action-e2e-'));
  return async () => {
    await gh.close();
    rmSync(tmp, { recursive: true, force: true });
  };
});

/** Spawns the bundle with the environment the Actions runner gives a JavaScript action. */
function runAction(spec: RunSpec): Promise<ActionRun> {
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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE], { cwd: spec.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout, stderr, summary: readFileSync(files.summary, 'utf8'), outputs: parseOutputs(readFileSync(files.output, 'utf8')) }),
    );
  });
}

/** Reads the `name<<DELIMITER ... DELIMITER` records @actions/core writes to GITHUB_OUTPUT. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]] = m[3];
  return out;
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'ci', GIT_AUTHOR_EMAIL: 'ci@example.com', GIT_COMMITTER_NAME: 'ci', GIT_COMMITTER_EMAIL: 'ci@example.com' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A repository with a mac project in monitoring/: writes `files` and commits them, returning the sha. */
function commit(repo: string, files: Record<string, string>, message: string): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

function newRepo(project: string): { dir: string; base: string } {
  const dir = join(tmp, 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  const base = commit(dir, { 'monitoring/mac.config.yaml': `project: ${project}\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n` }, 'monitoring project');
  return { dir, base };
}

function tcpCheck(id: string, port: number, name = `Database ${id}`): string {
  return `kind: TcpCheck\nid: ${id}\nname: ${name}\nrequest: { hostname: ${id}.internal.example, port: ${port} }\n`;
}

/** Every check in the account, page by page. */
async function allChecks(): Promise<Array<{ id: string; tags: string[] }>> {
  const all: Array<{ id: string; tags: string[] }> = [];
  for (let page = 1; ; page++) {
    const batch = (await apiOk(serve, 'GET', `/v1/checks?limit=100&page=${page}`)) as Array<{ id: string; tags: string[] }>;
    all.push(...batch);
    if (batch.length < 100) return all;
  }
}

const planComments = () => gh.comments.filter((c) => c.issue === `${REPO}#${PR}` && c.body.includes('<!-- mac-plan:monitoring -->'));

describe('the bundled action on pull_request', () => {
  it('creates one comment, updates it on the next push, and leaves it alone when the plan is unchanged', async () => {
    const { dir, base } = newRepo('shop-pr');
    const head1 = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('db-primary', 5432), tcpCheck('db-replica', 5433)].join('---\n') }, 'add db checks');

    // actions/checkout leaves a pull request's commit detached: the branch comes from the event.
    git(dir, 'checkout', '-q', '--detach');
    const first = await runAction({ event: 'pull_request', workspace: dir, sha: head1, baseSha: base, inputs: {} });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(planComments()).toHaveLength(1);
    const comment = planComments()[0];
    expect(comment.body).toContain('**Plan:** 2 to create, 0 to update, 0 to delete');
    expect(comment.body).toContain(`https://github.com/${REPO}/blob/${head1}/monitoring/checks/db.yaml#L1`);
    expect(comment.body).toContain('<summary><code>+ create</code> <code>TcpCheck/db-primary</code>');
    expect(first.outputs).toMatchObject({ 'has-changes': 'true', create: '2', update: '0', delete: '0' });
    const plan = JSON.parse(readFileSync(first.outputs['plan-file'], 'utf8'));
    expect(plan).toMatchObject({ version: 1, project: 'shop-pr', summary: { create: 2 }, git: { commit: head1, branch: 'feature/db' } });
    expect(plan.changedSince).toEqual({ ref: base, files: ['checks/db.yaml'] });
    expect(first.summary).toContain('TcpCheck/db-replica');

    const head2 = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('db-primary', 6432), tcpCheck('db-replica', 5433)].join('---\n') }, 'port');
    const second = await runAction({ event: 'pull_request', workspace: dir, sha: head2, baseSha: base, inputs: {} });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(planComments()).toHaveLength(1);
    expect(planComments()[0].id).toBe(comment.id);
    expect(planComments()[0].body).toContain(`blob/${head2}/`);
    expect(gh.writes().map((w) => w.method)).toEqual(['POST', 'PATCH']);

    const third = await runAction({ event: 'pull_request', workspace: dir, sha: head2, baseSha: base, inputs: {} });
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(gh.writes().map((w) => w.method)).toEqual(['POST', 'PATCH']);
    expect(third.stdout).toContain('Plan comment unchanged');
  });

  it('keeps a 3,000-change plan comment under 60,000 characters and says what was cut', async () => {
    const { dir, base } = newRepo('shop-big');
    const docs = Array.from({ length: 3000 }, (_, i) => tcpCheck(`check-${i}`, 1000 + i));
    const head = commit(dir, { 'monitoring/checks/many.yaml': docs.join('---\n') }, 'many checks');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const [c] = planComments();
    expect(c.body.length).toBeLessThan(60_000);
    expect(c.body).toContain('**Plan:** 3000 to create');
    expect(c.body).toMatch(/Cut to stay under 60 kB: the diffs and changed fields were left out; \d+ of 3000 changes are not listed\./);
    expect(Buffer.byteLength(run.summary)).toBeLessThan(1024 * 1024);
    expect(run.summary).toContain('TcpCheck/check-2999');
    expect(run.outputs.create).toBe('3000');
  });

  it('falls back to the job summary with a warning when the token may not comment (a fork)', async () => {
    gh.readOnly = true;
    const { dir, base } = newRepo('shop-fork');
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-fork', 5432) }, 'fork change');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gh.comments).toHaveLength(0);
    expect(run.stdout).toMatch(/::warning::Could not comment on pull request #42/);
    expect(run.summary).toContain('could not be posted on the pull request');
    expect(run.summary).toContain('TcpCheck/db-fork');
  });

  it('plans everything, with a warning, when the base commit is not in a shallow clone', async () => {
    const { dir } = newRepo('shop-shallow');
    commit(dir, { 'monitoring/checks/a.yaml': tcpCheck('db-a', 5432) }, 'a');
    const head = commit(dir, { 'monitoring/checks/b.yaml': tcpCheck('db-b', 5433) }, 'b');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: 'f'.repeat(40), inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/::warning::The pull request's base commit fffffff is not in the clone, so the plan \(of every resource, as always\) cannot list the pull request's files first/);
    expect(run.outputs.create).toBe('2');
    expect(planComments()[0].body).not.toContain("this pull request's");
  });

  it('loads *.mac.ts definitions that import the helpers from the package', async () => {
    const { dir, base } = newRepo('shop-ts');
    const ts = "import { tcpCheck } from 'mac-monitoring';\n\nexport default tcpCheck({\n  id: 'api-ts',\n  name: 'API over TypeScript',\n  request: { hostname: 'api.internal.example', port: 443 },\n});\n";
    const head = commit(dir, { 'monitoring/checks/api.mac.ts': ts }, 'ts check');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(planComments()[0].body).toContain('<summary><code>+ create</code> <code>TcpCheck/api-ts</code> · <code>API over TypeScript</code></summary>');
    expect(planComments()[0].body).toContain(`blob/${head}/monitoring/checks/api.mac.ts#L4`);
  });

  it('replaces the plan comment when planning fails, without the reason', async () => {
    const { dir, base } = newRepo('shop-down');
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-down', 5432) }, 'db');
    expect((await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} })).code).toBe(0);
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: { 'api-url': 'http://127.0.0.1:9' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::.*127\.0\.0\.1:9/);
    expect(planComments()).toHaveLength(1);
    expect(planComments()[0].body).toContain('**The plan failed**');
    expect(planComments()[0].body).not.toContain('127.0.0.1:9');
    expect(run.summary).toContain('127.0.0.1:9');
  });

  it('annotates invalid definitions at file:line and fails', async () => {
    const { dir, base } = newRepo('shop-invalid');
    const head = commit(dir, { 'monitoring/checks/bad.yaml': 'kind: TcpCheck\nid: bad\nname: Bad\nrequest: { hostname: x.example, port: 99999 }\n' }, 'bad');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error title=mac%3A invalid definition,file=monitoring\/checks\/bad\.yaml,line=4,col=\d+::request\.port: /);
    expect(planComments()[0].body).toContain('**The definitions are invalid**');
  });
});

describe('the bundled action on pull_request: what the comment can be trusted with', () => {
  it('plans the whole project: drift outside the pull request\'s files is shown under "Also differs in the account"', async () => {
    const { dir } = newRepo('shop-drift');
    const applied = commit(dir, { 'monitoring/checks/a.yaml': tcpCheck('drift-a', 5432), 'monitoring/checks/b.yaml': tcpCheck('drift-b', 5433) }, 'two checks');
    expect((await runAction({ event: 'push', workspace: dir, sha: applied, inputs: {} })).code).toBe(0);
    // Someone edits check b by hand in the account.
    const checks = (await allChecks()) as Array<{ id: string; tags: string[] }>;
    const b = checks.find((c) => c.tags.includes('mac:shop-drift/drift-b'))!;
    await apiOk(serve, 'PUT', `/v1/checks/tcp/${b.id}?autoAssignAlerts=false`, { frequency: 30 });
    // The pull request changes only check a.
    git(dir, 'checkout', '-q', '-b', 'feature/a');
    const head = commit(dir, { 'monitoring/checks/a.yaml': tcpCheck('drift-a', 6432) }, 'port of a');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: applied, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const body = planComments()[0].body;
    expect(body).toContain('**Plan:** 0 to create, 2 to update, 0 to delete');
    expect(body).toContain("1 change is defined in this pull request's 1 changed file (listed first), **1 more differs in the account outside them**.");
    const ours = body.indexOf("#### In this pull request's files (1)");
    const also = body.indexOf("#### Also differs in the account (not in this PR's files) (1)");
    expect(ours).toBeGreaterThan(0);
    expect(also).toBeGreaterThan(ours);
    const a = body.indexOf('<code>TcpCheck/drift-a</code>');
    const bAt = body.indexOf('<code>TcpCheck/drift-b</code>');
    expect(a).toBeGreaterThan(ours);
    expect(a).toBeLessThan(also);
    expect(bAt).toBeGreaterThan(also);
    expect(body.slice(bAt)).toContain('! frequency: 30 -> 10');
    const plan = JSON.parse(readFileSync(run.outputs['plan-file'], 'utf8'));
    expect(plan.changedSince).toEqual({ ref: applied, files: ['checks/a.yaml'] });
    expect(plan.changes.filter((c: { action: string }) => c.action === 'update').map((c: { id: string; inChangedFiles?: boolean }) => [c.id, c.inChangedFiles ?? false])).toEqual([
      ['drift-a', true],
      ['drift-b', false],
    ]);

    // only-changed-since narrows, and says so first with what it left out.
    const narrowed = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: applied, inputs: { 'only-changed-since': applied } });
    expect(narrowed.code, narrowed.stdout + narrowed.stderr).toBe(0);
    const nb = planComments()[0].body;
    expect(nb.split('\n')[2]).toBe(`**Plan narrowed to files changed since \`${applied.slice(0, 7)}\`: 1 other change left out.**`);
    expect(nb).not.toContain('TcpCheck/drift-b');
    expect(narrowed.outputs.update).toBe('1');
  });

  it('shows diff lines as text and markdown do: subscriptions by logical id, one line per set member, defaults counted', async () => {
    const { dir, base } = newRepo('shop-lines');
    const channel = 'kind: AlertChannel\nid: oncall\ntype: EMAIL\nconfig: { address: oncall@example.com }\n';
    const created = commit(dir, { 'monitoring/alerts.yaml': channel, 'monitoring/checks/db.yaml': `${tcpCheck('db-lines', 5432)}alertChannels: [oncall]\n` }, 'check and channel');
    const pr = await runAction({ event: 'pull_request', workspace: dir, sha: created, baseSha: base, inputs: {} });
    expect(pr.code, pr.stdout + pr.stderr).toBe(0);
    const body = planComments()[0].body;
    const check = body.slice(body.indexOf('<code>TcpCheck/db-lines</code>'));
    expect(check).toContain('+ alertChannels: oncall\n');
    expect(check).toMatch(/\+ \d+ defaults\n/);
    expect(check).not.toMatch(/alertChannelSubscriptions|alertChannelId|degradedResponseTime/);
    expect((await runAction({ event: 'push', workspace: dir, sha: created, inputs: {} })).code).toBe(0);

    // One tag more on the pull request: one line, by value, never by index.
    const tagged = commit(dir, { 'monitoring/checks/db.yaml': `${tcpCheck('db-lines', 5432)}alertChannels: [oncall]\ntags: [team-db]\n` }, 'tag');
    const pr2 = await runAction({ event: 'pull_request', workspace: dir, sha: tagged, baseSha: created, inputs: {} });
    expect(pr2.code, pr2.stdout + pr2.stderr).toBe(0);
    const body2 = planComments()[0].body;
    expect(body2).toContain('```diff\n+ tags: "team-db"\n```');
    expect(body2).not.toMatch(/tags\[\d+\]/);
  }, 180_000); // three runs of the Action, each a Node process loading the 3 MB bundle

  it('never edits a look-alike marker comment written by someone else: it creates its own', async () => {
    const { dir, base } = newRepo('shop-lookalike');
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-look', 5432) }, 'db');
    const fake = gh.seed(`${REPO}#${PR}`, '<!-- mac-plan:monitoring -->\n\n### mac plan\n\nAll good, **No changes.** Merge away.\n', 'mallory');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gh.writes().map((w) => w.method)).toEqual(['POST']);
    expect(gh.comments.find((c) => c.id === fake.id)!.body).toContain('Merge away.');
    const ours = planComments().filter((c) => c.user.login === 'github-actions[bot]');
    expect(ours).toHaveLength(1);
    expect(ours[0].body).toContain('TcpCheck/db-look');
    expect(gh.requests.some((r) => r.method === 'GET' && r.path === '/user')).toBe(true);
  });

  it('shows a hostile resource name as text: it cannot close the details, add a marker, an image or a mention', async () => {
    const { dir, base } = newRepo('shop-hostile');
    const evil = '</details><!-- mac-plan:monitoring -->![x](http://evil) @octocat';
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-evil', 5432, JSON.stringify(evil)) }, 'evil name');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const body = planComments()[0].body;
    expect(body).toContain('<code>&lt;/details&gt;&lt;!-- mac-plan:monitoring --&gt;![x](http://evil) @octocat</code></summary>');
    expectInert(body, 1);
    expectInert(run.summary, 0);
  });

  it('never posts the API key, the GitHub token or a value read from the environment, even placed in a definition', async () => {
    const { dir, base } = newRepo('shop-leak');
    const token = 'ghs_leaky_token_0123456789';
    const envSecret = 'db-password-from-env-42';
    const literal = 'literal-secret-in-yaml-77';
    const named = (id: string, name: string) => tcpCheck(id, 5432, JSON.stringify(name));
    const head = commit(
      dir,
      {
        'monitoring/checks/db.yaml': [
          named('leak-key', `key ${serve.apiKey}`),
          named('leak-token', `token ${token}`),
          named('leak-env', 'env ${{ env.SHOP_DB_PASSWORD }}'),
          named('leak-literal', `literal ${literal}`),
        ].join('---\n'),
        'monitoring/vars.yaml': `kind: EnvironmentVariable\nkey: LEAK_LITERAL\nvalue: ${literal}\nsecret: true\n`,
        // The env allow-list: a definition reads only the names declared here.
        'monitoring/mac.config.yaml': 'project: shop-leak\nenv: [SHOP_DB_PASSWORD]\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n',
      },
      'leaky names',
    );
    const env = { SHOP_DB_PASSWORD: envSecret };
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: { 'github-token': token }, env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const posted = [planComments()[0].body, run.summary, ...gh.requests.map((r) => JSON.stringify(r.body ?? ''))].join('\n');
    expect(posted).toContain('TcpCheck/leak-key');
    expect(posted).toContain('key ***');
    expect(posted).toContain('token ***');
    // A value read from the environment is masked by the engine itself, before any scrubbing.
    expect(posted).toContain('<code>TcpCheck/leak-env</code> · <code>(sensitive)</code>');
    expect(posted).toContain('+ name: (sensitive)');
    expect(posted).toContain('literal ***');
    for (const secret of [serve.apiKey, token, envSecret, literal]) expect(posted).not.toContain(secret);

    // Invalid definitions: the annotations, the comment, the summary and the failure are scrubbed too.
    const bad = commit(dir, { 'monitoring/checks/bad.yaml': `kind: Tcp${serve.apiKey}\nid: bad\n` }, 'bad kind');
    const invalid = await runAction({ event: 'pull_request', workspace: dir, sha: bad, baseSha: base, inputs: { 'github-token': token }, env });
    expect(invalid.code).toBe(1);
    const annotations = invalid.stdout.split('\n').filter((l) => /^::(error|warning|notice)/.test(l));
    expect(annotations.join('\n')).toContain('Tcp***');
    for (const text of [annotations.join('\n'), planComments()[0].body, invalid.summary]) {
      for (const secret of [serve.apiKey, token, envSecret, literal]) expect(text).not.toContain(secret);
    }
  });

  it('a pull request reading /proc/self/environ or ${{ env.MAC_API_KEY }} fails at the field and posts neither the key nor the token', async () => {
    const { dir, base } = newRepo('shop-environ');
    const token = 'ghs_environ_token_9876543210';
    const head = commit(
      dir,
      {
        'monitoring/mac.config.yaml': 'project: shop-environ\nenv: [MAC_API_KEY]\ndefaults:\n  check: { locations: [eu-west-1], frequency: 10 }\n',
        'monitoring/snippets.yaml': 'kind: Snippet\nid: env-dump\nname: env-dump\nscriptFile: /proc/self/environ\n',
        'monitoring/checks/db.yaml': tcpCheck('db-environ', 5432, '"${{ env.MAC_API_KEY }}"'),
      },
      'read the environment',
    );
    // The workflow also hands the key to the step as MAC_API_KEY, as docs/action.md allows.
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: { 'github-token': token }, env: { MAC_API_KEY: serve.apiKey } });
    expect(run.code).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => /^::(error|warning|notice)/.test(l)).join('\n');
    expect(annotations).toMatch(/file=monitoring\/snippets\.yaml,line=4,col=\d+::.*outside the project/);
    expect(annotations).toMatch(/file=monitoring\/checks\/db\.yaml,line=3,col=\d+::.*MAC_API_KEY/);
    expect(annotations).toMatch(/file=monitoring\/mac\.config\.yaml,line=2,col=\d+::.*MAC_API_KEY cannot be declared/);
    const posted = [annotations, run.summary, ...gh.requests.map((r) => JSON.stringify(r.body ?? ''))].join('\n');
    expect(planComments()[0].body).toContain('monitoring/snippets.yaml:4');
    for (const secret of [serve.apiKey, token]) expect(posted).not.toContain(secret);
    // What the environment of the step held never reaches an output either.
    expect(posted).not.toMatch(/INPUT_API-KEY|INPUT_GITHUB-TOKEN|GITHUB_STEP_SUMMARY=/);
    expect(await allChecks().then((all) => all.some((c) => c.tags.includes('mac:shop-environ/db-environ')))).toBe(false);
  });

  it('never posts a locked variable value nor a locked webhook header, created or changed, in the comment, summary, plan file or apply summary', async () => {
    const { dir, base } = newRepo('shop-locked');
    const values = ['locked-var-A1b2', 'Bearer hook-C3d4', 'locked-var-E5f6', 'Bearer hook-G7h8'];
    const resources = (value: string, header: string) =>
      [
        `kind: EnvironmentVariable\nkey: SHOP_LOCKED\nvalue: ${value}\nlocked: true\n`,
        `kind: AlertChannel\nid: hook\ntype: WEBHOOK\nconfig:\n  name: ops hook\n  url: https://hooks.example/ops\n  headers:\n    - { key: Authorization, value: "${header}", locked: true }\n`,
        // The same values copied where nothing masks them: the scrubber still keeps them out of what is posted.
        tcpCheck('copies', 5432, JSON.stringify(`copy ${values[0]} ${values[1]}`)),
      ].join('---\n');
    const seen: string[] = [];
    const created = commit(dir, { 'monitoring/resources.yaml': resources(values[0], values[1]) }, 'locked');
    const pr = await runAction({ event: 'pull_request', workspace: dir, sha: created, baseSha: base, inputs: {} });
    expect(pr.code, pr.stdout + pr.stderr).toBe(0);
    seen.push(planComments()[0].body, pr.summary, pr.stdout);
    expect(planComments()[0].body).toContain('+ value: (sensitive)');
    expect(planComments()[0].body).toContain('<code>copy *** ***</code>');
    // The plan file holds the copies (as `mac plan --out` would), never the masked values themselves.
    const planFile = (text: string) => JSON.stringify(JSON.parse(text).changes.filter((c: { id: string }) => c.id !== 'copies'));
    const applied = await runAction({ event: 'push', workspace: dir, sha: created, inputs: {} });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    seen.push(applied.summary, applied.stdout);

    git(dir, 'checkout', '-q', '-b', 'feature/rotate');
    const rotated = commit(dir, { 'monitoring/resources.yaml': resources(values[2], values[3]) }, 'rotate');
    const pr2 = await runAction({ event: 'pull_request', workspace: dir, sha: rotated, baseSha: created, inputs: {} });
    expect(pr2.code, pr2.stdout + pr2.stderr).toBe(0);
    const body = planComments()[0].body;
    expect(body).toContain('! value: (sensitive) -> (sensitive)');
    expect(body).toContain('! config.headers[0].value: (sensitive) -> (sensitive)');
    seen.push(body, pr2.summary, pr2.stdout, planFile(readFileSync(pr.outputs['plan-file'], 'utf8')), planFile(readFileSync(pr2.outputs['plan-file'], 'utf8')));
    seen.push(...gh.requests.map((r) => JSON.stringify(r.body ?? '')));
    const reviewed = join(tmp, 'locked-plan.json');
    writeFileSync(reviewed, readFileSync(pr2.outputs['plan-file']));
    const applied2 = await runAction({ event: 'push', workspace: dir, sha: rotated, inputs: { 'plan-file': reviewed } });
    expect(applied2.code, applied2.stdout + applied2.stderr).toBe(0);
    seen.push(applied2.summary, applied2.stdout);
    expect(await apiOk(serve, 'GET', '/v1/variables/SHOP_LOCKED')).toMatchObject({ value: values[2] });
    for (const text of seen) for (const v of values) expect(text).not.toContain(v);
  });

  it('typescript auto refuses a *.mac.ts file on a pull request from a fork before running any of it', async () => {
    const { dir, base } = newRepo('shop-fork-ts');
    const marker = join(tmp, 'ts-ran.txt');
    const ts = [
      "import { writeFileSync } from 'node:fs';",
      "import { tcpCheck } from 'mac-monitoring';",
      `writeFileSync(${JSON.stringify(marker)}, 'ran');`,
      "export default tcpCheck({ id: 'ts-ran', name: 'Ran', request: { hostname: 'ran.example', port: 1 } });",
    ].join('\n');
    const head = commit(dir, { 'monitoring/checks/evil.mac.ts': ts, 'monitoring/checks/db.yaml': tcpCheck('db-ts', 5432) }, 'ts from a fork');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {}, fork: true });
    expect(run.code).toBe(1);
    expect(existsSync(marker)).toBe(false);
    expect(run.stdout).toMatch(/::error title=mac%3A invalid definition,file=monitoring\/checks\/evil\.mac\.ts,line=1,col=1::TypeScript definitions are refused here \(input typescript: auto\): a \*\.mac\.ts file is code/);
    expect(run.stdout).toMatch(/::error::1 error in the definitions; nothing was planned\. First: monitoring\/checks\/evil\.mac\.ts:1:1/);
    expect(planComments()[0].body).toContain('monitoring/checks/evil.mac.ts:1:1');

    // The same pull request from a branch of the repository itself runs it (typescript: auto allows).
    const same = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    // typescript: deny refuses it whatever the event.
    const denied = await runAction({ event: 'workflow_dispatch', workspace: dir, sha: head, inputs: { command: 'plan', typescript: 'deny' } });
    expect(denied.code).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('the bundled action on push with plan-file: apply what was reviewed', () => {
  it('applies the pull request\'s saved plan exactly, and refuses it once the account moved', async () => {
    const { dir, base } = newRepo('shop-reviewed');
    const head = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('rev-a', 5432), tcpCheck('rev-b', 5433)].join('---\n') }, 'two checks');
    const pr = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(pr.code, pr.stdout + pr.stderr).toBe(0);
    const reviewed = join(tmp, 'reviewed-plan.json');
    writeFileSync(reviewed, readFileSync(pr.outputs['plan-file']));

    // The merge commit holds one more check than was reviewed: only the reviewed plan is applied.
    const merged = commit(dir, { 'monitoring/checks/extra.yaml': tcpCheck('rev-extra', 5434) }, 'unreviewed extra');
    const apply = await runAction({ event: 'push', workspace: dir, sha: merged, inputs: { 'plan-file': reviewed } });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.summary).toMatch(/\| ✅ \| applied \| create \| `TcpCheck\/rev-a` \|/);
    expect(apply.summary).toMatch(/\| ✅ \| applied \| create \| `TcpCheck\/rev-b` \|/);
    const tags = (await allChecks()).flatMap((c) => c.tags);
    expect(tags).toContain('mac:shop-reviewed/rev-a');
    expect(tags).not.toContain('mac:shop-reviewed/rev-extra');

    // A second reviewed plan (a port change) goes stale when the check is edited by hand before the merge.
    const head2 = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('rev-a', 6432), tcpCheck('rev-b', 5433)].join('---\n') }, 'port');
    const pr2 = await runAction({ event: 'pull_request', workspace: dir, sha: head2, baseSha: merged, inputs: {} });
    expect(pr2.code, pr2.stdout + pr2.stderr).toBe(0);
    writeFileSync(reviewed, readFileSync(pr2.outputs['plan-file']));
    const checks = await allChecks();
    const a = checks.find((c) => c.tags.includes('mac:shop-reviewed/rev-a'))!;
    await apiOk(serve, 'PUT', `/v1/checks/tcp/${a.id}?autoAssignAlerts=false`, { frequency: 30 });
    const stale = await runAction({ event: 'push', workspace: dir, sha: head2, inputs: { 'plan-file': reviewed } });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/::error::the plan is stale: 1 object moved since it was written/);
    expect(stale.stdout).toMatch(/hint: the account changed since the plan was reviewed \(another merge applied first, or a change by hand\): nothing of this plan was applied/);
    expect(stale.summary).toContain('### mac apply: refused (stale plan)');
    // The apply workflow plans again on this output.
    expect(stale.outputs.stale).toBe('true');
    expect(stale.summary).toContain('Nothing was changed.');
    const after = (await apiOk(serve, 'GET', `/v1/checks/${a.id}`)) as { request: { port: number }; frequency: number };
    expect(after).toMatchObject({ frequency: 30, request: { port: 5432 } });
   }, 240_000);
});

describe('the bundled action on a fork\'s pull request without secrets', () => {
  it('succeeds with a notice saying why no plan ran, and loads, runs and posts nothing', async () => {
    const { dir, base } = newRepo('shop-fork-nokey');
    // A *.mac.ts file that would leave a mark if it ran: without a key nothing is even loaded.
    const mark = join(tmp, 'ran.txt');
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-nokey', 5432), 'monitoring/checks/x.mac.ts': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, 'ran');\nexport default [];\n` }, 'fork change');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, fork: true, inputs: { 'api-key': '' } });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^::notice title=mac plan skipped::No plan: pull request #42 comes from a fork, and GitHub gives a fork's pull request no secrets, so there is no API key/m);
    expect(run.summary).toContain('### mac plan skipped');
    expect(run.stdout).not.toMatch(/::error/);
    expect(existsSync(mark)).toBe(false);
    expect(gh.requests).toHaveLength(0);
    expect(run.outputs['has-changes']).toBeUndefined();

    // The same run from this repository's own branch has no excuse: a missing key fails it.
    const own = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: { 'api-key': '', 'api-url': 'https://monitoring.example' } });
    expect(own.code).toBe(1);
    expect(own.stdout).toMatch(/::error::no API key for https:\/\/monitoring\.example/);
  });
});

describe('a multi-line secret holding | in every layout', () => {
  // What a PEM key or a generated password may hold: newlines, `|`, `<`, `"`.
  const SECRET = 'pem|Line-One-AAAA1\n<two> "line" |BBBB2\nthird-line-CCCC3';
  const PARTS = ['Line-One-AAAA1', 'AAAA1', 'BBBB2', 'CCCC3', 'pem|Line', 'pem\\|Line'];
  const resources = (n: number) =>
    [
      // A secret value written literally: masked by the plan, and scrubbed wherever a file copies it.
      `kind: EnvironmentVariable\nkey: PEM_SECRET\nvalue: ${JSON.stringify(SECRET)}\nsecret: true\n`,
      tcpCheck('aaa-secret', 5432, JSON.stringify(SECRET)),
      ...Array.from({ length: n }, (_, i) => tcpCheck(`filler-${String(i).padStart(4, '0')}-with-a-longer-id-to-fill-rows`, 1000 + i, `Filler check number ${i} with a long enough name`)),
    ].join('---\n');

  it('is found in no comment, summary, annotation, log or output: details, changed fields, table, truncated', async () => {
    const { dir, base } = newRepo('shop-pem');
    const seen: string[] = [];
    const levels: string[] = [];
    // 0 fillers: every diff shown; 150: the changed-fields table; 1200: the table, cut.
    for (const [i, n] of [0, 150, 1200].entries()) {
      const head = commit(dir, { 'monitoring/resources.yaml': resources(n) }, `resources ${i}`);
      const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const body = planComments()[0].body;
      expect(body).toContain('TcpCheck/aaa-secret');
      levels.push(body.includes('<details>') ? 'details' : body.includes('| changed fields |') ? 'fields' : /…and \d+ more changes not listed/.test(body) ? 'truncated' : 'table');
      expect(run.summary).toContain('TcpCheck/aaa-secret');
      seen.push(body, run.summary, run.stdout, run.stderr, JSON.stringify(run.outputs), ...gh.requests.map((r) => JSON.stringify(r.body ?? '')));
    }
    expect(levels).toEqual(['details', 'fields', 'truncated']);
    // The summary of the largest run shows every diff: the details layout there too.
    expect(seen.join('\n')).toContain('<summary><code>+ create</code> <code>TcpCheck/aaa-secret</code> · <code>***</code></summary>');
    expect(seen.join('\n')).toMatch(/`TcpCheck\/aaa-secret` · `\*\*\*`/);
    const all = seen.join('\n');
    for (const part of PARTS) expect(all, part).not.toContain(part);
  }, 240_000);
});

describe('the bundled action on push', () => {
  it('applies and writes the applied / failed / skipped table to the job summary', async () => {
    const { dir } = newRepo('shop-apply');
    const head = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('db-a', 5432), tcpCheck('db-b', 5433)].join('---\n') }, 'checks');
    const run = await runAction({ event: 'push', workspace: dir, sha: head, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.summary).toContain('### mac apply');
    // The repository's name is never masked in the summary's links (the lock reads it from the run, unwatched).
    expect(run.summary).toContain(`https://github.com/${REPO}/blob/${head}/monitoring/checks/db.yaml#L1`);
    expect(run.summary).not.toContain('github.com/***');
    expect(run.summary).toMatch(/\| ✅ \| applied \| create \| `TcpCheck\/db-a` \|/);
    expect(run.summary).toMatch(/\| ✅ \| applied \| create \| `TcpCheck\/db-b` \|/);
    expect(gh.requests).toHaveLength(0);

    // The account now matches: a plan of the same commit has nothing to do.
    const again = await runAction({ event: 'workflow_dispatch', workspace: dir, sha: head, inputs: { command: 'plan' } });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.outputs['has-changes']).toBe('false');
  });

  it('fails the job when a change fails, with the failure in the table and an annotation', async () => {
    const { dir } = newRepo('shop-fail');
    // The service refuses a check in a group that does not exist: valid offline, rejected live.
    const orphan = `${tcpCheck('db-orphan', 5434)}groupId: 424242\n`;
    const head = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('db-ok', 5432), orphan].join('---\n') }, 'checks');
    const run = await runAction({ event: 'push', workspace: dir, sha: head, inputs: {} });
    expect(run.code).toBe(1);
    expect(run.summary).toMatch(/\| ✅ \| applied \| create \| `TcpCheck\/db-ok` \|/);
    expect(run.summary).toMatch(/\| ❌ \| failed \| create \| `TcpCheck\/db-orphan` \|/);
    expect(run.stdout).toMatch(/::error title=mac%3A create failed::TcpCheck\/db-orphan: /);
    expect(run.stdout).toMatch(/::error::apply incomplete: 1 applied, 1 failed, 0 skipped/);
  });

  it('refuses more deletions than max-deletes and fails the job', async () => {
    const { dir } = newRepo('shop-guard');
    const all = Array.from({ length: 4 }, (_, i) => tcpCheck(`g-${i}`, 7000 + i));
    const head = commit(dir, { 'monitoring/checks/g.yaml': all.join('---\n') }, 'four');
    expect((await runAction({ event: 'push', workspace: dir, sha: head, inputs: {} })).code).toBe(0);
    const fewer = commit(dir, { 'monitoring/checks/g.yaml': all[0] }, 'drop three');
    const run = await runAction({ event: 'push', workspace: dir, sha: fewer, inputs: { prune: 'true', 'max-deletes': '2' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::the plan deletes 3 resources, more than --max-deletes 2.*%0Ahint: .*set the input max-deletes to 3/);
    expect(run.summary).toContain('### mac apply: refused');
    expect(run.summary).toContain('Nothing was changed.');
  });
});
