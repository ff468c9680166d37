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
} as const;

/** What the generated config needs to know. */
export interface ConfigInput {
  /** Absolute path of playwright-core's entry, patched so that no browser launches. */
  playwrightCore: string;
  /** Per-test timeout in ms. */
  timeoutMs: number;
  /** Bytes of log the reporter keeps. */
  maxLogBytes: number;
}

/** The generated playwright.config.cjs. */
export function configText(input: ConfigInput): string {
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
  testDir: __dirname,
  testMatch: [${JSON.stringify(FILES.script)}],
  outputDir: require('node:path').join(__dirname, 'out'),
  preserveOutput: 'never',
  reporter: [[require('node:path').join(__dirname, ${JSON.stringify(FILES.reporter)}), { maxLogBytes: ${input.maxLogBytes} }]],
  workers: 1,
  retries: 0,
  maxFailures: 0,
  timeout: ${input.timeoutMs},
  updateSnapshots: 'none',
  use: { trace: 'off', screenshot: 'off', video: 'off' },
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
    if (this.tests.length < MAX_ENTRIES) this.tests.push({ title: (test.titlePath().slice(3).join(' > ') || test.title).slice(0, 500), status: result.status, ok, duration: result.duration, errors, failedStep: s.failedStep });
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
