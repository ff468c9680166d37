import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const SERVE = fileURLToPath(new URL('../../../dist/cli/commands/serve.js', import.meta.url));

/**
 * The V8 flags of every measuring process. Two mechanisms of V8 read the clock rather than the
 * allocations, and on a machine shared with other work they, not the growing factor, decided the
 * peaks: the memory reducer (a timer that, when the process seems idle because it waits for a
 * core, shrinks the growth of V8 alone to 1.3), and the concurrent marker (threads that, starved,
 * finish a marking late while the allocation goes on, so a bounded heap overshoots to 2.1 times
 * its live size). Without them a collection starts, is stepped and ends at points of the
 * allocation sequence, whatever the load; the growing factor under test is the same code either way.
 */
const STEADY = ['--expose-gc', '--single-threaded-gc', '--no-memory-reducer'];

/**
 * In a process of its own (V8 flags are per process): about 70 MB of live objects, then 3 million
 * objects that live long enough to reach the old generation and die there, as run records do in
 * `mac serve`. Resolves to the highest heap use seen (sampled every 10,000 allocations) over the
 * live heap after a forced full collection (V8's heap statistics).
 */
function churn(bound: boolean, nodeFlags: string[] = []): Promise<number> {
  const script = `
    const { getHeapStatistics } = await import('node:v8');
    const { boundHeapGrowth } = await import(${JSON.stringify(SERVE)});
    if (${bound}) boundHeapGrowth();
    const used = () => getHeapStatistics().used_heap_size;
    const live = [];
    for (let i = 0; i < 200_000; i++) live.push({ i, s: 'x'.repeat(20) + i, a: [i, i + 1] });
    const ring = new Array(50_000);
    let top = 0;
    for (let n = 0; n < 3_000_000; n++) {
      ring[n % ring.length] = { n, s: 'y' + n, a: [n, n] };
      if (n % 10_000 === 0) top = Math.max(top, used());
    }
    gc();
    console.log(JSON.stringify({ peakOverLive: top / used(), live: live.length }));`;
  return new Promise((resolve, reject) => {
    // About 3.5 s of CPU each; the time limit is for a machine shared with other work.
    const child = spawn(process.execPath, [...STEADY, ...nodeFlags, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const figure = code === 0 ? (JSON.parse(out) as { peakOverLive: number }).peakOverLive : NaN;
      if (Number.isFinite(figure)) resolve(figure);
      else reject(new Error(`the measuring process ended with ${signal ?? `code ${code}`}: ${err.slice(0, 2000)}`));
    });
  });
}

/** A measurement, made again (at most twice more) when its process did not complete: a crash or time-out says nothing of the heap. */
async function measured(bound: boolean, nodeFlags: string[] = []): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await churn(bound, nodeFlags);
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

// Seen on a 2-core machine at load 18-40, with the flags above: V8 alone 3.9-5.2, bounded 2.1,
// a growing factor of 300% 4.9 (without them, at load 30, one measurement came out inverted: V8
// alone 1.3, bounded 2.1). The three workloads run side by side, at the same time on the same
// machine, and the tests compare them with each other rather than with a fixed figure of heap.
// Each is measured twice, and its figure is the higher peak: what a growing factor lets the heap
// reach. A collection that something else brings early (once, at load 38, both processes with a
// fixed factor peaked at 1.31) only lowers one peak, while a missing bound raises every one.
const WAVES = 2;
describe('mac serve bounds the growth of its heap between collections', () => {
  let free = 0;
  let bound = 0;
  let chosen = 0;
  beforeAll(async () => {
    for (let wave = 0; wave < WAVES; wave++) {
      const [f, b, c] = await Promise.all([measured(false), measured(true), measured(true, ['--heap-growing-percent=300'])]);
      [free, bound, chosen] = [Math.max(free, f), Math.max(bound, b), Math.max(chosen, c)];
    }
  }, 900_000);

  it('keeps the heap well below the peak V8 alone lets it reach on the same workload', () => {
    // The control: without the bound this workload grows the heap past twice its live size.
    expect(free, 'heap peak over live heap, V8 alone').toBeGreaterThan(2);
    expect(bound / free, `bounded ${bound.toFixed(2)} over V8 alone ${free.toFixed(2)}`).toBeLessThan(0.7);
  });

  it('leaves a growing factor chosen on the command line (node --heap-growing-percent=N) alone', () => {
    expect(chosen / bound, `--heap-growing-percent=300 ${chosen.toFixed(2)} over bounded ${bound.toFixed(2)}`).toBeGreaterThan(1.4);
  });
});
