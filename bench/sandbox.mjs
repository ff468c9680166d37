// The script sandbox's cost per run: N starts of `node -e 0` inside bubblewrap (the command the
// runner builds: namespaces, binds, prlimit) against N starts of the same `node -e 0` without
// it, one at a time; the difference of the medians is the overhead a script run pays.
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
    const plan = sandboxCommand(argv, { workDir: dir, env: { A: '1' } }, available.bwrap);
    log(`sandbox: ${n} starts of node -e 0 in bubblewrap and ${n} without, alternated ...`);
    const plain = [];
    const boxed = [];
    for (let i = 0; i < n; i++) {
      plain.push(await timed(argv[0], argv.slice(1), { cwd: dir, env: { A: '1' } }));
      boxed.push(await timed(plan.file, plan.args, { cwd: dir, env: plan.env, uid: plan.uid, gid: plan.gid }));
    }
    const plainMs = median(plain);
    const boxedMs = median(boxed);
    return { bench: 'sandbox-overhead', n, plainMs: Math.round(plainMs * 10) / 10, sandboxMs: Math.round(boxedMs * 10) / 10, overheadMs: boxedMs - plainMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await main({ n: Number(process.argv[2] ?? 30), log: (l) => process.stderr.write(`${l}\n`) });
  console.log(`sandbox: node start ${r.plainMs} ms plain, ${r.sandboxMs} ms in bubblewrap (medians of ${r.n}): ${r.overheadMs.toFixed(1)} ms per run`);
  console.log(JSON.stringify(r));
}
