// Multi-step runs per second on this machine: N runs of a two-request Playwright Test script
// against a local HTTP server through mac's runner (its pool, one child process group per run),
// against the floor of spawning `playwright test` on the same script N times at the same
// concurrency (no temp dir, no config or reporter generation, no result reading).
// Run after a build: `node bench/multistep.mjs [N]`. Prints a human line and one JSON line.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('..', import.meta.url);
const require = createRequire(import.meta.url);

const SCRIPT = `const { test, expect } = require('@playwright/test');
test('two requests', async ({ request }) => {
  expect((await request.get(process.env.BASE + '/a')).status()).toBe(200);
  expect((await request.post(process.env.BASE + '/b', { data: { x: 1 } })).status()).toBe(200);
});
`;

async function pool(n, concurrency, task) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await task(next++);
  }));
}

/** `playwright test` alone on the script, N times at `concurrency`: the floor. */
async function bare(n, concurrency, base) {
  const dir = await mkdtemp(join(tmpdir(), 'mac-bench-multistep-'));
  try {
    const testDir = dirname(require.resolve('@playwright/test/package.json'));
    await mkdir(join(dir, 'node_modules', '@playwright'), { recursive: true });
    await symlink(testDir, join(dir, 'node_modules', '@playwright', 'test'), 'dir');
    await writeFile(join(dir, 'check.spec.js'), SCRIPT);
    await writeFile(join(dir, 'playwright.config.cjs'), "module.exports = { testDir: __dirname, reporter: 'null', workers: 1 };\n");
    const t0 = performance.now();
    await pool(n, concurrency, () => new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(testDir, 'cli.js'), 'test', '-c', 'playwright.config.cjs'], { cwd: dir, env: { PATH: process.env.PATH, BASE: base }, stdio: 'ignore' });
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`playwright test exited with ${code}`))));
    }));
    return performance.now() - t0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function main({ n = 8, log = () => {} } = {}) {
  const { runCheck, MULTI_STEP_CONCURRENCY } = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'index.js')).href);
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const check = { checkType: 'MULTI_STEP', name: 'bench', doubleCheck: false, script: SCRIPT, environmentVariables: [{ key: 'BASE', value: base }] };
    log(`multistep: ${n} runs through mac's runner (pool of ${MULTI_STEP_CONCURRENCY}) ...`);
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: n }, () => runCheck(check)));
    const macMs = performance.now() - t0;
    const failed = results.filter((r) => r.at(-1).hasFailures || r.at(-1).hasErrors).length;
    log(`multistep: ${n} bare playwright test runs at concurrency ${MULTI_STEP_CONCURRENCY} ...`);
    const bareMs = await bare(n, MULTI_STEP_CONCURRENCY, base);
    return {
      bench: 'multistep-runs',
      n,
      concurrency: MULTI_STEP_CONCURRENCY,
      failed,
      macMs: Math.round(macMs),
      bareMs: Math.round(bareMs),
      runsPerSecond: n / (macMs / 1000),
      bareRunsPerSecond: n / (bareMs / 1000),
      overhead: macMs / bareMs,
    };
  } finally {
    server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await main({ n: Number(process.argv[2] ?? 8), log: (l) => process.stderr.write(`${l}\n`) });
  console.log(`multi-step: ${r.runsPerSecond.toFixed(2)} runs/s through mac (${r.macMs} ms for ${r.n}), bare playwright test ${r.bareRunsPerSecond.toFixed(2)} runs/s; overhead ${r.overhead.toFixed(2)}x; ${r.failed} failed`);
  console.log(JSON.stringify(r));
}
