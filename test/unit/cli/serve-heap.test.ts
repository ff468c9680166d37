import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVE = fileURLToPath(new URL('../../../dist/cli/commands/serve.js', import.meta.url));

/**
 * In a process of its own (V8 flags are per process): about 70 MB of live objects, then 3 million
 * objects that live long enough to reach the old generation and die there, as run records do in
 * `mac serve`. Returns the highest heapUsed seen, over the live heap after a full collection.
 */
function churn(bound: boolean, nodeFlags: string[] = []): number {
  const script = `
    const { boundHeapGrowth } = await import(${JSON.stringify(SERVE)});
    if (${bound}) boundHeapGrowth();
    const live = [];
    for (let i = 0; i < 200_000; i++) live.push({ i, s: 'x'.repeat(20) + i, a: [i, i + 1] });
    const ring = new Array(50_000);
    let top = 0;
    for (let n = 0; n < 3_000_000; n++) {
      ring[n % ring.length] = { n, s: 'y' + n, a: [n, n] };
      if (n % 10_000 === 0) top = Math.max(top, process.memoryUsage().heapUsed);
    }
    gc();
    console.log(top / process.memoryUsage().heapUsed, live.length);`;
  const r = spawnSync(process.execPath, ['--expose-gc', ...nodeFlags, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 240_000 });
  // About 2 s of CPU; the bound is wide for a machine shared with other work.
  expect(r.status, r.error ? String(r.error) : r.stderr).toBe(0);
  return Number(r.stdout.split(' ')[0]);
}

// Seen on a 2-core machine: V8 alone 4.7-4.9; bounded 1.3, or 2.1 when the machine is busy
// (allocation runs on while the marking is under way); a growing factor of 300% 4.9. On a machine
// loaded far past its cores (load 30 on 2) one measurement came out inverted (V8 alone 1.3,
// bounded 2.1): the collector's threads starve and the peaks say nothing. So each test measures
// its workloads side by side (the same machine, the same minute), compares them with each other
// rather than with a fixed figure, and measures again (up to 3 more times) when a comparison
// fails; a bound that does not work fails every time.
describe('mac serve bounds the growth of its heap between collections', () => {
  it('keeps the heap well below the peak V8 alone lets it reach on the same workload', { retry: 3, timeout: 600_000 }, () => {
    const free = churn(false);
    const bound = churn(true);
    // The control: without the bound this workload grows the heap past twice its live size.
    expect(free, 'heap peak over live heap, V8 alone').toBeGreaterThan(2);
    expect(bound / free, `bounded ${bound.toFixed(2)} over V8 alone ${free.toFixed(2)}`).toBeLessThan(0.7);
  });

  it('leaves a growing factor chosen on the command line (node --heap-growing-percent=N) alone', { retry: 3, timeout: 600_000 }, () => {
    const bound = churn(true);
    const chosen = churn(true, ['--heap-growing-percent=300']);
    expect(chosen / bound, `--heap-growing-percent=300 ${chosen.toFixed(2)} over bounded ${bound.toFixed(2)}`).toBeGreaterThan(1.4);
  });
});
