import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceAccounts } from '../helpers/accounts.js';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { macIn } from '../helpers/mac-inprocess.js';
import { startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, tcpChecks, writeProject } from './apply-fixtures.js';

// apply through a faulty service is tested in process (test/integration/apply-chaos.test.ts);
// here, a real `mac apply` process killed with SIGKILL. One service for the file (latency keeps
// answers in flight when the kill lands); each case works in an account of its own, and the
// cases run at once. The re-run apply and plan after the kill run in process (macIn).
const CASES = [1, 12, 30];
const accounts = serviceAccounts('kill', CASES.length);
let served: Served;
beforeAll(async () => {
  served = await startServe(['--no-runs', '--latency', '150', ...accounts.args]);
});
afterAll(async () => {
  await served?.stop();
});

/** Every check of `n` exists exactly once (no duplicate, none missing). */
async function expectExactlyOnce(s: Served, project: string, n: number): Promise<void> {
  const counts = await checksByTag(s, project);
  const duplicates = [...counts].filter(([, k]) => k > 1);
  expect(duplicates).toEqual([]);
  expect(counts.size).toBe(n);
}

/** Starts `mac apply`, SIGKILLs it once the service holds at least `after` checks of the project, and returns how many exist then. */
async function applyKilledAfter(s: Served, dir: string, project: string, after: number): Promise<number> {
  const child = spawn(process.execPath, [MAC_BIN, 'apply', dir, '--yes', '--concurrency', '4'], { env: cleanEnv(connectionEnv(s)), stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let seen = 0;
  while (child.exitCode === null) {
    seen = [...(await checksByTag(s, project)).values()].reduce((a, b) => a + b, 0);
    if (seen >= after) {
      child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await exited;
  // Requests the killed process had already sent still land; count once the service is quiet.
  await new Promise((r) => setTimeout(r, 500));
  return [...(await checksByTag(s, project)).values()].reduce((a, b) => a + b, 0);
}

describe.concurrent('apply killed with SIGKILL', () => {
  const TOTAL = 80;
  it.each(CASES)('converges without duplicates when re-run after a kill at %i creates', async (after) => {
    // Latency keeps answers in flight when the kill lands: some creates are written but never acknowledged.
    // The project is large enough that a poll seeing the count late (a busy machine) still kills mid-way.
    const account = accounts.next(served);
    const dir = writeProject({ 'mac.config.yaml': config('kill'), 'checks.yaml': tcpChecks(TOTAL) });
    const seen = await applyKilledAfter(account, dir, 'kill', after);
    expect(seen).toBeGreaterThanOrEqual(after);
    expect(seen).toBeLessThan(TOTAL);

    const rerun = await macIn(account, ['apply', dir, '--yes']);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`applied ${TOTAL - seen}, failed 0`);
    await expectExactlyOnce(account, 'kill', TOTAL);
    expect((await macIn(account, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);
});
