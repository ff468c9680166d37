import { existsSync, realpathSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AttemptResult, RunOptions } from '../run.js';
import type { BrowserCheck, BrowserCheckResult, BrowserPage, MultiStepCheck, MultiStepCheckResult, RunAsset, WebVitalName } from '../types.js';
import { attemptWithRetries } from '../retry.js';
import { browserTestModuleText, configText, FILES, hostText, outputLimitText, REPORTER_TEXT, type BrowserLaunch } from './files.js';
import { handOver, readBounded, runProcess, sandboxCommand, scriptMode, scriptTempRoot, stopScriptRuns, type ProcessEnd } from '../sandbox.js';
import { FairPool } from '../fair-pool.js';
import { formatBytes, TREE_MEMORY_BYTES } from '../tree-memory.js';

/**
 * Multi-step and browser checks: the check's `script` is a Playwright Test file run by
 * `@playwright/test` in a child process of its own (its own temp directory and process group, an
 * environment of PATH plus the check's variables, a time limit, bounded output). Multi-step
 * checks get no browser: API calls through the `request` fixture only. Browser checks get the
 * system's Chromium (headless, no download), web vitals and error counts from a page fixture, and
 * on failure a screenshot and a trace as assets. The child runs in the script sandbox
 * (sandbox.ts) where bubblewrap works; without it the run is refused unless the policy allows
 * unsandboxed scripts (mac test, mac serve --unsafe-scripts). Runs share a pool fairly between
 * accounts (fair-pool.ts).
 */

/** Limits of one multi-step run; every field has a production default. */
export interface MultiStepLimits {
  /** Time limit of one run in ms (the script's tests and hooks); the process group is killed a little later. */
  timeoutMs: number;
  /** Bytes of log kept from a run. */
  maxLogBytes: number;
  /** Time beyond the limit for Node to start and Playwright to report, before the group is killed. */
  killGraceMs: number;
  /** Bytes of assets (a failed browser check's screenshot and trace) kept from one run. */
  maxAssetBytes: number;
  /**
   * Memory of the run's whole process tree (Node, Playwright, Chromium and whatever the script
   * starts), bytes: past it the tree is stopped and the run fails (tree-memory.ts).
   */
  treeMemoryBytes: number;
  /**
   * Bytes a script may print (stdout and stderr of its test worker): past them the worker is
   * ended at once and the run fails (files.ts, outputLimitText). The log keeps maxLogBytes of it.
   */
  maxPrintedBytes: number;
}

/** Bytes of assets (screenshot, trace) kept from one run: larger ones are dropped and the log says so. */
export const MAX_ASSET_BYTES = 5 * 1024 * 1024;
/**
 * Bytes a script may print: 256 times the 64 KiB of log a run keeps, so that no script that logs
 * for its reader comes near it, while one that floods its output fails within a second instead
 * of holding a run slot and memory until the time limit.
 */
export const MAX_PRINTED_BYTES = 16 * 1024 * 1024;
/** A multi-step run's defaults: 2 minutes, 64 KiB of log, 16 MiB printed, 10 s to start and report, 5 MiB of assets, 2.7 GiB of memory. */
export const MULTI_STEP_DEFAULTS: MultiStepLimits = {
  timeoutMs: 120_000,
  maxLogBytes: 64 * 1024,
  killGraceMs: 10_000,
  maxAssetBytes: MAX_ASSET_BYTES,
  treeMemoryBytes: TREE_MEMORY_BYTES,
  maxPrintedBytes: MAX_PRINTED_BYTES,
};
/**
 * A browser run's defaults: the reference's 240 s in all (230 s for the tests, 10 s to start and
 * report, after which the tree is killed) and 2.7 GiB with its children.
 */
export const BROWSER_DEFAULTS: MultiStepLimits = { ...MULTI_STEP_DEFAULTS, timeoutMs: 230_000 };
/** Bytes kept of the child's own stdout/stderr (Playwright's messages before tests run). */
const MAX_OUTPUT_BYTES = 16 * 1024;
/** Bytes of result.json read at most (the reporter keeps its entries short). */
const MAX_RESULT_BYTES = 1024 * 1024;
/** Secret values shorter than this are not masked (they would mask ordinary text). */
const MIN_MASKED_LENGTH = 4;
const MASK = '********';

const require = createRequire(import.meta.url);

/** Where @playwright/test, playwright and playwright-core are installed, their version, and the package dirs a run reads. */
interface PlaywrightInstall {
  testDir: string;
  /** The real directory of the `playwright` package, whose test worker the run's host uses. */
  playwrightDir: string;
  core: string;
  version: string;
  /** The real dirs of @playwright/test, playwright and playwright-core (bound read-only into the sandbox). */
  packageDirs: string[];
}

let installed: PlaywrightInstall | undefined;

/**
 * Where Playwright is installed: resolved once per process (the packages do not move under a
 * running mac), so that a run does not resolve and realpath them again on the event loop.
 */
function playwright(): PlaywrightInstall {
  if (installed) return installed;
  const pkg = require.resolve('@playwright/test/package.json');
  const testDir = dirname(pkg);
  const version = (require(pkg) as { version: string }).version;
  const pwDir = dirname(createRequire(pkg).resolve('playwright/package.json'));
  const coreDir = dirname(createRequire(join(pwDir, 'package.json')).resolve('playwright-core/package.json'));
  const core = createRequire(join(pwDir, 'package.json')).resolve('playwright-core');
  const packageDirs = [...new Set([realpathSync(testDir), realpathSync(pwDir), realpathSync(coreDir)])];
  installed = { testDir, playwrightDir: realpathSync(pwDir), core, version, packageDirs };
  return installed;
}

/** Multi-step runs at once in this process: child processes are expensive. */
export const MULTI_STEP_CONCURRENCY = Math.max(1, Math.min(4, availableParallelism()));
const pool = new FairPool(MULTI_STEP_CONCURRENCY);

/** The V8 heap of each Node process of a sandboxed run (MiB), under SANDBOX_DEFAULTS.dataBytes. */
const SANDBOX_HEAP_MB = 1536;

/**
 * NODE_OPTIONS of every Node process in a sandbox: the heap stays under the data limit, so that
 * a script allocating objects without end fails with V8's "heap out of memory".
 */
export function sandboxNodeOptions(): string {
  return `--max-old-space-size=${SANDBOX_HEAP_MB}`;
}

/**
 * What a browser run reads besides /usr (bound read-only into the sandbox): Debian's `chromium`
 * is a shell wrapper that reads /etc/chromium.d, and fonts are configured in /etc/fonts; a
 * Chromium elsewhere (MAC_CHROMIUM) brings its own directory.
 */
function browserDirs(browser: BrowserLaunch): string[] {
  const dirs = ['/etc/chromium.d', '/etc/chromium', '/etc/fonts'];
  const real = existsSync(browser.executablePath) ? dirname(realpathSync(browser.executablePath)) : null;
  if (real !== null && !real.startsWith('/usr/')) dirs.push(real);
  return dirs.filter((d) => existsSync(d));
}

// Bumped by each stop: runs queued before it do not start after it.
let generation = 0;

/**
 * Stops every multi-step run under way (their results say so, as runner faults): the service
 * calls it on shutdown so that a hanging script does not hold it up to the time limit.
 */
export function stopMultiStepRuns(): void {
  generation += 1;
  stopScriptRuns();
}

/** Runs under way and waiting for a slot (the scheduler holds back new sessions when it is full). */
export function multiStepLoad(account?: string): { active: number; pending: number; concurrency: number } {
  return {
    active: account === undefined ? pool.activeCount : pool.activeOf(account),
    pending: pool.pendingCount(account),
    concurrency: pool.concurrency,
  };
}

/** A check whose script this runner runs. */
type ScriptCheck = MultiStepCheck | BrowserCheck;

/** Where a browser check's Chromium is (MAC_CHROMIUM overrides): Debian's package, never a download. */
export const CHROMIUM_PATH = process.env.MAC_CHROMIUM ?? '/usr/bin/chromium';
/**
 * The features Playwright turns off in every Chromium it launches (playwright-core's
 * chromiumSwitches). Chromium reads only the last --disable-features of its command line, so the
 * one CHROMIUM_ARGS adds after Playwright's must repeat them; a test (browser.test.ts) holds this
 * list to the installed Playwright's.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;
/**
 * Features a check's headless Chromium has no use for: the address bar's popups, which Chromium
 * builds as WebUI pages and preloads at every launch, headless or not, in a renderer process of
 * their own (about a second of CPU per launch, and 150 MB, for a window nobody sees).
 */
export const UNUSED_CHROMIUM_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'] as const;
/**
 * Chromium's flags: headless in a container (no GPU, no sandbox of its own, no background traffic;
 * without the latter its connections are refused here), without the features above.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_CHROMIUM_FEATURES].join(',')}`,
] as const;
/** Runs a multi-step check with retries (api-decisions §5.2), every attempt through the pool. */
export async function runMultiStep(check: MultiStepCheck, opts: RunOptions): Promise<AttemptResult[]> {
  return runScript(check, opts, null);
}

/** Runs a browser check with retries, every attempt through the same pool as multi-step runs. */
export async function runBrowser(check: BrowserCheck, opts: RunOptions): Promise<AttemptResult[]> {
  return runScript(check, opts, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

async function runScript(check: ScriptCheck, opts: RunOptions, browser: BrowserLaunch | null): Promise<AttemptResult[]> {
  const limits = { ...(browser ? BROWSER_DEFAULTS : MULTI_STEP_DEFAULTS), ...opts.multiStep };
  return attemptWithRetries(
    check,
    () => {
      const queued = generation;
      return pool.run(opts.account ?? '', () => (generation === queued ? attempt(check, limits, queued, browser, opts) : stoppedAttempt(check)));
    },
    opts,
  );
}

/** An attempt that never started: the runs were stopped while it waited for the pool. */
function stoppedAttempt(check: ScriptCheck): Promise<AttemptResult> {
  const now = Date.now();
  return Promise.resolve(
    outcome(check, { startedAt: now, elapsed: 0, rawFailed: false, fault: true, errors: ['the run was stopped: mac is shutting down'], log: [], runtimeVersion: null }),
  );
}

/** What the page fixture of a browser check attaches to each test (files.ts, browserTestModuleText). */
interface BrowserSeen {
  pages: Array<{ url: string; vitals: Partial<Record<WebVitalName, number | null>> }>;
  console: Array<{ text: string; url: string }>;
  network: Array<{ url: string; method: string; status: number | null; error: string | null }>;
  consoleErrors: number;
  networkErrors: number;
  userScriptErrors: number;
  documentErrors: number;
}

/** One test as the generated reporter writes it. */
interface ReportTest {
  title: string;
  status: string;
  ok: boolean;
  duration: number;
  errors: string[];
  failedStep: { label: string; after: string | null } | null;
  browser?: BrowserSeen;
  assets?: Array<{ name: string; path: string; contentType: string }>;
}

/** What the generated reporter writes at the end of a run. */
interface Report {
  status: string;
  tests: ReportTest[];
  errors: string[];
}

/** How the child process ended. */
type ChildEnd = Pick<ProcessEnd, 'code' | 'killed' | 'output' | 'spawnError'> & {
  stopped?: boolean;
  overMemoryBytes?: number | null;
  /** The test worker was ended for printing more than limits.maxPrintedBytes. */
  overPrinted?: boolean;
};

/** The child's environment: PATH and the check's variables; nothing else of this process. */
export function childEnv(check: ScriptCheck, dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.env.PATH) env.PATH = process.env.PATH;
  env.HOME = dir;
  env.TMPDIR = dir;
  for (const v of check.environmentVariables) env[v.key] = v.value;
  // Set last: the run depends on them.
  env.PLAYWRIGHT_BROWSERS_PATH = join(dir, 'no-browsers');
  env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';
  env.FORCE_COLOR = '0';
  return env;
}

async function attempt(check: ScriptCheck, limits: MultiStepLimits, queued: number, browser: BrowserLaunch | null, opts: RunOptions): Promise<AttemptResult> {
  const startedAt = Date.now();
  const began = performance.now();
  const pw = playwright();
  const runtimeVersion = `@playwright/test ${pw.version}`;
  if (check.script === null || check.script.trim() === '') {
    return outcome(check, { startedAt, elapsed: 0, rawFailed: true, fault: false, errors: ['the check has no script to run'], log: [], runtimeVersion });
  }
  if (browser && !existsSync(browser.executablePath)) {
    const errors = [`browser check runner error: no Chromium at ${browser.executablePath}: install Chromium: apt-get install -y chromium`];
    return outcome(check, { startedAt, elapsed: 0, rawFailed: false, fault: true, errors, log: errors, runtimeVersion });
  }
  const mode = scriptMode(opts.scripts);
  if (mode.kind === 'refused') {
    return outcome(check, { startedAt, elapsed: 0, rawFailed: false, fault: true, errors: [mode.message], log: [], runtimeVersion });
  }
  let dir: string | null = null;
  try {
    dir = await mkdtemp(join(scriptTempRoot(), browser ? 'mac-browser-' : 'mac-multistep-'));
    await mkdir(join(dir, 'node_modules', '@playwright'), { recursive: true });
    if (browser) {
      // The script's @playwright/test: the real one with the page fixture added (files.ts).
      const wrapper = join(dir, 'node_modules', '@playwright', 'test');
      await mkdir(wrapper);
      await writeFile(join(wrapper, 'package.json'), JSON.stringify({ name: '@playwright/test', version: pw.version, main: 'index.js' }));
      await writeFile(join(wrapper, 'index.js'), browserTestModuleText(join(pw.testDir, 'index.js')));
    } else {
      await symlink(pw.testDir, join(dir, 'node_modules', '@playwright', 'test'), 'dir');
    }
    await writeFile(join(dir, FILES.script), check.script);
    await writeFile(join(dir, FILES.reporter), REPORTER_TEXT);
    await writeFile(join(dir, FILES.outputLimit), outputLimitText(limits.maxPrintedBytes));
    await writeFile(join(dir, FILES.host), hostText({ playwrightDir: pw.playwrightDir, maxLogBytes: limits.maxLogBytes }));
    await writeFile(join(dir, FILES.config), configText({ playwrightCore: pw.core, timeoutMs: limits.timeoutMs, browser }));
    // One Node process runs the script's tests (files.ts, hostText), in its own process group.
    const argv = [process.execPath, join(dir, FILES.host)];
    let plan;
    if (mode.kind === 'sandboxed') {
      const readOnly = [...pw.packageDirs, ...(browser ? browserDirs(browser) : [])];
      await handOver(dir, readOnly);
      const env = { ...childEnv(check, dir), NODE_OPTIONS: sandboxNodeOptions() };
      plan = sandboxCommand(argv, { workDir: dir, env, limits: opts.sandbox, readOnly }, mode.bwrap);
    } else {
      plan = { file: argv[0], args: argv.slice(1), env: childEnv(check, dir) };
    }
    // Stopped while the files were written: nothing is started (runProcess registers synchronously).
    if (generation !== queued) return await stoppedAttempt(check);
    const ran = await runProcess({ ...plan, cwd: dir, killAfterMs: limits.timeoutMs + limits.killGraceMs, maxOutputBytes: MAX_OUTPUT_BYTES, treeMemoryBytes: limits.treeMemoryBytes });
    const end = { ...ran, overPrinted: existsSync(join(dir, FILES.outputOver)) };
    const elapsed = performance.now() - began;
    const log = splitLog(await readBounded(join(dir, FILES.log), limits.maxLogBytes + 64));
    const report =
      parseReport(await readBounded(join(dir, FILES.result), MAX_RESULT_BYTES)) ??
      deadReport(parseProgress(await readBounded(join(dir, FILES.progress), MAX_RESULT_BYTES, true)), end);
    const judged = judgeRun(end, report, limits, log);
    const assets = browser && report ? await readAssets(report, dir, judged.log, limits.maxAssetBytes) : [];
    // Paths name the run's temp directory: drop it, so that messages (and error groups) repeat.
    const local = (text: string) => text.split(`${dir}/`).join('').split(dir!).join('.');
    return outcome(check, { startedAt, elapsed, runtimeVersion, ...judged, errors: judged.errors.map(local), log: judged.log.map(local), browser: report ? browserOf(report) : null, assets });
  } catch (err) {
    const message = `${check.checkType === 'BROWSER' ? 'browser check' : 'multi-step'} runner error: ${err instanceof Error ? err.message : String(err)}`;
    return outcome(check, { startedAt, elapsed: performance.now() - began, rawFailed: false, fault: true, errors: [message], log: [], runtimeVersion });
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** What a run came to, before shouldFail and masking. */
interface Judged {
  rawFailed: boolean;
  fault: boolean;
  errors: string[];
  log: string[];
  /** Time the tests took (ms), when the reporter told. */
  duration?: number;
}

/** Reads the reporter's result and the child's end into pass/fail, errors and log. */
export function judgeRun(end: ChildEnd, report: Report | null, limits: MultiStepLimits, log: string[]): Judged {
  if (end.spawnError !== null) return { rawFailed: false, fault: true, errors: [`multi-step runner error: ${end.spawnError}`], log };
  if (end.stopped) return { rawFailed: false, fault: true, errors: ['the run was stopped: mac is shutting down'], log };
  if (end.overPrinted) {
    const limit = limits.maxPrintedBytes < 1024 ** 2 ? `${Math.floor(limits.maxPrintedBytes / 1024)} KiB` : formatBytes(limits.maxPrintedBytes);
    const errors = [`the script printed more than ${limit}; output is limited to ${limit}`];
    return { rawFailed: true, fault: false, errors, log: [...log, errors[0]] };
  }
  if (end.overMemoryBytes !== undefined && end.overMemoryBytes !== null) {
    const errors = [`the script's processes used ${formatBytes(end.overMemoryBytes)} of memory together, over the ${formatBytes(limits.treeMemoryBytes)} a run may use, and were stopped`];
    return { rawFailed: true, fault: false, errors, log: [...log, errors[0]] };
  }
  if (end.killed) {
    const errors = [`the script did not finish within ${(limits.timeoutMs + limits.killGraceMs) / 1000} s and was stopped`];
    return { rawFailed: true, fault: false, errors, log: [...log, errors[0]] };
  }
  if (report === null) {
    // Playwright stopped before reporting (it prints why): a fault of this runner, not a check failure.
    const output = end.output.trim().split('\n').slice(-5).join(' ').trim();
    const errors = [`multi-step runner error: Playwright exited with code ${end.code}${output ? `: ${output}` : ''}`];
    return { rawFailed: false, fault: true, errors, log: [...log, ...end.output.trim().split('\n').filter(Boolean)] };
  }
  const duration = report.tests.reduce((sum, t) => sum + (Number.isFinite(t.duration) ? t.duration : 0), 0);
  const failed = report.tests.filter((t) => !t.ok);
  const noTest = 'the script defines no test: call test() from @playwright/test';
  const errors = [
    ...failed.map(failureMessage),
    ...report.errors.map((e) => (report.tests.length === 0 && /^Error: No tests found/.test(e) ? noTest : `the script could not run: ${e}`)),
  ];
  if (report.tests.length === 0 && errors.length === 0) errors.push(noTest);
  // The reporter keeps the first 200 tests and errors; Playwright's own verdict covers the rest.
  if (errors.length === 0 && report.status !== 'passed') errors.push(`Playwright reported the run as ${report.status}`);
  // What the script printed while Playwright loaded it (outside any test) comes first.
  const loaded = end.output.split('\n').filter((l) => l.trim() !== '');
  return { rawFailed: errors.length > 0, fault: false, errors, log: [...loaded, ...log], duration };
}

/** The first error of a failed test: the test, the step that failed and the request before it, the error. */
function failureMessage(t: Report['tests'][number]): string {
  const at = t.failedStep ? ` at ${t.failedStep.label}${t.failedStep.after ? ` after ${t.failedStep.after}` : ''}` : '';
  const error = t.errors[0] ?? (t.status === 'timedOut' ? 'timed out' : `ended ${t.status}`);
  return `test "${t.title}" failed${at}: ${error}`;
}

/** Web vitals' thresholds of GOOD and POOR (web.dev): at or under the first GOOD, over the second POOR. */
export const VITAL_THRESHOLDS: Record<WebVitalName, [number, number]> = {
  TTFB: [800, 1800],
  FCP: [1800, 3000],
  LCP: [2500, 4000],
  CLS: [0.1, 0.25],
  TBT: [200, 600],
};
const VITAL_NAMES = Object.keys(VITAL_THRESHOLDS) as WebVitalName[];

/** The score of one web vital's value. */
export function vitalScore(name: WebVitalName, value: number): 'GOOD' | 'NEEDS_IMPROVEMENT' | 'POOR' {
  const [good, poor] = VITAL_THRESHOLDS[name];
  return value <= good ? 'GOOD' : value <= poor ? 'NEEDS_IMPROVEMENT' : 'POOR';
}

/** What the browser fixture saw over every test of a run: pages with scored vitals, errors summed. */
export function browserOf(report: Report): BrowserSeen & { scored: BrowserPage[] } {
  const seen: BrowserSeen = { pages: [], console: [], network: [], consoleErrors: 0, networkErrors: 0, userScriptErrors: 0, documentErrors: 0 };
  for (const t of report.tests) {
    const b = t.browser;
    if (!b) continue;
    seen.pages.push(...(Array.isArray(b.pages) ? b.pages : []));
    seen.console.push(...(Array.isArray(b.console) ? b.console : []));
    seen.network.push(...(Array.isArray(b.network) ? b.network : []));
    for (const k of ['consoleErrors', 'networkErrors', 'userScriptErrors', 'documentErrors'] as const) seen[k] += Number.isFinite(b[k]) ? b[k] : 0;
  }
  const scored = seen.pages.slice(0, 20).map((p) => {
    const webVitals: BrowserPage['webVitals'] = {};
    for (const name of VITAL_NAMES) {
      const v = p.vitals?.[name];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) webVitals[name] = { value: Math.round(v * 1000) / 1000, score: vitalScore(name, v) };
    }
    return { url: String(p.url).slice(0, 2048), webVitals };
  });
  // The fixture runs inside the script's process: what it reports is as untrusted as the script.
  const text = (v: unknown, max: number) => String(v ?? '').slice(0, max);
  const consoleErrors = seen.console.slice(0, 20).map((c) => ({ text: text(c?.text, 500), url: text(c?.url, 2048) }));
  const network = seen.network.slice(0, 20).map((n) => ({
    url: text(n?.url, 2048),
    method: text(n?.method, 16),
    status: Number.isInteger(n?.status) ? n.status : null,
    error: n?.error == null ? null : text(n.error, 300),
  }));
  return { ...seen, console: consoleErrors, network, scored };
}

/** Asset names by the reporter's attachment name. */
const ASSET_FILES: Record<string, { name: string; type: RunAsset['type'] }> = {
  screenshot: { name: 'screenshot.png', type: 'screenshot' },
  trace: { name: 'trace.zip', type: 'trace' },
};

/**
 * The screenshot and trace of the first failed test, read from the run's directory; at most
 * `maxBytes` in all (one that does not fit is left out and the log says so). Only files
 * inside the run's directory are read.
 */
async function readAssets(report: Report, dir: string, log: string[], maxBytes: number): Promise<RunAsset[]> {
  const failed = report.tests.find((t) => !t.ok && Array.isArray(t.assets) && t.assets.length > 0);
  if (!failed) return [];
  const assets: RunAsset[] = [];
  let left = maxBytes;
  const root = `${await realpath(dir)}/`;
  for (const a of failed.assets!) {
    const kind = ASSET_FILES[a.name];
    if (!kind || assets.some((x) => x.name === kind.name) || typeof a.path !== 'string') continue;
    // The script names these paths (testInfo.attach): only regular files really inside the
    // run's directory are read, never a link to a file of the service.
    const real = await realpath(a.path).catch(() => null);
    const info = await lstat(a.path).catch(() => null);
    if (real === null || !real.startsWith(root) || !info?.isFile()) continue;
    const size = info.size;
    if (size > left) {
      log.push(`${kind.name} (${size} bytes) is over the ${maxBytes} bytes kept of a run's assets: not kept`);
      continue;
    }
    const data = await readBoundedBytes(a.path, size);
    left -= data.length;
    assets.push({ name: kind.name, type: kind.type, contentType: kind.type === 'screenshot' ? 'image/png' : 'application/zip', data });
  }
  return assets;
}

/** What an outcome is made of. */
type OutcomeInput = Judged & {
  startedAt: number;
  elapsed: number;
  runtimeVersion: string | null;
  browser?: (BrowserSeen & { scored: BrowserPage[] }) | null;
  assets?: RunAsset[];
};

/** The attempt, with shouldFail applied and secret values masked. */
function outcome(check: ScriptCheck, r: OutcomeInput): AttemptResult {
  const mask = masker(check);
  const errors = r.errors.map(mask);
  const endTime = r.startedAt + Math.round(r.elapsed);
  const hasFailures = !r.fault && r.rawFailed !== check.shouldFail;
  const multiStepCheckResult: MultiStepCheckResult = {
    errors: hasFailures && !r.rawFailed ? ['Check was expected to fail but passed'] : errors,
    startTime: r.startedAt,
    endTime,
    runtimeVersion: r.runtimeVersion,
    jobLog: r.log.map(mask),
    jobAssets: null,
  };
  const assets = r.assets ?? [];
  const browserCheckResult: BrowserCheckResult | null =
    check.checkType !== 'BROWSER'
      ? null
      : {
          type: 'PLAYWRIGHT_TEST',
          ...multiStepCheckResult,
          jobAssets: assets.map((a) => a.name),
          traceSummary: {
            consoleErrors: r.browser?.consoleErrors ?? 0,
            networkErrors: r.browser?.networkErrors ?? 0,
            userScriptErrors: r.browser?.userScriptErrors ?? 0,
            documentErrors: r.browser?.documentErrors ?? 0,
            console: (r.browser?.console ?? []).map((c) => ({ text: mask(c.text), url: mask(c.url) })),
            network: (r.browser?.network ?? []).map((n) => ({ ...n, url: mask(n.url) })),
          },
          pages: (r.browser?.scored ?? []).map((p) => ({ ...p, url: mask(p.url) })),
          playwrightTestVideos: [],
          playwrightTestTraces: assets.filter((a) => a.type === 'trace').map((a) => a.name),
        };
  return {
    ...(assets.length > 0 ? { assets } : {}),
    resultType: 'FINAL',
    attempts: 0,
    hasFailures,
    hasErrors: r.fault,
    isDegraded: null,
    overMaxResponseTime: null,
    responseTime: Math.round(r.duration ?? r.elapsed),
    startedAt: new Date(r.startedAt).toISOString(),
    stoppedAt: new Date(endTime).toISOString(),
    apiCheckResult: null,
    browserCheckResult,
    multiStepCheckResult: browserCheckResult ? null : multiStepCheckResult,
    errorMessage: r.fault || hasFailures ? multiStepCheckResult.errors[0] ?? 'Check failed' : null,
    networkError: false,
  };
}

/** Replaces the values of the check's secret variables (the API never shows them) in text. */
function masker(check: ScriptCheck): (text: string) => string {
  const secrets = check.environmentVariables
    .filter((v) => v.secret && v.value.length >= MIN_MASKED_LENGTH)
    .map((v) => v.value)
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((t, s) => t.split(s).join(MASK), text);
}


/** At most `max` bytes of a file. */
async function readBoundedBytes(path: string, max: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function splitLog(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

/** What the host leaves in progress.json: the tests reported so far and the one under way. */
interface Progress {
  tests: ReportTest[];
  errors: string[];
  running: string | null;
}

function parseProgress(text: string): Progress | null {
  if (text === '') return null;
  try {
    const p = JSON.parse(text) as Progress;
    return Array.isArray(p.tests) && Array.isArray(p.errors) && (p.running === null || typeof p.running === 'string') ? p : null;
  } catch {
    return null;
  }
}

/**
 * The report of a run whose process died before it could write one (the heap exhausted, a
 * signal): the tests reported so far, and the one under way failed with Playwright's words for a
 * worker that died. Null when it died before any test began (a fault of the runner, as before),
 * or when nothing was under way and it ended by the host's own error (code 1).
 */
export function deadReport(progress: Progress | null, end: Pick<ProcessEnd, 'code' | 'signal'>): Report | null {
  if (progress === null) return null;
  const exited = `Error: worker process exited unexpectedly (code=${end.code}, signal=${end.signal ?? null})`;
  if (progress.running === null && (end.code === 1 || end.code === 0)) return null;
  const tests = progress.tests.slice(0, 200);
  if (progress.running !== null) tests.push({ title: progress.running.slice(0, 500), status: 'failed', ok: false, duration: 0, errors: [exited], failedStep: null });
  const errors = progress.running === null ? [...progress.errors, exited] : progress.errors;
  return { status: 'failed', tests, errors: errors.slice(0, 200) };
}

function parseReport(text: string): Report | null {
  if (text === '') return null;
  try {
    const r = JSON.parse(text) as Report;
    return Array.isArray(r.tests) && Array.isArray(r.errors) ? r : null;
  } catch {
    return null;
  }
}
