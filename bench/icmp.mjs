// ICMP-monitor runs per second against 127.0.0.1 (one echo request each), next to a bare loop
// that spawns the same `ping -n -c 1 -4 -- 127.0.0.1` and waits for it. Each run of a monitor
// spawns ping too, so the ratio is what the runner adds to a process start: resolving the target,
// parsing the output, judging, building the result. Rounds alternate bare / runner; medians compared.
import { spawn } from 'node:child_process';
import { median } from './lib/figures.mjs';

/** Runs `one` with `concurrency` workers for `ms`: operations per second and this process's CPU ms per operation. */
async function rate(one, concurrency, ms) {
  const end = performance.now() + ms;
  let done = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await one();
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(c0);
  return { perSecond: done / ((performance.now() - t0) / 1000), cpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, done) };
}

/** Measures runner and bare loop; any failed run voids the figure. */
export async function main({ quick = false, log = () => {} } = {}) {
  const { runCheck } = await import('../dist/runner/index.js');
  const concurrency = 4;
  const rounds = quick ? 3 : 5;
  const roundMs = quick ? 1000 : 3000;
  const check = { checkType: 'ICMP', name: 'bench', doubleCheck: false, request: { hostname: '127.0.0.1', pingCount: 1 } };
  let failures = 0;
  const runner = async () => {
    const [r] = await runCheck(check);
    if (r.hasFailures || r.hasErrors) failures++;
  };
  const bare = () =>
    new Promise((resolve) => {
      const child = spawn('ping', ['-n', '-c', '1', '-4', '--', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', () => {
        failures++;
        resolve();
      });
      child.on('close', (code) => {
        if (code !== 0 || !out.includes(' received')) failures++;
        resolve();
      });
    });
  await rate(runner, concurrency, 300);
  await rate(bare, concurrency, 300);
  const r = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await rate(bare, concurrency, roundMs));
    r.push(await rate(runner, concurrency, roundMs));
    log(`icmp: round ${i + 1}/${rounds}: bare ${b.at(-1).perSecond.toFixed(0)}/s (${b.at(-1).cpuMs.toFixed(2)} CPU ms each), runner ${r.at(-1).perSecond.toFixed(0)}/s (${r.at(-1).cpuMs.toFixed(2)} CPU ms each)`);
  }
  const runnerRate = median(r.map((x) => x.perSecond));
  const bareRate = median(b.map((x) => x.perSecond));
  return {
    bench: 'icmp-runs',
    runsPerSecond: runnerRate,
    barePerSecond: bareRate,
    ratio: runnerRate / bareRate,
    runnerCpuMs: median(r.map((x) => x.cpuMs)),
    bareCpuMs: median(b.map((x) => x.cpuMs)),
    concurrency,
    rounds,
    failures,
  };
}
