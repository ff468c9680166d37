import pLimit from 'p-limit';
import type { Definition } from '../config/types.js';
import type { Kind } from '../schema/kinds.js';
import { runCheck, type AttemptResult, type RunOptions } from '../runner/index.js';

/**
 * `mac test`'s stage between loading and rendering: runs every TCP, DNS, URL, API, ICMP, multi-step and browser check of a project
 * once from this machine, with a bound on how many run at once, and summarises the outcome.
 */

/** How a check came out: pass, fail, pass over the degraded threshold, or not run. */
export type TestStatus = 'pass' | 'fail' | 'degraded' | 'skipped';

/** One check's line of the report. */
export interface TestEntry {
  kind: Kind;
  id: string;
  name: string;
  /** `TCP`, `DNS`, `URL`, `API`, `ICMP`, `MULTI_STEP`, `BROWSER` or `HEARTBEAT`. */
  checkType: string;
  file: string;
  line: number;
  status: TestStatus;
  /** Response time of the final attempt in ms; null when skipped. */
  responseTime: number | null;
  /** Retries made before the final attempt. */
  attempts: number;
  /** The failure (requestError, first failed assertion, threshold, inversion) or the reason for skipping. */
  message: string | null;
  /** Assertions of the final attempt that did not hold, as `SOURCE COMPARISON "target" (actual "...")`. */
  failedAssertions: string[];
  /** The final attempt as the runner reported it; null when skipped. */
  result: AttemptResult | null;
}

/** The whole report; `--format json` prints it as it is. */
export interface TestReport {
  version: 1;
  summary: Record<TestStatus, number>;
  checks: TestEntry[];
}

/** Options of a test run. */
export interface SuiteOptions {
  /** How many checks run at once. */
  concurrency: number;
  /** Passed to the runner (limits, retry wait cap, name server). */
  run?: RunOptions;
  /** false (--no-typescript): multi-step and browser scripts are code from the project, listed as skipped. */
  scripts?: boolean;
}

/** Why a multi-step or browser check is skipped under --no-typescript. */
export const NO_SCRIPTS = 'multi-step scripts are code: not run with --no-typescript';
const NO_BROWSER_SCRIPTS = 'browser check scripts are code: not run with --no-typescript';
/** Why an API check with a setup or teardown script is skipped under --no-typescript. */
export const NO_HOOK_SCRIPTS = 'setup and teardown scripts are code: not run with --no-typescript';

// Per check kind: the API checkType, and why a kind is not run here (null = it is run).
const KIND_TABLE: Partial<Record<Kind, { checkType: string; skip: string | null }>> = {
  TcpCheck: { checkType: 'TCP', skip: null },
  DnsCheck: { checkType: 'DNS', skip: null },
  UrlMonitor: { checkType: 'URL', skip: null },
  ApiCheck: { checkType: 'API', skip: null },
  IcmpMonitor: { checkType: 'ICMP', skip: null },
  MultiStepCheck: { checkType: 'MULTI_STEP', skip: null },
  BrowserCheck: { checkType: 'BROWSER', skip: null },
  HeartbeatCheck: { checkType: 'HEARTBEAT', skip: 'heartbeat checks wait for pings; there is nothing to run' },
};

/** Retry waits are cut to this, as the local service does, so a test run stays short. */
export const TEST_MAX_WAIT_MS = 2000;

/** Runs the present check definitions and returns the report, in definition order. */
export async function runSuite(definitions: Definition[], opts: SuiteOptions): Promise<TestReport> {
  const limit = pLimit(Math.max(1, opts.concurrency));
  const checks = definitions.filter((d) => d.state === 'present' && KIND_TABLE[d.kind] !== undefined);
  const snippets = new Map(definitions.filter((d) => d.kind === 'Snippet').map((d) => [d.id, typeof d.spec.script === 'string' ? d.spec.script : null]));
  const entries = await Promise.all(checks.map((d) => limit(() => testOne(withSnippets(d, snippets), opts))));
  const summary: Record<TestStatus, number> = { pass: 0, fail: 0, degraded: 0, skipped: 0 };
  for (const e of entries) summary[e.status]++;
  return { version: 1, summary, checks: entries };
}

/**
 * An API check with the script of the snippet it names (`setupSnippet`, `tearDownSnippet`, by
 * logical id) where it has no `localSetupScript` or `localTearDownScript` of its own, as the
 * service runs it.
 */
function withSnippets(def: Definition, snippets: Map<string, string | null>): Definition {
  if (def.kind !== 'ApiCheck') return def;
  const own = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);
  const ref = (v: unknown) => (typeof v === 'string' ? (snippets.get(v) ?? null) : null);
  const localSetupScript = own(def.spec.localSetupScript) ?? ref(def.refs.setupSnippet);
  const localTearDownScript = own(def.spec.localTearDownScript) ?? ref(def.refs.tearDownSnippet);
  if (localSetupScript === null && localTearDownScript === null) return def;
  return { ...def, spec: { ...def.spec, localSetupScript, localTearDownScript } };
}

/** Whether a definition runs code of the project when tested (scripts). */
function scriptSkip(def: Definition, checkType: string): string | null {
  if (checkType === 'MULTI_STEP') return NO_SCRIPTS;
  if (checkType === 'BROWSER') return NO_BROWSER_SCRIPTS;
  if (checkType === 'API' && (def.spec.localSetupScript != null || def.spec.localTearDownScript != null)) return NO_HOOK_SCRIPTS;
  return null;
}

async function testOne(def: Definition, opts: SuiteOptions): Promise<TestEntry> {
  const { checkType } = KIND_TABLE[def.kind]!;
  const skip = (opts.scripts === false ? scriptSkip(def, checkType) : null) ?? KIND_TABLE[def.kind]!.skip;
  const base = {
    kind: def.kind,
    id: def.id,
    name: typeof def.spec.name === 'string' ? def.spec.name : def.id,
    checkType,
    file: def.file,
    line: def.line,
  };
  if (skip !== null) {
    return { ...base, status: 'skipped', responseTime: null, attempts: 0, message: skip, failedAssertions: [], result: null };
  }
  let attempts: AttemptResult[];
  try {
    attempts = await runCheck({ ...def.spec, checkType } as Parameters<typeof runCheck>[0], { maxWaitMs: TEST_MAX_WAIT_MS, ...opts.run });
  } catch (err) {
    // Validation ran before, so this is a definition the runner cannot read: say so, do not pass it.
    const message = `cannot run this check: ${err instanceof Error ? err.message : String(err)}`;
    return { ...base, status: 'fail', responseTime: null, attempts: 0, message, failedAssertions: [], result: null };
  }
  // The assets' bytes (a failed browser check's screenshot and trace) stay out of the report.
  const { assets: _assets, ...final } = attempts[attempts.length - 1];
  const failed = (final.apiCheckResult?.assertions ?? []).filter((a) => !a.passed);
  return {
    ...base,
    status: final.hasFailures || final.hasErrors ? 'fail' : final.isDegraded ? 'degraded' : 'pass',
    responseTime: final.responseTime,
    attempts: final.attempts,
    message: final.errorMessage,
    // After a request error no assertion could hold; the error alone says what went wrong.
    failedAssertions:
      final.apiCheckResult?.requestError != null
        ? []
        : failed.map((a) => `${a.source}${a.property ? ` ${a.property}` : ''} ${a.comparison} "${a.target}" (actual ${a.actual === null ? 'nothing' : JSON.stringify(a.actual)})`),
    result: final,
  };
}

/** Exit code of a test run: 1 when any check failed. */
export function testExitCode(report: TestReport): number {
  return report.summary.fail > 0 ? 1 : 0;
}
