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
  /** The preload of every Node process of the run that ends a test worker printing past the limit. */
  outputLimit: 'output-limit.cjs',
  /** Written by that preload when it ends the worker: the run failed for printing too much. */
  outputOver: 'output-over-limit',
} as const;

/** What the generated config needs to know. */
export interface ConfigInput {
  /** Absolute path of playwright-core's entry, patched so that no browser launches. */
  playwrightCore: string;
  /** Per-test timeout in ms. */
  timeoutMs: number;
  /** Bytes of log the reporter keeps. */
  maxLogBytes: number;
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

/** Settings both kinds of script run share: one worker, no retries (mac retries), the reporter. */
function sharedSettings(input: ConfigInput, preserveOutput: 'never' | 'failures-only'): string {
  return `  testDir: __dirname,
  testMatch: [${JSON.stringify(FILES.script)}],
  outputDir: require('node:path').join(__dirname, 'out'),
  preserveOutput: '${preserveOutput}',
  reporter: [[require('node:path').join(__dirname, ${JSON.stringify(FILES.reporter)}), { maxLogBytes: ${input.maxLogBytes} }]],
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
 * long tasks after FCP), sent to the fixture through a binding as they change and read once
 * more at the end of the test (`__macVitalsNow`).
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
    for (const p of context.pages()) {
      const d = await Promise.race([
        p.evaluate(() => (window.__macVitalsNow ? window.__macVitalsNow() : null)).catch(() => null),
        new Promise((r) => setTimeout(() => r(null), 2000)),
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
 * The preload (NODE_OPTIONS --require) that bounds what a script prints. Playwright's test
 * worker replaces process.stdout/stderr.write with functions that queue every chunk on its IPC
 * channel to the runner; a loop that prints without yielding never lets that queue drain, so the
 * output piles up in the worker's memory and neither the runner's reporter nor the test's time
 * limit can stop it. In the worker only, this preload counts the bytes of every write (whatever
 * function Playwright or the script puts in place is wrapped: the property is an accessor that
 * cannot be redefined) and, past `maxBytes`, leaves a marker next to itself and kills the worker
 * at once; the runner reads the marker into the run's error. Other Node processes (the runner,
 * whatever the script starts) load it and do nothing.
 */
export function outputLimitText(maxBytes: number): string {
  return `'use strict';
// Generated for one script run: ends Playwright's test worker once the script printed more than the limit.
const path = require('node:path');
if (path.basename(process.argv[1] || '') === 'workerProcessEntry.js') {
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
}
`;
}
