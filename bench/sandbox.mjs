// The script sandbox's cost per run: N starts of `node -e 0` inside bubblewrap (the command the
// runner builds: namespaces, binds, ulimit) against N starts of the same `node -e 0` without
// it, one at a time and alternated; the difference of the medians, plus the median time the
// runner spends building the command and handing the work dir over, is the overhead a script
// run pays. A bare bubblewrap start of /bin/true says how much of it is bwrap itself.
// Run after a build: `node bench/sandbox.mjs [N]`. Prints a human line and one JSON line.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('..', import.meta.url);

function timed(file, args, opts) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(file, args, { ...opts, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${file} exited with ${code}`))));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function main({ n = 30, log = () => {} } = {}) {
  const { sandboxCommand, bwrapAvailable, handOver } = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'sandbox.js')).href);
  const available = bwrapAvailable();
  if (!available.ok) throw new Error(`the script sandbox is not available (${available.reason}): apt-get install -y bubblewrap`);
  const dir = await mkdtemp(join(tmpdir(), 'mac-bench-sandbox-'));
  try {
    await handOver(dir);
    const argv = [process.execPath, '-e', '0'];
    log(`sandbox: ${n} starts of node -e 0 in bubblewrap and ${n} without, alternated ...`);
    const plain = [];
    const boxed = [];
    const prep = [];
    for (let i = 0; i < n; i++) {
      // What the runner does before each sandboxed start: build the command line and hand the work dir over.
      const p0 = performance.now();
      const each = sandboxCommand(argv, { workDir: dir, env: { A: '1' } }, available.bwrap);
      await handOver(dir);
      prep.push(performance.now() - p0);
      // Alternate which goes first, so that a slow moment of a shared machine hits both sides.
      if (i % 2 === 0) {
        plain.push(await timed(argv[0], argv.slice(1), { cwd: dir, env: { A: '1' } }));
        boxed.push(await timed(each.file, each.args, { cwd: dir, env: each.env, uid: each.uid, gid: each.gid }));
      } else {
        boxed.push(await timed(each.file, each.args, { cwd: dir, env: each.env, uid: each.uid, gid: each.gid }));
        plain.push(await timed(argv[0], argv.slice(1), { cwd: dir, env: { A: '1' } }));
      }
    }
    // A bare bwrap start (no Node): how much of the overhead is bubblewrap itself.
    const trueArgv = ['/bin/true'];
    const truePlan = sandboxCommand(trueArgv, { workDir: dir, env: {} }, available.bwrap);
    const bwrapOnly = [];
    const trueOnly = [];
    for (let i = 0; i < n; i++) {
      trueOnly.push(await timed(trueArgv[0], [], { cwd: dir }));
      bwrapOnly.push(await timed(truePlan.file, truePlan.args, { cwd: dir, env: truePlan.env, uid: truePlan.uid, gid: truePlan.gid }));
    }
    const plainMs = median(plain);
    const boxedMs = median(boxed);
    const prepMs = median(prep);
    const r1 = (x) => Math.round(x * 10) / 10;
    return {
      bench: 'sandbox-overhead',
      n,
      plainMs: r1(plainMs),
      sandboxMs: r1(boxedMs),
      prepMs: Math.round(prepMs * 100) / 100,
      bwrapStartMs: r1(median(bwrapOnly) - median(trueOnly)),
      overheadMs: boxedMs - plainMs + prepMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await main({ n: Number(process.argv[2] ?? 30), log: (l) => process.stderr.write(`${l}\n`) });
  console.log(`sandbox: node start ${r.plainMs} ms plain, ${r.sandboxMs} ms in bubblewrap (medians of ${r.n}), ${r.prepMs} ms to build the command: ${r.overheadMs.toFixed(1)} ms per run (bwrap alone ${r.bwrapStartMs} ms)`);
  console.log(JSON.stringify(r));
}
