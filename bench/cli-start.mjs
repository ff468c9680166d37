// What a start of the CLI costs: CPU seconds (user + system) of `mac --version`, `mac --help`,
// `mac plan --help`, `mac validate examples`, `mac plan` of a starter project against a local
// `mac serve --no-runs`, and `mac serve` until it listens; against the floor of a bare `node -e 0`.
// Run after a build: `node bench/cli-start.mjs [--runs N] [--baseline DIR]`, where DIR is another
// built checkout (its bin/mac.js), measured in the same rounds, side by side, to compare.
// CPU rather than wall time: on a shared machine the wall time of a start is mostly waiting (the
// service's wall time to listening is given too, the builds alternating so that both see the same load).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Clock ticks per second of /proc/PID/stat (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** CPU ms (user + system) of one process run to its end, read by itself at exit through a preloaded module. */
async function cpuOfRun(args, { cwd, env, preload }) {
  const out = join(await mkdtemp(join(tmpdir(), 'mac-cpu-')), 'cpu.json');
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', preload, ...args], {
      cwd,
      env: { ...env, MAC_BENCH_CPU_FILE: out },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const { user, system } = JSON.parse(await readFile(out, 'utf8'));
  await rm(join(out, '..'), { recursive: true, force: true });
  return { ms: (user + system) / 1000, user: user / 1000, system: system / 1000, code };
}

/**
 * `mac serve --port 0 --no-runs` of `bin` until it prints its URL: CPU ms to there (from /proc),
 * wall ms from the spawn to there, and the URL.
 */
function serveUntilListening(bin, env, { keep = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-runs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mac serve did not listen within 120 s:\n${out}`));
    }, 120_000);
    child.on('error', reject);
    child.stdout.on('data', async (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      child.stdout.removeAllListeners('data');
      clearTimeout(timer);
      const wall = performance.now() - started;
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const user = (Number(fields[11]) * 1000) / TICKS;
      const system = (Number(fields[12]) * 1000) / TICKS;
      const stop = () =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          process.kill(child.pid, 'SIGTERM');
        });
      if (!keep) await stop();
      resolve({ ms: user + system, user, system, wall, url: m[1], stop });
    });
    child.stderr.resume();
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/**
 * Measures every scenario `runs` times for each build (the build of this checkout, and `baseline`
 * when given), the builds alternating within each round so that both see the same load.
 * Resolves to rows { scenario, build, medianMs, userMs, systemMs, samples }.
 */
export async function main({ runs = 5, baseline, log = () => {} } = {}) {
  const work = await mkdtemp(join(tmpdir(), 'mac-cli-start-'));
  const preload = pathToFileURL(join(work, 'cpu.mjs')).href;
  await writeFile(
    join(work, 'cpu.mjs'),
    "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.MAC_BENCH_CPU_FILE, JSON.stringify({ user: u.userCPUTime, system: u.systemCPUTime })); });\n",
  );
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const builds = [{ name: 'this', bin: join(ROOT, 'bin/mac.js') }];
  if (baseline) builds.push({ name: 'baseline', bin: join(baseline, 'bin/mac.js') });
  // One service (of this checkout) answers every plan; the project is a starter one.
  const served = await serveUntilListening(builds[0].bin, env, { keep: true });
  const project = join(work, 'project');
  const init = await cpuOfRun([builds[0].bin, 'init', project], { cwd: work, env, preload });
  if (init.code !== 0) throw new Error('mac init of the bench project failed');
  const api = ['--api-url', served.url, '--api-key', 'mac-dev-key', '--account-id', 'dev'];
  const scenarios = [
    { name: 'node -e 0 (floor)', args: () => ['-e', '0'], once: true },
    { name: 'mac --version', args: (bin) => [bin, '--version'] },
    { name: 'mac --help', args: (bin) => [bin, '--help'] },
    { name: 'mac plan --help', args: (bin) => [bin, 'plan', '--help'] },
    { name: 'mac validate examples', args: (bin) => [bin, 'validate', join(ROOT, 'examples')] },
    { name: 'mac plan (starter project, local serve)', args: (bin) => [bin, 'plan', project, ...api] },
    { name: 'mac serve to listening', serve: true },
  ];
  const samples = new Map();
  const add = (scenario, build, s) => {
    const key = `${scenario}\u0000${build}`;
    if (!samples.has(key)) samples.set(key, []);
    samples.get(key).push(s);
  };
  try {
    for (let round = 0; round < runs; round++) {
      log(`cli-start: round ${round + 1} of ${runs} ...`);
      for (const sc of scenarios) {
        for (const b of sc.once ? builds.slice(0, 1) : builds) {
          const s = sc.serve ? await serveUntilListening(b.bin, env) : await cpuOfRun(sc.args(b.bin), { cwd: work, env, preload });
          if (!sc.serve && s.code !== 0) throw new Error(`${sc.name} (${b.name}) exited with ${s.code}`);
          add(sc.name, sc.once ? 'any' : b.name, s);
        }
      }
    }
  } finally {
    await served.stop();
    await rm(work, { recursive: true, force: true });
  }
  const rows = [];
  for (const sc of scenarios) {
    for (const b of sc.once ? [{ name: 'any' }] : builds) {
      const ss = samples.get(`${sc.name}\u0000${b.name}`);
      rows.push({
        scenario: sc.name,
        build: b.name,
        medianMs: Math.round(median(ss.map((s) => s.ms))),
        userMs: Math.round(median(ss.map((s) => s.user))),
        systemMs: Math.round(median(ss.map((s) => s.system))),
        samples: ss.map((s) => Math.round(s.ms)),
        ...(sc.serve ? { medianWallMs: Math.round(median(ss.map((s) => s.wall))) } : {}),
      });
    }
  }
  return { bench: 'cli-start', runs, rows };
}

function printTable(rows) {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  const hasBase = rows.some((r) => r.build === 'baseline');
  const head = ['scenario', 'CPU ms (user+sys), median', ...(hasBase ? ['baseline', 'baseline / this'] : [])];
  const lines = [head];
  for (const s of scenarios) {
    const cur = rows.find((r) => r.scenario === s && r.build !== 'baseline');
    const base = rows.find((r) => r.scenario === s && r.build === 'baseline');
    const fmt = (r) => `${r.medianMs} (${r.userMs}+${r.systemMs})`;
    lines.push([s, fmt(cur), ...(hasBase ? [base ? fmt(base) : '-', base ? (base.medianMs / cur.medianMs).toFixed(2) : '-'] : [])]);
    if (cur.medianWallMs !== undefined) {
      lines.push([`${s}: wall ms, median`, String(cur.medianWallMs), ...(hasBase ? [base ? String(base.medianWallMs) : '-', base ? (base.medianWallMs / cur.medianWallMs).toFixed(2) : '-'] : [])]);
    }
  }
  const w = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  for (const l of lines) console.log(l.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const r = await main({ runs: Number(arg('--runs') ?? 5), baseline: arg('--baseline'), log: (m) => console.error(m) });
  printTable(r.rows);
  console.log(JSON.stringify(r));
}
