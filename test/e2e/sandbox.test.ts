import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMac } from '../helpers/cli.js';
import { escapes, expected, expectErrors, indent, script, SECRET, startEscapeTarget, type EscapeTarget } from './sandbox-escapes.js';

// Escapes from the script sandbox, tried as a user would: multi-step scripts run by `mac test`
// (`mac serve` on its schedule: sandbox-serve.test.ts and sandbox-serve-accounts.test.ts). Each
// attempt must fail with a recorded error. The two tests are independent (a directory each) and
// run at once.
let target: EscapeTarget;
beforeAll(async () => {
  target = await startEscapeTarget();
});
afterAll(() => target?.close());

describe.concurrent('script sandbox escapes with mac test', () => {
  it('every escape fails with its recorded error; a plain script and a setup script adding a header pass; a teardown reads the response and its error fails the run', async () => {
    const dir = await target.tempDir('mac-sandbox-e2e-');
    const keysFile = join(dir, 'keys.json');
    await writeFile(keysFile, JSON.stringify({ keys: [{ key: SECRET, account: 'a', role: 'admin' }] }));
    await writeFile(join(dir, 'mac.config.yaml'), 'project: escapes\n');
    const tests = escapes({ keysFile, dbFile: join(dir, 'state.db'), pid: process.pid, cwdFile: join(dir, 'mac.config.yaml') });
    const docs = Object.entries(tests).map(([id, s]) => `kind: MultiStepCheck\nid: ${id}\nname: ${id}\ndoubleCheck: false\nscript: |\n${indent(s)}\n`);
    docs.push(`kind: MultiStepCheck\nid: plain\nname: plain\ndoubleCheck: false\nenvironmentVariables:\n  - { key: BASE, value: "${target.http.url}" }\nscript: |\n${indent(script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);", 60_000))}\n`);
    docs.push(`kind: Snippet\nid: add-token\nname: add token\nscript: |\n  await new Promise((r) => setTimeout(r, 5));\n  request.headers['x-token'] = 'tok-' + 'setup';\n`);
    const api = (id: string, extra: string) =>
      `kind: ApiCheck\nid: ${id}\nname: ${id}\ndoubleCheck: false\nrequest:\n  method: GET\n  url: ${target.http.url}/private\n  assertions:\n    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }\n${extra}`;
    docs.push(api('with-setup', 'setupSnippet: add-token\n'));
    docs.push(api('setup-throws', 'localSetupScript: "throw new Error(\'setup refused\')"\n'));
    // Teardown scripts read the response the setup's request got; a teardown's error is the run's.
    const readsResponse = "if (response.statusCode !== 200 || response.headers['content-type'] !== 'text/plain' || response.body !== 'secret page') throw new Error('teardown saw ' + response.statusCode + ' ' + response.body)";
    docs.push(api('with-teardown', `setupSnippet: add-token\nlocalTearDownScript: ${JSON.stringify(readsResponse)}\n`));
    docs.push(api('teardown-throws', `setupSnippet: add-token\nlocalTearDownScript: ${JSON.stringify("throw new Error('teardown refused ' + response.statusCode)")}\n`));
    await writeFile(join(dir, 'checks.yaml'), docs.join('---\n'));

    const r = await runMac(['test', dir, '--format', 'json'], { timeoutMs: 400_000 });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    const byId = Object.fromEntries(report.checks.map((c: any) => [c.id, c]));
    for (const [id, patterns] of Object.entries(expected)) {
      expect(byId[id].status, `${id}: ${byId[id].message}`).toBe('fail');
      expect(byId[id].message, id).toMatch(patterns[0]);
      expectErrors(byId[id].result.multiStepCheckResult.errors, patterns, id);
    }
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(byId.plain.status, byId.plain.message).toBe('pass');
    expect(byId['with-setup'].status, byId['with-setup'].message).toBe('pass');
    expect(byId['setup-throws']).toMatchObject({ status: 'fail', message: 'setup script failed: setup refused' });
    expect(byId['with-teardown'].status, byId['with-teardown'].message).toBe('pass');
    expect(byId['teardown-throws']).toMatchObject({ status: 'fail', message: 'teardown script failed: teardown refused 200' });
    expect(r.code).toBe(1);
  }, 420_000);

  it('without bubblewrap, mac test runs scripts unsandboxed with a one-line notice; --no-typescript still skips them', async () => {
    const dir = await target.tempDir('mac-sandbox-nobwrap-');
    await writeFile(join(dir, 'mac.config.yaml'), 'project: nobwrap\n');
    await writeFile(join(dir, 'checks.yaml'), `kind: MultiStepCheck\nid: plain\nname: plain\ndoubleCheck: false\nenvironmentVariables:\n  - { key: BASE, value: "${target.http.url}" }\nscript: |\n${indent(script('plain', "  expect((await request.get(process.env.BASE + '/health')).ok()).toBe(true);"))}\n`);
    // The two runs read the same project and write nothing to it: at once.
    const [r, skipped] = await Promise.all([
      runMac(['test', dir], { env: { MAC_BWRAP: '' }, timeoutMs: 120_000 }),
      runMac(['test', dir, '--no-typescript'], { env: { MAC_BWRAP: '' }, timeoutMs: 120_000 }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mac test: bubblewrap is not available: scripts run unsandboxed.*apt-get install -y bubblewrap/)]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain('multi-step scripts are code: not run with --no-typescript');
  }, 150_000);
});
