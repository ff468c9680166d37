/**
 * The files a multi-step run writes next to the user's script: a Playwright config that takes
 * the browsers away, and a reporter that records steps and output into bounded files.
 * Both are CommonJS text, written into the run's own temp directory.
 */

/** The message a script gets when it asks for a browser (`page`, `context`, `browser`). */
export const NO_BROWSER =
  'no browser is available to multi-step checks: the page, context and browser fixtures cannot open; use the request fixture for API calls';

/** Names of the files in a run's directory. */
export const FILES = {
  script: 'check.spec.ts',
  config: 'playwright.config.cjs',
  reporter: 'reporter.cjs',
  result: 'result.json',
  log: 'log.txt',
  /** The run's one Node process: Playwright's test worker and what its runner would do around it. */
  host: 'run.cjs',
  /** Written by the host as tests begin and end: what a process that dies leaves behind. */
  progress: 'progress.json',
  /** Loaded first by the host: ends the run once the script printed past the limit. */
  outputLimit: 'output-limit.cjs',
  /** Written by the output limit when it ends the run: the run failed for printing too much. */
  outputOver: 'output-over-limit',
} as const;

/** What the generated config needs to know. */
export interface ConfigInput {
  /** Absolute path of playwright-core's entry, patched so that no browser launches. */
  playwrightCore: string;
  /** Per-test timeout in ms. */
  timeoutMs: number;
  /** Browser checks: the Chromium to launch; null (multi-step checks) takes every browser away. */
  browser?: BrowserLaunch | null;
}

/** How a browser check's Chromium is launched (no browser download: a system executable). */
export interface BrowserLaunch {
  executablePath: string;
  args: readonly string[];
}

/** The generated playwright.config.cjs. */
export function configText(input: ConfigInput): string {
  return input.browser ? browserConfigText(input, input.browser) : multiStepConfigText(input);
}

/** Settings both kinds of script run share: one worker, no retries (mac retries); the host (hostText) reports. */
function sharedSettings(input: ConfigInput, preserveOutput: 'never' | 'failures-only'): string {
  return `  testDir: __dirname,
  testMatch: [${JSON.stringify(FILES.script)}],
  outputDir: require('node:path').join(__dirname, 'out'),
  preserveOutput: '${preserveOutput}',
  workers: 1,
  retries: 0,
  maxFailures: 0,
  timeout: ${input.timeoutMs},
  updateSnapshots: 'none',`;
}

function multiStepConfigText(input: ConfigInput): string {
  return `'use strict';
// Generated for one multi-step run. No browser ships with this service: every way to get one
// fails at once with a clear message instead of looking for an executable or downloading.
const core = require(${JSON.stringify(input.playwrightCore)});
const NO_BROWSER = ${JSON.stringify(NO_BROWSER)};
const refuse = async () => { throw new Error(NO_BROWSER); };
for (const name of ['chromium', 'firefox', 'webkit']) {
  const type = core[name];
  if (!type) continue;
  for (const method of ['launch', 'launchPersistentContext', 'launchServer', 'connect', 'connectOverCDP']) type[method] = refuse;
}
module.exports = {
${sharedSettings(input, 'never')}
  use: { trace: 'off', screenshot: 'off', video: 'off' },
};
`;
}

/**
 * A browser check's config: the system Chromium, headless; a screenshot and a trace kept only
 * when a test fails (the runner reads them from out/ before the directory goes).
 */
function browserConfigText(input: ConfigInput, browser: BrowserLaunch): string {
  return `'use strict';
// Generated for one browser check run.
module.exports = {
${sharedSettings(input, 'failures-only')}
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: ${JSON.stringify(browser.executablePath)}, args: ${JSON.stringify(browser.args)} },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    video: 'off',
    serviceWorkers: 'block',
  },
};
`;
}

/**
 * The generated reporter: appends a line per test, request, step and output chunk to log.txt
 * (bounded, so a killed run still leaves its log) and writes result.json at the end.
 */
export const REPORTER_TEXT = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ANSI = /\\u001b\\[[0-9;?]*[ -\\/]*[@-~]/g;
const clean = (s) => String(s ?? '').replace(ANSI, '');
const firstLines = (s, n) => clean(s).split('\\n').map((l) => l.trim()).filter(Boolean).slice(0, n).join(' ').slice(0, 2000);
const MAX_ENTRIES = 200;

class MultiStepReporter {
  constructor(options) {
    this.dir = __dirname;
    this.maxLogBytes = options.maxLogBytes;
    this.logBytes = 0;
    this.truncated = false;
    this.tests = [];
    this.errors = [];
    this.state = new Map();
  }
  printsToStdio() { return true; }
  line(text) {
    if (this.truncated) return;
    const entry = clean(text).replace(/\\n+$/, '') + '\\n';
    const size = Buffer.byteLength(entry);
    if (this.logBytes + size > this.maxLogBytes) {
      this.truncated = true;
      fs.appendFileSync(path.join(this.dir, 'log.txt'), '[log truncated]\\n');
      return;
    }
    this.logBytes += size;
    fs.appendFileSync(path.join(this.dir, 'log.txt'), entry);
  }
  testState(test) {
    let s = this.state.get(test.id);
    if (!s) this.state.set(test.id, (s = { requests: 0, lastRequest: null, failedStep: null }));
    return s;
  }
  onTestBegin(test) {
    this.testState(test);
    this.line('test "' + test.title + '"');
  }
  onStepEnd(test, result, step) {
    if (!['pw:api', 'test.step', 'expect', 'hook'].includes(step.category)) return;
    // Calls of the browser checks' page fixture (node_modules/@playwright/test) are not the script's steps.
    if (step.location && String(step.location.file).includes('node_modules')) return;
    const s = this.testState(test);
    const params = step.params || {};
    const isRequest = step.category === 'pw:api' && typeof params.url === 'string';
    const where = step.location ? ' (line ' + step.location.line + ')' : '';
    let label = step.title + where;
    if (isRequest) {
      s.requests += 1;
      label = 'request ' + s.requests + ': ' + String(params.method || step.title).toUpperCase() + ' ' + params.url + where;
      s.lastRequest = label;
    }
    const ms = Math.round(step.duration);
    if (step.error) {
      if (!s.failedStep) s.failedStep = { label: isRequest ? label : (step.category === 'expect' ? step.title : 'step ' + JSON.stringify(step.title)) + where, after: isRequest ? null : s.lastRequest };
      this.line('  x ' + label + ' (' + ms + ' ms): ' + firstLines(step.error.message, 3));
    } else if (step.category !== 'hook') {
      this.line('  ok ' + label + ' (' + ms + ' ms)');
    }
  }
  onStdOut(chunk) { this.line(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk); }
  onStdErr(chunk) { this.line(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk); }
  onTestEnd(test, result) {
    const s = this.testState(test);
    const ok = result.status === test.expectedStatus || result.status === 'skipped';
    const errors = result.errors.map((e) => firstLines(e.message ?? e.value, 4)).filter(Boolean);
    const entry = { title: (test.titlePath().slice(3).join(' > ') || test.title).slice(0, 500), status: result.status, ok, duration: result.duration, errors, failedStep: s.failedStep };
    // Browser checks: what the page fixture saw, and the screenshot and trace of a failed test.
    const seen = result.attachments.find((a) => a.name === 'mac-browser' && a.body);
    if (seen) {
      try {
        entry.browser = JSON.parse(seen.body.toString('utf8'));
        for (const c of entry.browser.console) this.line('  console error: ' + c.text);
        for (const n of entry.browser.network) this.line('  network error: ' + n.method + ' ' + n.url + ' ' + (n.status ?? n.error));
      } catch {}
    }
    entry.assets = result.attachments
      .filter((a) => a.path && (a.name === 'trace' || (a.name === 'screenshot' && a.contentType === 'image/png')))
      .slice(0, 4)
      .map((a) => ({ name: a.name, path: a.path, contentType: a.contentType }));
    if (this.tests.length < MAX_ENTRIES) this.tests.push(entry);
    this.line((ok ? 'passed' : result.status) + ' "' + test.title + '" (' + Math.round(result.duration) + ' ms)' + (ok || !errors[0] ? '' : ': ' + errors[0]));
  }
  onError(error) {
    const message = firstLines(error.message ?? error.value, 4);
    if (this.errors.length < MAX_ENTRIES) this.errors.push(message);
    this.line('error: ' + message);
  }
  onEnd(result) {
    fs.writeFileSync(path.join(this.dir, 'result.json'), JSON.stringify({ status: result.status, tests: this.tests, errors: this.errors }));
  }
}
module.exports = MultiStepReporter;
`;

/** Entries of each kind the browser fixture keeps (pages, console and network errors). */
export const MAX_BROWSER_ENTRIES = 20;

/**
 * The page script of a browser check, run in every top-level document before its own scripts:
 * PerformanceObserver-based web vitals (TTFB, FCP, LCP, CLS in session windows, TBT from the
 * long tasks after FCP), sent to the fixture through a binding as they change and when the
 * document is left, and read once more at the end of the test (`__macVitalsNow`).
 */
export const VITALS_SCRIPT = `(() => {
  if (window !== window.top || window.__macVitalsNow) return;
  const id = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const v = { TTFB: null, FCP: null, LCP: null, CLS: null, TBT: null };
  const tasks = [];
  let session = 0, sessionStart = 0, sessionLast = 0, cls = 0;
  const tbt = () => {
    if (v.FCP === null) return;
    let sum = 0;
    for (const t of tasks) if (t.startTime >= v.FCP) sum += Math.max(0, t.duration - 50);
    v.TBT = sum;
  };
  const now = () => {
    const nav = performance.getEntriesByType('navigation')[0];
    if (nav && v.TTFB === null && nav.responseStart > 0) v.TTFB = nav.responseStart;
    // A paint the timeline holds whose observer callback is not delivered yet (a busy renderer).
    const paint = v.FCP === null ? performance.getEntriesByName('first-contentful-paint')[0] : undefined;
    if (paint) { v.FCP = paint.startTime; if (v.CLS === null) v.CLS = 0; tbt(); }
    return { id, url: location.href, vitals: { ...v } };
  };
  let pending = false;
  const send = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      try { if (typeof window.__macVitals === 'function') window.__macVitals(now()); } catch {}
    }, 0);
  };
  const observe = (type, fn) => {
    try {
      new PerformanceObserver((list) => { for (const e of list.getEntries()) fn(e); send(); }).observe({ type, buffered: true });
    } catch {}
  };
  observe('navigation', (e) => { if (e.responseStart > 0) v.TTFB = e.responseStart; });
  observe('paint', (e) => { if (e.name === 'first-contentful-paint') { v.FCP = e.startTime; if (v.CLS === null) v.CLS = 0; tbt(); } });
  observe('largest-contentful-paint', (e) => { v.LCP = e.renderTime || e.loadTime || e.startTime; });
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    if (session > 0 && e.startTime - sessionLast < 1000 && e.startTime - sessionStart < 5000) session += e.value;
    else { session = e.value; sessionStart = e.startTime; }
    sessionLast = e.startTime;
    cls = Math.max(cls, session);
    v.CLS = cls;
  });
  observe('longtask', (e) => { if (tasks.length < 1000) tasks.push({ startTime: e.startTime, duration: e.duration }); tbt(); });
  Object.defineProperty(window, '__macVitalsNow', { value: now, enumerable: false });
  addEventListener('load', send);
  // A navigation drops the deferred send and observer callbacks not yet delivered: the document
  // that is left sends what its timeline holds at once.
  addEventListener('pagehide', () => {
    try { if (typeof window.__macVitals === 'function') window.__macVitals(now()); } catch {}
  });
})();`;

/**
 * The `@playwright/test` a browser check's script requires: the real one, its `test` extended
 * with an automatic fixture that injects the vitals script, listens for console errors, uncaught
 * page errors and failed or 4xx/5xx requests, and attaches what it saw to the test as JSON
 * (`mac-browser`) for the reporter.
 */
export function browserTestModuleText(realTestModule: string): string {
  return `'use strict';
const real = require(${JSON.stringify(realTestModule)});
const VITALS = ${JSON.stringify(VITALS_SCRIPT)};
const MAX = ${MAX_BROWSER_ENTRIES};
const cut = (s, n) => String(s ?? '').slice(0, n);
const test = real.test.extend({
  _macBrowser: [async ({ context }, use, testInfo) => {
    const docs = new Map();
    const seen = { console: [], network: [], consoleErrors: 0, networkErrors: 0, userScriptErrors: 0, documentErrors: 0 };
    const keep = (list, entry) => { if (list.length < MAX) list.push(entry); };
    const record = (d) => {
      if (!d || typeof d.id !== 'string' || typeof d.url !== 'string' || !d.vitals) return;
      if (!docs.has(d.id) && docs.size >= MAX) return;
      docs.set(d.id, { url: cut(d.url, 2048), vitals: d.vitals });
    };
    await context.exposeBinding('__macVitals', (_source, d) => record(d));
    await context.addInitScript(VITALS);
    const watch = (page) => {
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        seen.consoleErrors += 1;
        keep(seen.console, { text: cut(m.text(), 500), url: cut(page.url(), 2048) });
      });
      page.on('pageerror', (e) => {
        seen.userScriptErrors += 1;
        keep(seen.console, { text: cut('uncaught ' + (e && e.message), 500), url: cut(page.url(), 2048) });
      });
      page.on('requestfailed', (r) => {
        seen.networkErrors += 1;
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) seen.documentErrors += 1;
        keep(seen.network, { url: cut(r.url(), 2048), method: r.method(), status: null, error: cut(r.failure() && r.failure().errorText, 300) });
      });
      page.on('response', (r) => {
        if (r.status() < 400) return;
        const q = r.request();
        seen.networkErrors += 1;
        if (q.isNavigationRequest() && q.frame() === page.mainFrame()) seen.documentErrors += 1;
        keep(seen.network, { url: cut(r.url(), 2048), method: q.method(), status: r.status(), error: null });
      });
    };
    for (const p of context.pages()) watch(p);
    context.on('page', watch);
    await use();
    // A page whose text is there may not be painted yet (a busy renderer): its first paint is
    // awaited for a moment, then the vitals are read as they are.
    const read = () => new Promise((resolve) => {
      const done = () => resolve(window.__macVitalsNow ? window.__macVitalsNow() : null);
      if (!window.__macVitalsNow || !/^https?:/.test(location.href) || performance.getEntriesByName('first-contentful-paint').length > 0) return done();
      const t = setTimeout(done, 3000);
      try {
        new PerformanceObserver((list, o) => {
          if (!list.getEntries().some((e) => e.name === 'first-contentful-paint')) return;
          o.disconnect(); clearTimeout(t); done();
        }).observe({ type: 'paint', buffered: true });
      } catch { clearTimeout(t); done(); }
    });
    for (const p of context.pages()) {
      const d = await Promise.race([
        p.evaluate(read).catch(() => null),
        new Promise((r) => setTimeout(() => r(null), 4000)),
      ]);
      record(d);
    }
    const pages = [...docs.values()].filter((d) => /^https?:/.test(d.url));
    await testInfo.attach('mac-browser', { contentType: 'application/json', body: Buffer.from(JSON.stringify({ pages, ...seen })) });
  }, { auto: true }],
});
const own = new Set(['test', 'default']);
module.exports = new Proxy(test, {
  get(target, key) {
    if (own.has(key)) return test;
    if (key in target) return target[key];
    return real[key];
  },
  has(target, key) { return key in target || key in real; },
});
`;
}

/**
 * The module that bounds what a script prints, loaded first by the host (hostText), before
 * Playwright's worker replaces process.stdout/stderr.write with functions that hand every chunk to
 * the reporter. It counts the bytes of every write (whatever function Playwright or the script puts
 * in place is wrapped: the property is an accessor that cannot be redefined) and, past `maxBytes`,
 * leaves a marker next to itself and kills the run's process at once; mac reads the marker into
 * the run's error. A loop that prints without yielding is stopped within the limit, not at the
 * test's time limit.
 */
export function outputLimitText(maxBytes: number): string {
  return `'use strict';
// Generated for one script run: ends the run once the script printed more than the limit.
const path = require('node:path');
const fs = require('node:fs');
const LIMIT = ${Math.floor(maxBytes)};
const marker = path.join(__dirname, ${JSON.stringify(FILES.outputOver)});
let printed = 0;
const sizeOf = (chunk, encoding) => {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8');
  return chunk && typeof chunk.byteLength === 'number' ? chunk.byteLength : 0;
};
const over = () => {
  try { fs.writeFileSync(marker, String(printed)); } catch {}
  process.kill(process.pid, 'SIGKILL');
};
const guard = (stream) => {
  let write = stream.write;
  const counted = function (chunk, encoding, cb) {
    printed += sizeOf(chunk, encoding);
    if (printed > LIMIT) over();
    return write.apply(this, arguments);
  };
  Object.defineProperty(stream, 'write', { configurable: false, enumerable: true, get: () => counted, set: (fn) => { write = fn; } });
};
guard(process.stdout);
guard(process.stderr);
`;
}

/** What the generated host needs to know. */
export interface HostInput {
  /** The real directory of the `playwright` package (its internal modules are required from it). */
  playwrightDir: string;
  /** Bytes of log the reporter keeps. */
  maxLogBytes: number;
}

/**
 * Playwright's internal modules and functions the host uses: they are not its public API, so the
 * version is pinned by mac's lockfile and a test (multistep.test.ts) checks that each is still
 * where the host looks for it.
 */
export const PLAYWRIGHT_INTERNALS = {
  common: 'lib/common/index.js',
  workerEntry: 'lib/worker/workerProcessEntry.js',
  functions: [
    'configLoader.loadConfigFromFile',
    'testLoader.loadTestFile',
    'poolBuilder.PoolBuilder.createForLoader',
    'suiteUtils.bindFileSuiteToProject',
    'suiteUtils.filterOnly',
    'ipc.serializeConfig',
    'test.Suite',
  ],
} as const;

/**
 * The one process of a script run (FILES.host): Playwright's own test worker (`WorkerMain`, from
 * its `workerProcessEntry.js`) run in this process instead of a test runner process that spawns
 * it. What the runner would do around the worker is done here: load the config and the script,
 * list its tests (`test.only` kept, load and fixture errors and duplicate titles reported), send
 * the worker `__init__` and `runTestGroup` through the `process.send`/`message` pair its entry
 * uses, turn its events into the reporter's calls (reporter.cjs: log.txt and result.json), and
 * after a failing test start a new worker for the tests left, as Playwright's dispatcher does.
 * `progress.json` holds the tests reported so far and the one under way, so that a process that
 * dies (heap exhausted, killed for printing too much) still names it.
 */
export function hostText(input: HostInput): string {
  return `'use strict';
// Generated for one script run: the script's tests in this one process, with Playwright's own worker.
require('./${FILES.outputLimit}');
const fs = require('node:fs');
const path = require('node:path');
const PLAYWRIGHT = ${JSON.stringify(input.playwrightDir)};
const common = require(path.join(PLAYWRIGHT, ${JSON.stringify(PLAYWRIGHT_INTERNALS.common)}));
const WORKER_ENTRY = path.join(PLAYWRIGHT, ${JSON.stringify(PLAYWRIGHT_INTERNALS.workerEntry)});
const Reporter = require('./${FILES.reporter}');
const SCRIPT = path.join(__dirname, ${JSON.stringify(FILES.script)});
const reporter = new Reporter({ maxLogBytes: ${Math.floor(input.maxLogBytes)} });

let running = null;
let failedRun = false;
const progress = () => {
  const file = path.join(__dirname, ${JSON.stringify(FILES.progress)});
  try {
    fs.writeFileSync(file + '.tmp', JSON.stringify({ tests: reporter.tests, errors: reporter.errors, running }));
    fs.renameSync(file + '.tmp', file);
  } catch {}
};
const reportError = (error) => {
  failedRun = true;
  reporter.onError(error);
  progress();
};
const titleOf = (test) => (test.titlePath().slice(3).join(' > ') || test.title).slice(0, 500);

// The tests one worker runs, and what its events did to them (Playwright's JobDispatcher).
class Job {
  constructor(tests) {
    this.remaining = new Map(tests.map((t) => [t.id, t]));
    this.data = new Map();
    this.failed = new Set();
    this.current = undefined;
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }
  testBegin(p) {
    const test = this.remaining.get(p.testId);
    if (!test) return;
    const result = { status: 'passed', duration: -1, errors: [], attachments: [], steps: [], stdout: [], stderr: [], startTime: new Date(p.startWallTime) };
    this.data.set(test.id, { test, result, steps: new Map() });
    this.current = { test, result };
    running = titleOf(test);
    reporter.onTestBegin(test, result);
    progress();
  }
  testEnd(p) {
    const data = this.data.get(p.testId);
    if (!data) return;
    this.data.delete(p.testId);
    this.remaining.delete(p.testId);
    const { test, result } = data;
    result.duration = p.duration;
    result.errors = Array.isArray(p.errors) ? p.errors : [];
    result.error = result.errors[0];
    result.status = p.status;
    result.annotations = p.annotations;
    test.annotations = [...(p.annotations || [])];
    test.expectedStatus = p.expectedStatus;
    test.timeout = p.timeout;
    this.ended(test, result);
  }
  ended(test, result) {
    if (result.status !== 'skipped' && result.status !== test.expectedStatus) {
      this.failed.add(test);
      failedRun = true;
    }
    this.current = undefined;
    running = null;
    reporter.onTestEnd(test, result);
    progress();
  }
  stepBegin(p) {
    const data = this.data.get(p.testId);
    if (!data) return;
    const parent = p.parentStepId ? data.steps.get(p.parentStepId) : undefined;
    const step = { title: p.title, category: p.category, params: p.params, location: p.location, parent, startTime: new Date(p.wallTime), duration: -1, steps: [], attachments: [] };
    data.steps.set(p.stepId, step);
    (parent || data.result).steps.push(step);
  }
  stepEnd(p) {
    const data = this.data.get(p.testId);
    const step = data && data.steps.get(p.stepId);
    if (!step) return;
    step.duration = p.wallTime - step.startTime.getTime();
    if (p.error) step.error = p.error;
    data.steps.delete(p.stepId);
    reporter.onStepEnd(data.test, data.result, step);
  }
  attach(p) {
    const data = this.data.get(p.testId);
    if (!data) return;
    data.result.attachments.push({ name: p.name, path: p.path, contentType: p.contentType, body: p.body !== undefined ? Buffer.from(p.body, 'base64') : undefined });
  }
  output(p, stderr) {
    const chunk = p && typeof p.text === 'string' ? p.text : Buffer.from(String((p && p.buffer) || ''), 'base64');
    const { test, result } = this.current || {};
    if (stderr) reporter.onStdErr(chunk, test, result);
    else reporter.onStdOut(chunk, test, result);
  }
  failWithErrors(test, errors) {
    let result = this.data.get(test.id)?.result;
    if (!result) {
      result = { status: 'failed', duration: 0, errors: [], attachments: [], steps: [], stdout: [], stderr: [], startTime: new Date() };
      reporter.onTestBegin(test, result);
    }
    this.data.delete(test.id);
    result.errors = [...errors];
    result.error = result.errors[0];
    result.status = errors.length ? 'failed' : 'skipped';
    this.ended(test, result);
    this.failed.add(test);
  }
  skipFromRemaining(ids, errors) {
    for (const test of [...this.remaining.values()]) {
      if (!ids.has(test.id)) continue;
      this.failWithErrors(test, errors);
      errors = [];
      this.remaining.delete(test.id);
    }
    for (const error of errors) reportError(error);
  }
  done(p) {
    const fatalErrors = Array.isArray(p.fatalErrors) ? p.fatalErrors : [];
    const setupSkipped = Array.isArray(p.skipTestsDueToSetupFailure) ? p.skipTestsDueToSetupFailure : [];
    if (!this.remaining.size && !this.failed.size && !fatalErrors.length && !setupSkipped.length && !p.fatalUnknownTestIds && !p.stoppedDueToUnhandledErrorInTestFail) return this.finish([]);
    for (const id of p.fatalUnknownTestIds || []) {
      const test = this.remaining.get(id);
      if (!test) continue;
      this.remaining.delete(id);
      this.failWithErrors(test, [{ message: 'Test not found in the worker process. Make sure test title does not change.' }]);
    }
    if (fatalErrors.length) this.skipFromRemaining(new Set(this.remaining.keys()), fatalErrors);
    this.skipFromRemaining(new Set(setupSkipped), []);
    // A failed test of a serial suite skips the rest of that suite.
    const serial = new Set();
    for (const test of this.failed) {
      let outermost;
      for (let s = test.parent; s; s = s.parent) if (s._parallelMode === 'serial') outermost = s;
      if (outermost) serial.add(outermost);
    }
    const inSerial = [...this.remaining.values()].filter((t) => { let s = t.parent; while (s && !serial.has(s)) s = s.parent; return !!s; });
    this.skipFromRemaining(new Set(inSerial.map((t) => t.id)), []);
    this.finish([...this.remaining.values()]);
  }
}

// The worker's side of the channel: what it sends to its parent comes here; what the parent
// would send goes to it as a 'message' event.
let job;
let lastCall = 0;
const calls = new Map();
const toWorker = (message) => process.emit('message', message);
const call = (method, params) => new Promise((resolve, reject) => {
  const id = ++lastCall;
  calls.set(id, { resolve, reject });
  toWorker({ method: '__dispatch__', params: { id, method, params } });
});
const EVENTS = { testBegin: 'testBegin', testEnd: 'testEnd', stepBegin: 'stepBegin', stepEnd: 'stepEnd', attach: 'attach', done: 'done' };
function fromWorker(message) {
  if (!message || typeof message !== 'object') return;
  const params = message.params;
  if (message.method === '__dispatch__' && params && typeof params === 'object') {
    if (params.id !== undefined && calls.has(params.id)) {
      const { resolve, reject } = calls.get(params.id);
      calls.delete(params.id);
      if (params.error) reject(Object.assign(new Error(params.error.message), { stack: params.error.stack }));
      else resolve(params.result);
      return;
    }
    const event = params.params || {};
    if (params.method === 'stdOut' || params.method === 'stdErr') return job ? job.output(event, params.method === 'stdErr') : undefined;
    if (params.method === 'teardownErrors') return (event.fatalErrors || []).forEach(reportError);
    if (job && Object.prototype.hasOwnProperty.call(EVENTS, params.method)) job[EVENTS[params.method]](event);
  } else if (message.method === '__request__' && params && typeof params === 'object') {
    toWorker({ method: '__response__', params: { id: params.id, error: { message: 'Unknown method' } } });
  }
}
Object.defineProperty(process, 'send', { configurable: true, writable: true, value: (message) => { fromWorker(message); return true; } });

function duplicateTitles(config, fileSuite) {
  const errors = [];
  const seen = new Map();
  for (const test of fileSuite.allTests()) {
    const full = test.titlePath().slice(1).join(' \\u203a ');
    const first = seen.get(full);
    if (first) errors.push({ message: 'Error: duplicate test title "' + full + '", first declared in ' + path.relative(config.config.rootDir, first.location.file) + ':' + first.location.line, location: test.location });
    seen.set(full, test);
  }
  return errors;
}

async function runWorker(index, project, config, tests) {
  job = new Job(tests);
  const artifactsDir = path.join(project.project.outputDir, '.playwright-artifacts-' + index);
  fs.mkdirSync(artifactsDir, { recursive: true });
  const listeners = { unhandledRejection: process.listeners('unhandledRejection'), uncaughtException: process.listeners('uncaughtException') };
  const runnerParams = { workerIndex: index, parallelIndex: 0, repeatEachIndex: 0, projectId: project.id, config: common.ipc.serializeConfig(config, false), artifactsDir, pauseOnError: false, pauseAtEnd: false };
  toWorker({ method: '__init__', params: { processParams: { timeOrigin: performance.timeOrigin }, runnerParams } });
  call('runTestGroup', { file: SCRIPT, entries: tests.map((t) => ({ testId: t.id, retry: 0, planAnnotations: t._planAnnotations || [] })) }).catch(reportError);
  const rest = await job.finished;
  // The worker's end: worker fixtures torn down, browsers closed; their errors come as teardownErrors.
  await call('gracefullyClose').catch(reportError);
  // A stopped worker no longer owns the process's error handlers.
  for (const [event, before] of Object.entries(listeners)) for (const l of process.listeners(event)) if (!before.includes(l)) process.removeListener(event, l);
  fs.rmSync(artifactsDir, { recursive: true, force: true });
  job = undefined;
  return rest;
}

async function main() {
  const config = await common.configLoader.loadConfigFromFile(path.join(__dirname, ${JSON.stringify(FILES.config)}));
  const project = config.projects[0];
  const errors = [];
  const fileSuite = await common.testLoader.loadTestFile(SCRIPT, config, errors);
  common.poolBuilder.PoolBuilder.createForLoader().buildPools(fileSuite, errors);
  errors.push(...duplicateTitles(config, fileSuite));
  const root = new common.test.Suite('', 'root');
  const projectSuite = new common.test.Suite(project.project.name, 'project');
  projectSuite._fullProject = project;
  projectSuite._addSuite(common.suiteUtils.bindFileSuiteToProject(project, fileSuite));
  root._addSuite(projectSuite);
  common.suiteUtils.filterOnly(root);
  let tests = root.allTests();
  // As Playwright's runner: a script left without tests (none defined, or none loaded) says so.
  if (!tests.length) errors.push({ message: 'Error: No tests found' });
  for (const error of errors) reportError(error);
  if (errors.length) tests = [];
  else require(WORKER_ENTRY);
  for (let index = 0; tests.length > 0; index++) tests = await runWorker(index, project, config, tests);
  running = null;
  reporter.onEnd({ status: failedRun ? 'failed' : 'passed' });
}

main().then(
  () => process.exit(0),
  (error) => {
    try { process.stderr.write = () => true; } catch {}
    require('node:fs').writeSync(2, 'Error: ' + (error && error.stack ? error.stack : String(error)) + '\\n');
    process.exit(1);
  },
);
`;
}
