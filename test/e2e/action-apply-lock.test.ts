import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runApply, type ActionRun } from '../../src/action/run.js';
import { apiOk, callApi, startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, tcpChecks, writeProject } from './apply-fixtures.js';

// The Action's apply (on merge) takes the same lock as `mac apply`: two workflow runs, or a
// workflow and a terminal, never write at once.
let served: Served | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await served?.stop();
  served = undefined;
});

describe('Action apply and the apply lock', () => {
  it('waits while another apply holds the lock, writes nothing meanwhile, then applies and releases it', async () => {
    served = await startServe(['--no-runs']);
    const dir = writeProject({ 'mac.config.yaml': config('merge'), 'checks.yaml': tcpChecks(3) });
    const work = mkdtempSync(join(tmpdir(), 'mac-action-lock-'));
    const summary = join(work, 'summary.md');
    writeFileSync(summary, '');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    vi.stubEnv('GITHUB_OUTPUT', join(work, 'output'));
    writeFileSync(join(work, 'output'), '');
    // Another apply (another runner) holds the lock; its lease ends in 3 s.
    const expires = new Date(Date.now() + 3_000).toISOString();
    const holder = { v: 1, user: 'octocat', host: 'runner-9', pid: 77, command: 'mac action apply', token: 't', started: new Date().toISOString(), expires };
    await apiOk(served, 'POST', '/v1/variables', { key: 'MAC_LOCK_MERGE', value: JSON.stringify(holder) });

    const run: ActionRun = {
      dir,
      connection: { apiUrl: served.url, apiKey: served.apiKey },
      inputs: { dir: '.', comment: false, prune: false, maxDeletes: 10, typescript: 'allow', lockTimeout: 300 },
      typescript: true,
      target: { ctx: { eventName: 'push', owner: 'o', repo: 'r', headSha: 'abc', serverUrl: 'https://github.com', workspace: dir }, projectDir: '.', comment: false, planFile: join(work, 'plan.json') },
      env: {},
      runnerEnv: { GITHUB_ACTOR: 'hubot', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: '42' },
      lockTimeoutSeconds: 300,
    };
    const logged: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (logged.push(String(chunk)), true));
    const applying = runApply(run);
    await new Promise((r) => setTimeout(r, 1_500));
    // Still held by the other run: nothing written yet.
    expect((await checksByTag(served, 'merge')).size).toBe(0);
    await applying.finally(() => spy.mockRestore());
    expect(logged.join('')).toMatch(/waiting up to \d+ s for the apply lock of project "merge", held by octocat@runner-9 pid 77/);
    expect(logged.join('')).toContain(`its lease expired at ${expires}`);
    expect([...(await checksByTag(served, 'merge')).values()]).toEqual([1, 1, 1]);
    expect((await callApi(served, 'GET', '/v1/variables/MAC_LOCK_MERGE')).status).toBe(404);
  }, 60_000);
});
