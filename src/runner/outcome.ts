import type { ApiCheckResult, Assertion, AssertionResult } from './types.js';
import type { Probe } from './probe.js';
import { assertionFailureMessage, evaluateAssertions } from './assertions.js';

/** The thresholds and inversion of a check that decide an attempt's outcome. */
export interface Verdict {
  shouldFail: boolean;
  degradedResponseTime: number | null;
  maxResponseTime: number | null;
  /** ICMP: packet loss (%) from which the attempt is degraded, and from which it fails. */
  degradedPacketLossThreshold?: number | null;
  maxPacketLossThreshold?: number | null;
}

/** The outcome of one attempt (api-decisions §5.2). */
export interface Outcome {
  /** Connection/resolution error, failed assertion, or over maxResponseTime, before shouldFail. */
  rawFailed: boolean;
  hasFailures: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  /** The §5.4 raw error message when the attempt has failures, else null. */
  errorMessage: string | null;
  assertions: AssertionResult[];
  /** The assertions ran over the run's evaluation budget: the result's requestError says so. */
  overBudget?: boolean;
}

/** Evaluates assertions and thresholds on what a probe observed, on this thread, without a budget. */
export function judge(probe: Probe, assertions: Assertion[], verdict: Verdict): Outcome {
  const values = judgedValues(probe);
  // After a connection or resolution error there is no response to assert on: none passes.
  const results = probe.requestError === null ? evaluateAssertions(assertions, values, Infinity).results : unevaluated(assertions);
  return decide(probe, results, verdict, null);
}

/** The values assertions read: what the probe observed, and its response time. */
export function judgedValues(probe: Probe): Record<string, unknown> {
  return { ...probe.values, RESPONSE_TIME: probe.responseTime };
}

/** Assertions failed without being evaluated (no response, or no budget left). */
export function unevaluated(assertions: Assertion[]): AssertionResult[] {
  return assertions.map((a) => ({ ...a, actual: null, passed: false }));
}

/**
 * The outcome of an attempt from its evaluated assertions and its thresholds. `budgetError` says
 * the assertions ran over the run's evaluation budget: the attempt fails with it, inverted or not
 * (an evaluation cut short proves nothing either way).
 */
export function decide(probe: Probe, results: AssertionResult[], verdict: Verdict, budgetError: string | null): Outcome {
  const firstFailed = results.find((r) => !r.passed);
  const reaches = (limit: number | null) => limit !== null && probe.responseTime >= limit;
  const overMaxResponseTime = reaches(verdict.maxResponseTime);
  const loses = (limit: number | null | undefined) => probe.packetLoss !== undefined && limit !== null && limit !== undefined && probe.packetLoss >= limit;
  const overMaxLoss = probe.requestError === null && loses(verdict.maxPacketLossThreshold);
  const rawFailed = probe.requestError !== null || overMaxLoss || firstFailed !== undefined || overMaxResponseTime;
  if (budgetError !== null && probe.requestError === null) {
    return { rawFailed: true, hasFailures: true, isDegraded: false, overMaxResponseTime, errorMessage: budgetError, assertions: results, overBudget: true };
  }
  const hasFailures = rawFailed !== verdict.shouldFail;
  let errorMessage: string | null = null;
  if (hasFailures) {
    if (!rawFailed) errorMessage = 'Check was expected to fail but passed';
    else if (probe.requestError !== null) errorMessage = probe.requestError;
    else if (overMaxLoss) errorMessage = `Packet loss ${probe.packetLoss}% reached ${verdict.maxPacketLossThreshold}%`;
    else if (firstFailed) errorMessage = assertionFailureMessage(firstFailed);
    else errorMessage = `Response time ${probe.responseTime}ms exceeded ${verdict.maxResponseTime}ms`;
  }
  return {
    rawFailed,
    hasFailures,
    isDegraded: !hasFailures && (reaches(verdict.degradedResponseTime) || loses(verdict.degradedPacketLossThreshold)),
    overMaxResponseTime,
    errorMessage,
    assertions: results,
  };
}

/**
 * The `apiCheckResult` of an attempt (api-decisions §5.3). `request.data` is a string in the
 * reference API: nothing sent is "" (it was null, defect D4 of issue 16). HTTP probes bring the
 * request as sent and the response's headers and timings; TCP and DNS leave them empty.
 */
export function apiCheckResult(method: string, data: string | null, probe: Probe, assertions: AssertionResult[]): ApiCheckResult {
  const http = probe.http;
  return {
    request: http
      ? { method: http.method, url: probe.url, data: http.data, headers: http.requestHeaders, params: http.params }
      : { method, url: probe.url, data: data ?? '', headers: {}, params: {} },
    response: {
      status: probe.status,
      statusText: probe.statusText,
      body: probe.body,
      headers: http?.responseHeaders ?? {},
      timings: http?.timings ?? null,
      timingPhases: probe.timingPhases,
    },
    assertions,
    requestError: probe.requestError,
    ...(http?.certificate ? { certificate: http.certificate } : {}),
    jobLog: null,
    jobAssets: null,
    pcapDataUrl: null,
  };
}
