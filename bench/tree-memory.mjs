// CPU of the tree memory poller (src/runner/tree-memory.ts) while script runs are watched, against
// the floor it replaced: reading every process's /proc/<pid>/status at every poll (POLL_MS). Both
// watch the same tree (this process and a few idle children) for the same time in this process,
// alternated over several rounds so that a slow spell of a shared machine hits both; the figure is
// the median of the rounds' ratios (CPU of the poller / CPU of the full scan).
// Run after a build: `node bench/tree-memory.mjs`. Prints a human line and one JSON line.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternated, median } from './lib/figures.mjs';

const ROOT = new URL('..', import.meta.url);

/** CPU (ms, user+sys) of this process while `watch()` runs for `ms`. */
async function cpuWhile(ms, watch) {
  const before = process.cpuUsage();
  const stop = watch();
  await new Promise((resolve) => setTimeout(resolve, ms));
  stop();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The full scan at every poll: every process's status read, the tree summed (the floor). */
function fullScan(root, pollMs, parseStatus, descendants) {
  let scanning = false;
  const timer = setInterval(async () => {
    if (scanning) return;
    scanning = true;
    try {
      const procs = new Map();
      await Promise.all(
        (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(async (n) => {
          const text = await readFile(`/proc/${n}/status`, 'latin1').catch(() => null);
          const p = text && parseStatus(text);
          if (p) procs.set(p.pid, p);
        }),
      );
      const children = new Map();
      for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
      let bytes = 0;
      for (const pid of descendants(root, children)) bytes += procs.get(pid)?.bytes ?? 0;
      void bytes;
    } finally {
      scanning = false;
    }
  }, pollMs);
  return () => clearInterval(timer);
}

export async function main({ seconds = 10, rounds = 3, log = () => {} } = {}) {
  const tm = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'tree-memory.js')).href);
  // A tree like a script run's: the watched process with a few children.
  const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
  try {
    const processes = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).length;
    const mac = [];
    const floor = [];
    const ratios = [];
    const macSide = () => cpuWhile(seconds * 1000, () => tm.watchTreeMemory(process.pid, Number.MAX_SAFE_INTEGER, () => {}));
    const floorSide = () => cpuWhile(seconds * 1000, () => fullScan(process.pid, tm.POLL_MS, tm.parseStatus, tm.descendants));
    for (let round = 0; round < rounds; round++) {
      log(`tree-memory: round ${round + 1} of ${rounds}, ${seconds} s each side, ${processes} processes on the machine ...`);
      const [a, b] = await alternated(round, macSide, floorSide);
      mac.push(a / seconds);
      floor.push(b / seconds);
      ratios.push(a / b);
    }
    return {
      bench: 'tree-memory',
      seconds,
      rounds,
      processes,
      macCpuMsPerSecond: Math.round(median(mac)),
      floorCpuMsPerSecond: Math.round(median(floor)),
      ratios: ratios.map((x) => Math.round(x * 100) / 100),
      ratio: median(ratios),
    };
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await main({ log: (line) => console.error(line) });
  console.log(`tree memory poller: ${r.macCpuMsPerSecond} ms of CPU per second watched, a full scan at every poll ${r.floorCpuMsPerSecond} ms (${r.processes} processes); ratio ${r.ratio.toFixed(2)}`);
  console.log(JSON.stringify(r));
}
