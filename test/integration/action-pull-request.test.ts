import { describe, it } from 'vitest';
import { commit, PR, REPO, tcpCheck } from '../helpers/action-bundle.js';
import { ACTION_TIMEOUT as TIMEOUT, actionFile } from '../helpers/action-inprocess.js';
import { expectInert } from '../helpers/markup.js';

// The committed Action bundle on pull requests, imported once and run in the test's process
// (test/helpers/action-bundle.ts): the plan comment, its size, its fallbacks and what it shows.
// test/e2e/action-bundle.test.ts runs the bundle as a process.
const action = actionFile();
const { scene } = action;

describe('the bundled action on pull_request', () => {
  it.concurrent('keeps a 3,000-change plan comment under 60,000 characters and says what was cut', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('falls back to the job summary with a warning when the token may not comment (a fork)', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo } = await scene(onTestFinished);
    gh.readOnly = true;
    const { dir, base } = newRepo('shop-fork');
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-fork', 5432) }, 'fork change');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gh.comments).toHaveLength(0);
    expect(run.stdout).toMatch(/::warning::Could not comment on pull request #42/);
    expect(run.summary).toContain('could not be posted on the pull request');
    expect(run.summary).toContain('TcpCheck/db-fork');
  }, TIMEOUT);

  it.concurrent('plans everything, with a warning, when the base commit is not in a shallow clone', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir } = newRepo('shop-shallow');
    commit(dir, { 'monitoring/checks/a.yaml': tcpCheck('db-a', 5432) }, 'a');
    const head = commit(dir, { 'monitoring/checks/b.yaml': tcpCheck('db-b', 5433) }, 'b');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: 'f'.repeat(40), inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/::warning::The pull request's base commit fffffff is not in the clone, so the plan \(of every resource, as always\) cannot list the pull request's files first/);
    expect(run.outputs.create).toBe('2');
    expect(planComments()[0].body).not.toContain("this pull request's");
  }, TIMEOUT);
});

describe('the bundled action on pull_request: what the comment can be trusted with', () => {
  it.concurrent('shows diff lines as text and markdown do: subscriptions by logical id, one line per set member, defaults counted', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('never edits a look-alike marker comment written by someone else: it creates its own', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('shows a hostile resource name as text: it cannot close the details, add a marker, an image or a mention', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir, base } = newRepo('shop-hostile');
    const evil = '</details><!-- mac-plan:monitoring -->![x](http://evil) @octocat';
    const head = commit(dir, { 'monitoring/checks/db.yaml': tcpCheck('db-evil', 5432, JSON.stringify(evil)) }, 'evil name');
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: {} });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const body = planComments()[0].body;
    expect(body).toContain('<code>&lt;/details&gt;&lt;!-- mac-plan:monitoring --&gt;![x](http://evil) @octocat</code></summary>');
    expectInert(body, 1);
    expectInert(run.summary, 0);
  }, TIMEOUT);
});
