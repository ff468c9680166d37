import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { allChecks, commit, git, REPO, tcpCheck } from '../helpers/action-bundle.js';
import { ACTION_TIMEOUT as TIMEOUT, actionFile } from '../helpers/action-inprocess.js';
import { apiOk } from '../helpers/serve.js';

// The committed Action bundle, imported once and run in the test's process
// (test/helpers/action-bundle.ts): the whole-project plan against drift, and the apply on push
// (of the project, of a reviewed plan file). test/e2e/action-bundle.test.ts runs the bundle as a process.
const action = actionFile();
const { scene } = action;

describe('the bundled action on pull_request: what the comment can be trusted with', () => {
  it.concurrent('plans the whole project: drift outside the pull request\'s files is shown under "Also differs in the account"', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir } = newRepo('shop-drift');
    const applied = commit(dir, { 'monitoring/checks/a.yaml': tcpCheck('drift-a', 5432), 'monitoring/checks/b.yaml': tcpCheck('drift-b', 5433) }, 'two checks');
    expect((await runAction({ event: 'push', workspace: dir, sha: applied, inputs: {} })).code).toBe(0);
    // Someone edits check b by hand in the account.
    const checks = (await allChecks(action.serve)) as Array<{ id: string; tags: string[] }>;
    const b = checks.find((c) => c.tags.includes('mac:shop-drift/drift-b'))!;
    await apiOk(action.serve, 'PUT', `/v1/checks/tcp/${b.id}?autoAssignAlerts=false`, { frequency: 30 });
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
  }, TIMEOUT);
});

describe('the bundled action on push with plan-file: apply what was reviewed', () => {
  it.concurrent('applies the pull request\'s saved plan exactly, and refuses it once the account moved', async ({ expect, onTestFinished }) => {
    const { tmp, runAction, newRepo } = await scene(onTestFinished);
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
    const tags = (await allChecks(action.serve)).flatMap((c) => c.tags);
    expect(tags).toContain('mac:shop-reviewed/rev-a');
    expect(tags).not.toContain('mac:shop-reviewed/rev-extra');

    // A second reviewed plan (a port change) goes stale when the check is edited by hand before the merge.
    const head2 = commit(dir, { 'monitoring/checks/db.yaml': [tcpCheck('rev-a', 6432), tcpCheck('rev-b', 5433)].join('---\n') }, 'port');
    const pr2 = await runAction({ event: 'pull_request', workspace: dir, sha: head2, baseSha: merged, inputs: {} });
    expect(pr2.code, pr2.stdout + pr2.stderr).toBe(0);
    writeFileSync(reviewed, readFileSync(pr2.outputs['plan-file']));
    const checks = await allChecks(action.serve);
    const a = checks.find((c) => c.tags.includes('mac:shop-reviewed/rev-a'))!;
    await apiOk(action.serve, 'PUT', `/v1/checks/tcp/${a.id}?autoAssignAlerts=false`, { frequency: 30 });
    const stale = await runAction({ event: 'push', workspace: dir, sha: head2, inputs: { 'plan-file': reviewed } });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/::error::the plan is stale: 1 object moved since it was written/);
    expect(stale.stdout).toMatch(/hint: the account changed since the plan was reviewed \(another merge applied first, or a change by hand\): nothing of this plan was applied/);
    expect(stale.summary).toContain('### mac apply: refused (stale plan)');
    // The apply workflow plans again on this output.
    expect(stale.outputs.stale).toBe('true');
    expect(stale.summary).toContain('Nothing was changed.');
    const after = (await apiOk(action.serve, 'GET', `/v1/checks/${a.id}`)) as { request: { port: number }; frequency: number };
    expect(after).toMatchObject({ frequency: 30, request: { port: 5432 } });
  }, TIMEOUT);
});

describe('the bundled action on push', () => {
  it.concurrent('applies and writes the applied / failed / skipped table to the job summary', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo } = await scene(onTestFinished);
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
  }, TIMEOUT);

  it.concurrent('refuses more deletions than max-deletes and fails the job', async ({ expect, onTestFinished }) => {
    const { runAction, newRepo } = await scene(onTestFinished);
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
  }, TIMEOUT);
});
