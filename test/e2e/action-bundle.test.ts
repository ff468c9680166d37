import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { actionScene, commit, git, REPO, spawnBundle, tcpCheck } from '../helpers/action-bundle.js';
import { startServe, type Served } from '../helpers/serve.js';

// The committed bundle run as the Actions runner runs `runs.main` of action.yml: `node
// dist-action/index.mjs`, a process that must end with the right exit code. What a run does
// (the comment, the summary, what is never posted, the apply) is tested with the bundle in the
// test's process: test/integration/action-*.test.ts.
let serve: Served;
beforeAll(async () => {
  serve = await startServe(['--rate-limit', '0/60', '--no-runs']);
});
afterAll(async () => {
  await serve?.stop();
});
// The cases of the file run at once, each running the bundle one to three times: under load a case
// takes minutes, which a hang detector must allow.
const TIMEOUT = 300_000;
const scene = (onTestFinished: (fn: () => Promise<void>) => void) => actionScene(serve, spawnBundle, onTestFinished);

describe('the bundled action on pull_request', () => {
  it.concurrent('creates one comment, updates it on the next push, and leaves it alone when the plan is unchanged', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('loads *.mac.ts definitions that import the helpers from the package', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir, base } = newRepo('shop-ts');
    const ts = "import { tcpCheck } from 'mac-monitoring';\n\nexport default tcpCheck({\n  id: 'api-ts',\n  name: 'API over TypeScript',\n  request: { hostname: 'api.internal.example', port: 443 },\n});\n";
    const head = commit(dir, { 'monitoring/checks/api.mac.ts': ts }, 'ts check');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(planComments()[0].body).toContain('<summary><code>+ create</code> <code>TcpCheck/api-ts</code> · <code>API over TypeScript</code></summary>');
    expect(planComments()[0].body).toContain(`blob/${head}/monitoring/checks/api.mac.ts#L4`);
  }, TIMEOUT);

  it.concurrent('replaces the plan comment when planning fails, without the reason', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('annotates invalid definitions at file:line and fails', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir, base } = newRepo('shop-invalid');
    const head = commit(dir, { 'monitoring/checks/bad.yaml': 'kind: TcpCheck\nid: bad\nname: Bad\nrequest: { hostname: x.example, port: 99999 }\n' }, 'bad');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error title=mac%3A invalid definition,file=monitoring\/checks\/bad\.yaml,line=4,col=\d+::request\.port: /);
    expect(planComments()[0].body).toContain('**The definitions are invalid**');
  }, TIMEOUT);
});

describe('the bundled action on push', () => {
  it.concurrent('fails the job when a change fails, with the failure in the table and an annotation', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo } = await scene(onTestFinished);
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
  }, TIMEOUT);
});
