import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOptions, RunResult } from '../helpers/cli.js';
import { runMacIn, startServeIn } from '../helpers/mac-inprocess.js';
import type { Served } from '../helpers/serve.js';
import { checksByTag, config, connectionEnv, tcpChecks, writeProject } from '../e2e/apply-fixtures.js';

// apply through a faulty service, in process; the SIGKILL of a running apply stays in
// test/e2e/apply-chaos.test.ts.
let served: Served;
beforeAll(async () => {
  served = await startServeIn(['--no-runs', '--faults', '503:0.1,429:0.05,reset:0.02', '--rate-limit', '0/60']);
});
afterAll(async () => {
  await served?.stop();
});

/** Runs `mac ...args` in process against a served API. */
const mac = (s: Served, args: string[], opts: RunOptions = {}): Promise<RunResult> => runMacIn(args, { ...opts, env: connectionEnv(s) });

/** Every check of `n` exists exactly once (no duplicate, none missing). */
async function expectExactlyOnce(s: Served, project: string, n: number): Promise<void> {
  const counts = await checksByTag(s, project);
  const duplicates = [...counts].filter(([, k]) => k > 1);
  expect(duplicates).toEqual([]);
  expect(counts.size).toBe(n);
}

describe('apply under faults', () => {
  it('creates 300 checks exactly once through 503s, 429s and resets, and the next plan is empty', async () => {
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

