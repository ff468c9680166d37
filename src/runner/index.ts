/**
 * The check runner shared by `mac serve` and `mac test`: TCP, DNS, HTTP and ICMP probes, multi-step scripts, the assertion
 * evaluator, outcomes and retries (api-decisions §5.2-§5.4). It depends on neither the engine
 * nor the service.
 */
export { runCheck, notExecuted, NOT_EXECUTED, type AttemptResult, type RunOptions } from './run.js';
export { runMultiStep, runBrowser, CHROMIUM_PATH, MAX_ASSET_BYTES, multiStepLoad, stopMultiStepRuns, MULTI_STEP_DEFAULTS, MULTI_STEP_CONCURRENCY, type MultiStepLimits } from './multistep/run.js';
export { NO_BROWSER } from './multistep/files.js';
export { DEFAULT_LIMITS, type ProbeLimits, type Probe } from './probe.js';
export { evaluateAssertion, assertionFailureMessage, ASSERTION_SOURCES, COMPARISONS } from './assertions.js';
export { judge, type Outcome, type Verdict } from './outcome.js';
export { nextRetryDelay, backoffMs, maxRetries, type RetryState } from './retry.js';
export { systemNameServer } from './dns/client.js';
export { PING_MISSING, parsePingOutput, type IcmpDocument, type IcmpOptions } from './icmp.js';
export type { NameServerSource, JsonAnswer } from './dns/probe.js';
export { readStreamLimited } from './bounded-read.js';
export * from './types.js';
