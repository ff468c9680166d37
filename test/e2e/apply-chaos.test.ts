import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, MAC_BIN } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, mac, tcpChecks, writeProject } from './apply-fixtures.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

/** Every check of `n` exists exactly once (no duplicate, none missing). */
async function expectExactlyOnce(s: Served, project: string, n: number): Promise<void> {
  const counts = await checksByTag(s, project);
  const duplicates = [...counts].filter(([, k]) => k > 1);
  expect(duplicates).toEqual([]);
  expect(counts.size).toBe(n);
}

describe('apply under faults', () => {
  it('creates 300 checks exactly once through 503s, 429s and resets, and the next plan is empty', async () => {
    served = await startServe(['--no-runs', '--faults', '503:0.1,429:0.05,reset:0.02', '--rate-limit', '0/60']);
    const dir = writeProject({ 'mac.config.yaml': config('chaos'), 'checks.yaml': tcpChecks(300) });
    // A change may still fail when every retry of a request meets a fault; a re-run converges.
    let runs = 0;
    let last;
    do {
      last = await mac(served, ['apply', dir, '--yes', '--concurrency', '16'], { timeoutMs: 170_000 });
      runs++;
      const counts = await checksByTag(served, 'chaos');
      expect([...counts].filter(([, k]) => k > 1)).toEqual([]);
    } while (last.code !== 0 && runs < 3);
    expect(last.code, last.stdout.slice(0, 2000) + last.stderr.slice(-2000)).toBe(0);
    await expectExactlyOnce(served, 'chaos', 300);
    let plan;
    do plan = await mac(served, ['plan', dir, '--detailed-exitcode']);
    while (plan.code === 1 && /failed: 5\d\d|ECONNRESET|socket/.test(plan.stderr));
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  }, 240_000);
});

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

describe('apply killed with SIGKILL', () => {
  const TOTAL = 80;
  it.each([1, 12, 30])('converges without duplicates when re-run after a kill at %i creates', async (after) => {
    // Latency keeps answers in flight when the kill lands: some creates are written but never acknowledged.
    // The project is large enough that a poll seeing the count late (a busy machine) still kills mid-way.
    served = await startServe(['--no-runs', '--latency', '150']);
    const dir = writeProject({ 'mac.config.yaml': config('kill'), 'checks.yaml': tcpChecks(TOTAL) });
    const seen = await applyKilledAfter(served, dir, 'kill', after);
    expect(seen).toBeGreaterThanOrEqual(after);
    expect(seen).toBeLessThan(TOTAL);

    const rerun = await mac(served, ['apply', dir, '--yes'], { timeoutMs: 120_000 });
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`applied ${TOTAL - seen}, failed 0`);
    await expectExactlyOnce(served, 'kill', TOTAL);
    expect((await mac(served, ['plan', dir, '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);
});
