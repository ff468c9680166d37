import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { allChecks, commit, git, tcpCheck } from '../helpers/action-bundle.js';
import { ACTION_TIMEOUT as TIMEOUT, actionFile } from '../helpers/action-inprocess.js';
import { apiOk } from '../helpers/serve.js';

// The committed Action bundle, imported once and run in the test's process
// (test/helpers/action-bundle.ts): what it never posts (keys, tokens, secrets, locked values) and
// what it never runs (a fork's *.mac.ts). test/e2e/action-bundle.test.ts runs the bundle as a process.
const action = actionFile();
const { scene } = action;

describe('the bundled action on pull_request: what the comment can be trusted with', () => {
  it.concurrent('never posts the API key, the GitHub token or a value read from the environment, even placed in a definition', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo, planComments } = await scene(onTestFinished);
    const { dir, base } = newRepo('shop-leak');
    const token = 'ghs_leaky_token_0123456789';
    const envSecret = 'db-password-from-env-42';
    const literal = 'literal-secret-in-yaml-77';
    const named = (id: string, name: string) => tcpCheck(id, 5432, JSON.stringify(name));
    const head = commit(
      dir,
      {
        'monitoring/checks/db.yaml': [
          named('leak-key', `key ${action.serve.apiKey}`),
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
    for (const secret of [action.serve.apiKey, token, envSecret, literal]) expect(posted).not.toContain(secret);

    // Invalid definitions: the annotations, the comment, the summary and the failure are scrubbed too.
    const bad = commit(dir, { 'monitoring/checks/bad.yaml': `kind: Tcp${action.serve.apiKey}\nid: bad\n` }, 'bad kind');
    const invalid = await runAction({ event: 'pull_request', workspace: dir, sha: bad, baseSha: base, inputs: { 'github-token': token }, env });
    expect(invalid.code).toBe(1);
    const annotations = invalid.stdout.split('\n').filter((l) => /^::(error|warning|notice)/.test(l));
    expect(annotations.join('\n')).toContain('Tcp***');
    for (const text of [annotations.join('\n'), planComments()[0].body, invalid.summary]) {
      for (const secret of [action.serve.apiKey, token, envSecret, literal]) expect(text).not.toContain(secret);
    }
  }, TIMEOUT);

  it.concurrent('a pull request reading /proc/self/environ or ${{ env.MAC_API_KEY }} fails at the field and posts neither the key nor the token', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo, planComments } = await scene(onTestFinished);
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
    const run = await runAction({ event: 'pull_request', workspace: dir, sha: head, baseSha: base, inputs: { 'github-token': token }, env: { MAC_API_KEY: action.serve.apiKey } });
    expect(run.code).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => /^::(error|warning|notice)/.test(l)).join('\n');
    expect(annotations).toMatch(/file=monitoring\/snippets\.yaml,line=4,col=\d+::.*outside the project/);
    expect(annotations).toMatch(/file=monitoring\/checks\/db\.yaml,line=3,col=\d+::.*MAC_API_KEY/);
    expect(annotations).toMatch(/file=monitoring\/mac\.config\.yaml,line=2,col=\d+::.*MAC_API_KEY cannot be declared/);
    const posted = [annotations, run.summary, ...gh.requests.map((r) => JSON.stringify(r.body ?? ''))].join('\n');
    expect(planComments()[0].body).toContain('monitoring/snippets.yaml:4');
    for (const secret of [action.serve.apiKey, token]) expect(posted).not.toContain(secret);
    // What the environment of the step held never reaches an output either.
    expect(posted).not.toMatch(/INPUT_API-KEY|INPUT_GITHUB-TOKEN|GITHUB_STEP_SUMMARY=/);
    expect(await allChecks(action.serve).then((all) => all.some((c) => c.tags.includes('mac:shop-environ/db-environ')))).toBe(false);
  }, TIMEOUT);

  it.concurrent('never posts a locked variable value nor a locked webhook header, created or changed, in the comment, summary, plan file or apply summary', async ({ expect, onTestFinished }) => {
    const { gh, tmp, runAction, newRepo, planComments } = await scene(onTestFinished);
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
    expect(await apiOk(action.serve, 'GET', '/v1/variables/SHOP_LOCKED')).toMatchObject({ value: values[2] });
    for (const text of seen) for (const v of values) expect(text).not.toContain(v);
  }, TIMEOUT);

  it.concurrent('typescript auto refuses a *.mac.ts file on a pull request from a fork before running any of it', async ({ expect, onTestFinished }) => {
    const { tmp, runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);
});

describe('the bundled action on a fork\'s pull request without secrets', () => {
  it.concurrent('succeeds with a notice saying why no plan ran, and loads, runs and posts nothing', async ({ expect, onTestFinished }) => {
    const { gh, tmp, runAction, newRepo } = await scene(onTestFinished);
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
  }, TIMEOUT);
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

  it.concurrent('is found in no comment, summary, annotation, log or output: details, changed fields, table, truncated', async ({ expect, onTestFinished }) => {
    const { gh, runAction, newRepo, planComments } = await scene(onTestFinished);
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
  }, TIMEOUT);
});
