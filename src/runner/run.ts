import {
  runnableCheckSchema,
  type ApiCheckResult,
  type Assertion,
  type DnsCheck,
  type BrowserCheckResult,
  type MultiStepCheckResult,
  type RunAsset,
  type RunnableCheck,
  type RunnableCheckInput,
  type TcpCheck,
  type UrlCheck,
  type ApiCheck,
  type IcmpCheck,
} from './types.js';
import { DEFAULT_LIMITS, type Probe, type ProbeLimits } from './probe.js';
import { probeTcp } from './tcp.js';
import { probeHttp } from './http/probe.js';
import { DEFAULT_ICMP_OPTIONS, probeIcmp, type IcmpOptions } from './icmp.js';
import { probeDns, type NameServerSource } from './dns/probe.js';
import { systemNameServer } from './dns/client.js';
import { apiCheckResult, decide, judgedValues, unevaluated, type Outcome, type Verdict } from './outcome.js';
import { ASSERTION_BUDGET_MS, evaluateAssertions, type Evaluation } from './assertions.js';
import { assertionPool, cheapAssertions, type AssertionPool } from './assertion-pool.js';
import { attemptWithRetries } from './retry.js';
import { runBrowser, runMultiStep, type MultiStepLimits } from './multistep/run.js';
import type { TargetGuard } from './guard.js';
import { applyScriptRequest, runHook, scriptRequest } from './http/scripts.js';
import { performance } from 'node:perf_hooks';
import type { SandboxLimits, ScriptPolicy } from './sandbox.js';

/** How a run behaves; every field has a production default. */
export interface RunOptions {
  limits?: Partial<ProbeLimits>;
  /** Caps every retry wait (the service cuts them to 2 s); waits still count nominally. */
  maxWaitMs?: number;
  /** Waits between attempts (tests and the time-scaled service pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** Name server for DNS checks without `nameServer`. */
  systemNameServer?: NameServerSource;
  /** Called with each attempt as soon as it ends, before any retry wait. */
  onAttempt?: (attempt: AttemptResult) => void | Promise<void>;
  /** Time limit and log bound of multi-step runs. */
  multiStep?: Partial<MultiStepLimits>;
  /** Time limit of each setup and teardown script of an API check, ms (default HOOK_TIMEOUT_MS, the reference's 10 s). */
  hookTimeoutMs?: number;
  /** The ping ICMP monitors run. */
  icmp?: Partial<IcmpOptions>;
  /**
   * The service's network policy, asked with every resolved address before a URL, API or TCP
   * check connects (every redirect hop included) and before a DNS check queries its own name
   * server; none in `mac test`. Multi-step scripts make their own connections: not covered.
   */
  guard?: TargetGuard;
  /** The account the check belongs to: script runs are shared fairly between accounts. */
  account?: string;
  /** Whether scripts may run without the sandbox (default: refused; mac test and --unsafe-scripts allow it). */
  scripts?: ScriptPolicy;
  /** Limits of the script sandbox (sandbox.ts has the defaults). */
  sandbox?: Partial<SandboxLimits>;
  /** Milliseconds of assertion evaluation a run may use over its attempts (default ASSERTION_BUDGET_MS). */
  assertionBudgetMs?: number;
  /** The threads assertions are evaluated on (default: the process's pool). */
  assertionPool?: AssertionPool;
}

/** One attempt's result: the check-result fields the runner owns (api-decisions §5.2, §5.3). */
export interface AttemptResult {
  /** FINAL for the last attempt of the run, ATTEMPT for the ones retried. */
  resultType: 'FINAL' | 'ATTEMPT';
  /** Retries before this attempt. */
  attempts: number;
  hasFailures: boolean;
  hasErrors: boolean;
  /** Null for kinds without response-time thresholds. */
  isDegraded: boolean | null;
  overMaxResponseTime: boolean | null;
  responseTime: number;
  startedAt: string;
  stoppedAt: string;
  apiCheckResult: ApiCheckResult | null;
  browserCheckResult: BrowserCheckResult | null;
  multiStepCheckResult: MultiStepCheckResult | null;
  /** Files of the attempt (a failed browser check's screenshot and trace); not part of the result's JSON. */
  assets?: RunAsset[];
  /** The §5.4 raw error message (feeds error groups); null when the attempt has no failures. */
  errorMessage: string | null;
  /** The failure was a connection or resolution error. */
  networkError: boolean;
}

/** What each executable kind contributes: its probe and the assertions it always applies. */
interface KindRunner<C> {
  method: string;
  probe(check: C, limits: ProbeLimits, opts: RunOptions): Promise<Probe>;
  assertions(check: C): Assertion[];
  data(check: C): string | null;
}

const TCP: KindRunner<TcpCheck> = {
  method: 'TCP',
  probe: (check, limits, opts) => probeTcp(check.request, limits, opts.guard),
  assertions: (check) => check.request.assertions,
  data: (check) => check.request.data,
};

const DNS: KindRunner<DnsCheck> = {
  method: 'DNS',
  probe: (check, limits, opts) => probeDns(check.request, limits, opts.systemNameServer ?? systemNameServer, opts.guard),
  // The reference passes only NOERROR unless the check asserts on the response code itself.
  assertions: (check) =>
    check.request.assertions.some((a) => a.source === 'RESPONSE_CODE')
      ? check.request.assertions
      : [...check.request.assertions, { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR', property: '', regex: '' }],
  data: () => null,
};

/** Implied when an HTTP check asserts nothing on the status: an error status fails it (docs/runs.md). */
export const IMPLIED_STATUS: Assertion = { source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '400', property: '', regex: '' };

const HTTP: KindRunner<UrlCheck | ApiCheck> = {
  method: 'GET',
  probe: (check, limits, opts) => (check.checkType === 'API' ? probeApi(check, limits, opts) : probeHttp(check.request, limits, opts.guard)),
  assertions: (check) =>
    check.request.assertions.some((a) => a.source === 'STATUS_CODE') ? check.request.assertions : [...check.request.assertions, IMPLIED_STATUS],
  data: () => null,
};

const ICMP: KindRunner<IcmpCheck> = {
  method: 'ICMP',
  probe: (check, limits, opts) => probeIcmp(check.request, limits, { ...DEFAULT_ICMP_OPTIONS, ...opts.icmp }),
  assertions: (check) => check.request.assertions,
  data: () => null,
};
/**
 * An API check's attempt: its setup script (which may change the request), the request, then its
 * teardown script (which reads the response). A script's failure is the attempt's requestError:
 * the run fails with the script's own message.
 */
async function probeApi(check: ApiCheck, limits: ProbeLimits, opts: RunOptions): Promise<Probe> {
  if (check.localSetupScript === null && check.localTearDownScript === null) return probeHttp(check.request, limits, opts.guard);
  const ctx = {
    env: Object.fromEntries(check.environmentVariables.map((v) => [v.key, v.value])),
    secrets: check.environmentVariables.filter((v) => v.secret).map((v) => v.value),
    account: opts.account,
    policy: opts.scripts,
    limits: opts.sandbox,
    timeoutMs: opts.hookTimeoutMs,
  };
  let request = check.request;
  if (check.localSetupScript !== null) {
    const began = performance.now();
    const setup = await runHook('setup', check.localSetupScript, scriptRequest(request), null, ctx);
    if (!setup.ok) return scriptFailure(request.url, setup.error, performance.now() - began);
    request = applyScriptRequest(request, setup.request);
  }
  const probe = await probeHttp(request, limits, opts.guard);
  if (check.localTearDownScript === null || probe.requestError !== null) return probe;
  const response = {
    statusCode: probe.status,
    statusText: probe.statusText,
    headers: probe.http?.responseHeaders ?? {},
    body: probe.body,
  };
  const teardown = await runHook('teardown', check.localTearDownScript, scriptRequest(request), response, ctx);
  return teardown.ok ? probe : { ...probe, requestError: teardown.error, networkError: false };
}

/** The attempt of a check whose setup script failed: nothing was sent. */
function scriptFailure(url: string, message: string, elapsed: number): Probe {
  return { ...faultProbe(message), url: url.replace(/\/\/[^/@]*@/, '//'), statusText: '', responseTime: Math.round(elapsed) };
}

/** The message a check gets when its kind is not executed here (api-decisions §5.1). */
export const NOT_EXECUTED: Record<'HEARTBEAT', string> = {
  HEARTBEAT: 'heartbeat checks are not run; they are fed by pings',
};

/**
 * Runs a check once from this machine, with retries, and returns every attempt (the last one
 * FINAL). Multi-step checks run their script in a child process (multistep/run.ts). Heartbeat checks are not executed: one FINAL result with hasErrors
 * says so, never a pass.
 */
export async function runCheck(input: RunnableCheckInput | RunnableCheck, opts: RunOptions = {}): Promise<AttemptResult[]> {
  const check = runnableCheckSchema.parse(input);
  if (check.checkType === 'TCP') return runAttempts(check, TCP, opts);
  if (check.checkType === 'DNS') return runAttempts(check, DNS, opts);
  if (check.checkType === 'MULTI_STEP') return runMultiStep(check, opts);
  if (check.checkType === 'BROWSER') return runBrowser(check, opts);
  if (check.checkType === 'URL' || check.checkType === 'API') return runAttempts(check, HTTP, opts);
  if (check.checkType === 'ICMP') return runAttempts(check, ICMP, opts);
  const result = notExecuted(NOT_EXECUTED[check.checkType]);
  await opts.onAttempt?.(result);
  return [result];
}

async function runAttempts<C extends TcpCheck | DnsCheck | UrlCheck | ApiCheck | IcmpCheck>(check: C, kind: KindRunner<C>, opts: RunOptions): Promise<AttemptResult[]> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  // One budget of assertion evaluation for the run, spent by its attempts in turn.
  const budget = { totalMs: opts.assertionBudgetMs ?? ASSERTION_BUDGET_MS, leftMs: opts.assertionBudgetMs ?? ASSERTION_BUDGET_MS };
  return attemptWithRetries(check, () => attempt(check, kind, limits, opts, budget), opts);
}

/** The message of an attempt whose assertions ran over the run's budget. */
export function budgetMessage(totalMs: number, evaluated: number, count: number): string {
  return `assertions ran over this run's evaluation budget of ${totalMs} ms and were stopped (${evaluated} of ${count} evaluated); make their regexes simpler or fewer`;
}

/**
 * Judges an attempt: assertions on small values here, the others on the assertion pool within
 * what is left of the run's budget (assertion-pool.ts).
 */
async function judgeAttempt(probe: Probe, assertions: Assertion[], verdict: Verdict, opts: RunOptions, budget: { totalMs: number; leftMs: number }): Promise<Outcome> {
  if (probe.requestError !== null) return decide(probe, unevaluated(assertions), verdict, null);
  const values = judgedValues(probe);
  let evaluation: Evaluation;
  if (cheapAssertions(assertions)) evaluation = evaluateAssertions(assertions, values, Infinity);
  else if (budget.leftMs <= 0) evaluation = { results: unevaluated(assertions), elapsedMs: 0, overBudget: true, evaluated: 0 };
  else evaluation = await (opts.assertionPool ?? assertionPool()).evaluate(opts.account ?? '', assertions, values, budget.leftMs);
  if (!cheapAssertions(assertions)) budget.leftMs -= evaluation.elapsedMs;
  const budgetError = evaluation.overBudget ? budgetMessage(budget.totalMs, evaluation.evaluated, assertions.length) : null;
  return decide(probe, evaluation.results, verdict, budgetError);
}

async function attempt<C extends TcpCheck | DnsCheck | UrlCheck | ApiCheck | IcmpCheck>(
  check: C,
  kind: KindRunner<C>,
  limits: ProbeLimits,
  opts: RunOptions,
  budget: { totalMs: number; leftMs: number },
): Promise<AttemptResult> {
  const startedAt = new Date();
  let probe: Probe;
  let fault = false;
  try {
    probe = await kind.probe(check, limits, opts);
  } catch (err) {
    // Probes report network trouble in their result; anything thrown is a fault of the runner.
    fault = true;
    probe = faultProbe(`internal runner error: ${err instanceof Error ? err.message : String(err)}`);
  }
  let outcome: Outcome;
  try {
    outcome = await judgeAttempt(probe, kind.assertions(check), check, opts, budget);
  } catch (err) {
    // The pool lost its thread, or could not start one: a fault of the runner, not of the check.
    fault = true;
    probe = faultProbe(`internal runner error: ${err instanceof Error ? err.message : String(err)}`);
    outcome = decide(probe, unevaluated(kind.assertions(check)), check, null);
  }
  return {
    resultType: 'FINAL',
    attempts: 0,
    hasFailures: !fault && outcome.hasFailures,
    hasErrors: fault,
    isDegraded: outcome.isDegraded,
    overMaxResponseTime: outcome.overMaxResponseTime,
    responseTime: probe.responseTime,
    startedAt: startedAt.toISOString(),
    stoppedAt: new Date().toISOString(),
    // Over its budget, the attempt has no failed assertion to tell why it failed: the result's
    // error says it (and becomes the error group, as a request error does).
    apiCheckResult: outcome.overBudget
      ? { ...apiCheckResult(kind.method, kind.data(check), probe, outcome.assertions), requestError: outcome.errorMessage }
      : apiCheckResult(kind.method, kind.data(check), probe, outcome.assertions),
    browserCheckResult: null,
    multiStepCheckResult: null,
    errorMessage: fault ? probe.requestError : outcome.errorMessage,
    networkError: outcome.hasFailures && probe.networkError,
  };
}

function faultProbe(message: string): Probe {
  return {
    url: '',
    status: 0,
    statusText: 'ERROR',
    body: '',
    timingPhases: { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0, total: 0 },
    responseTime: 0,
    requestError: message,
    networkError: false,
    values: {},
  };
}

/** A result that ran nothing: hasErrors with the reason, in the multi-step result shape. */
export function notExecuted(reason: string): AttemptResult {
  const at = Date.now();
  const now = new Date(at).toISOString();
  return {
    resultType: 'FINAL',
    attempts: 0,
    hasFailures: false,
    hasErrors: true,
    isDegraded: null,
    overMaxResponseTime: null,
    responseTime: 0,
    startedAt: now,
    stoppedAt: now,
    apiCheckResult: null,
    browserCheckResult: null,
    multiStepCheckResult: { errors: [reason], startTime: at, endTime: at, runtimeVersion: null, jobLog: [reason], jobAssets: null },
    errorMessage: reason,
    networkError: false,
  };
}
