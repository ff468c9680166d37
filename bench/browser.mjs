// Browser check runs per minute on this machine: N runs of a two-page Playwright Test script in
// Debian's Chromium against a local site, through mac's runner (its pool, one child process
// group per run, the page fixture measuring web vitals, the result read back), against the
// floor of spawning `playwright test` on the same script N times at the same concurrency with the
// same Chromium and flags (no temp dir, no config or reporter generation, no vitals, no result,
// no sandbox). Several rounds of both sides, alternated; the figure is the median of the rounds'
// ratios.
// Run after a build: `node bench/browser.mjs [N]`. Prints a human line and one JSON line.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternated, median } from './lib/figures.mjs';

const ROOT = new URL('..', import.meta.url);
const require = createRequire(import.meta.url);

const SCRIPT = `const { test, expect } = require('@playwright/test');
test('home and about', async ({ page }) => {
  await page.goto(process.env.BASE + '/');
  await expect(page.locator('h1')).toHaveText('Welcome');
  await page.click('#next');
  await expect(page.locator('h1')).toHaveText('About us');
});
`;

const PAGES = {
  '/': '<h1>Welcome</h1><p>Some text to paint.</p><a id="next" href="/about">About</a>',
  '/about': '<h1>About us</h1><p>We sell things.</p>',
};

async function pool(n, concurrency, task) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await task(next++);
  }));
}

/** `playwright test` alone on the script in the same Chromium, N times at `concurrency`: the floor. */
async function bare(n, concurrency, base, chromium, args) {
  const dir = await mkdtemp(join(tmpdir(), 'mac-bench-browser-'));
  try {
    const testDir = dirname(require.resolve('@playwright/test/package.json'));
    await mkdir(join(dir, 'node_modules', '@playwright'), { recursive: true });
    await symlink(testDir, join(dir, 'node_modules', '@playwright', 'test'), 'dir');
    await writeFile(join(dir, 'check.spec.js'), SCRIPT);
    const use = { headless: true, launchOptions: { executablePath: chromium, args } };
    await writeFile(join(dir, 'playwright.config.cjs'), `module.exports = { testDir: __dirname, reporter: 'null', workers: 1, use: ${JSON.stringify(use)} };\n`);
    const t0 = performance.now();
    await pool(n, concurrency, () => new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(testDir, 'cli.js'), 'test', '-c', 'playwright.config.cjs'], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, BASE: base }, stdio: 'ignore' });
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`playwright test exited with ${code}`))));
    }));
    return performance.now() - t0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function main({ n = 8, rounds = 3, log = () => {} } = {}) {
  const { runCheck, MULTI_STEP_CONCURRENCY, CHROMIUM_PATH } = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'index.js')).href);
  const { CHROMIUM_ARGS } = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'multistep', 'run.js')).href);
  const { bwrapAvailable } = await import(pathToFileURL(join(ROOT.pathname, 'dist', 'runner', 'sandbox.js')).href);
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Chromium: apt-get install -y chromium`);
  const sandboxed = bwrapAvailable().ok;
  const server = createServer((req, res) => {
    const body = PAGES[new URL(req.url, 'http://x').pathname];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
    res.end(body ? `<!doctype html><html><body>${body}</body></html>` : 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const check = { checkType: 'BROWSER', name: 'bench', doubleCheck: false, script: SCRIPT, environmentVariables: [{ key: 'BASE', value: base }] };
    // One run of each first: the page cache of Chromium and Node's files is warm for both sides.
    await runCheck(check, { scripts: { allowUnsandboxed: false } });
    await bare(1, 1, base, CHROMIUM_PATH, [...CHROMIUM_ARGS]);
    let failed = 0;
    let withVitals = 0;
    const macTimes = [];
    const bareTimes = [];
    const ratios = [];
    const macSide = async () => {
      log(`browser: ${n} runs through mac's runner (pool of ${MULTI_STEP_CONCURRENCY}, ${sandboxed ? 'sandboxed' : 'NOT sandboxed'}) ...`);
      const t0 = performance.now();
      const results = await Promise.all(Array.from({ length: n }, () => runCheck(check, { scripts: { allowUnsandboxed: false } })));
      const ms = performance.now() - t0;
      const finals = results.map((r) => r.at(-1));
      failed += finals.filter((r) => r.hasFailures || r.hasErrors).length;
      withVitals += finals.filter((r) => r.browserCheckResult?.pages?.length === 2 && r.browserCheckResult.pages.every((p) => p.webVitals.FCP)).length;
      return ms;
    };
    const bareSide = () => {
      log(`browser: ${n} bare playwright test runs at concurrency ${MULTI_STEP_CONCURRENCY} ...`);
      return bare(n, MULTI_STEP_CONCURRENCY, base, CHROMIUM_PATH, [...CHROMIUM_ARGS]);
    };
    for (let round = 0; round < rounds; round++) {
      const [macMs, bareMs] = await alternated(round, macSide, bareSide);
      macTimes.push(macMs);
      bareTimes.push(bareMs);
      ratios.push(macMs / bareMs);
    }
    const macMs = median(macTimes);
    const bareMs = median(bareTimes);
    return {
      bench: 'browser-runs',
      n,
      rounds,
      sandboxed,
      concurrency: MULTI_STEP_CONCURRENCY,
      failed,
      withVitals: Math.round(withVitals / rounds),
      macMs: Math.round(macMs),
      bareMs: Math.round(bareMs),
      ratios: ratios.map((x) => Math.round(x * 100) / 100),
      runsPerMinute: n / (macMs / 60_000),
      bareRunsPerMinute: n / (bareMs / 60_000),
      overhead: median(ratios),
    };
  } finally {
    server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await main({ n: Number(process.argv[2] ?? 8), rounds: Number(process.argv[3] ?? 3), log: (l) => process.stderr.write(`${l}\n`) });
  console.log(`browser (${r.sandboxed ? 'sandboxed' : 'not sandboxed'}): ${r.runsPerMinute.toFixed(1)} runs/min through mac (median ${r.macMs} ms for ${r.n}), bare playwright test ${r.bareRunsPerMinute.toFixed(1)} runs/min (${r.bareMs} ms); overhead ${r.overhead.toFixed(2)}x (median of rounds ${r.ratios.join(', ')}); ${r.failed} failed, ${r.withVitals} with vitals on both pages`);
  console.log(JSON.stringify(r));
}
