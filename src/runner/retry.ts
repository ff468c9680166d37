import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { AttemptResult, RunOptions } from './run.js';
import type { RetryStrategy } from './types.js';

/** What the retry policy needs to know about the attempts so far. */
export interface RetryState {
  /** Retries already made (0 after the first attempt). */
  retries: number;
  /** The last attempt failed (after shouldFail). */
  failed: boolean;
  /** The last attempt's failure was a connection or resolution error. */
  networkError: boolean;
  /** Milliseconds since the first attempt began, counting waits at their nominal length. */
  elapsedMs: number;
}

/** Nominal wait before retry number `n` (1-based): FIXED b, LINEAR b*n, EXPONENTIAL b*2^(n-1). */
export function backoffMs(strategy: RetryStrategy, n: number): number {
  const base = strategy.baseBackoffSeconds * 1000;
  switch (strategy.type) {
    case 'LINEAR':
      return base * n;
    case 'EXPONENTIAL':
      return base * 2 ** (n - 1);
    case 'FIXED':
    case 'SINGLE_RETRY':
      return base;
  }
}

/** The most retries a strategy allows; SINGLE_RETRY always allows one. */
export function maxRetries(strategy: RetryStrategy): number {
  return strategy.type === 'SINGLE_RETRY' ? 1 : strategy.maxRetries;
}

/**
 * Whether to retry, and after how long (nominal ms), per api-decisions §5.2: no strategy with
 * doubleCheck = one immediate retry; otherwise the strategy's backoff, `onlyOn`, retry count and
 * `maxDurationSeconds`. Null = this attempt is the last.
 */
export function nextRetryDelay(strategy: RetryStrategy | null, doubleCheck: boolean, state: RetryState): number | null {
  if (!state.failed) return null;
  if (strategy === null) return doubleCheck && state.retries === 0 ? 0 : null;
  if (state.retries >= maxRetries(strategy)) return null;
  if (strategy.onlyOn.includes('NETWORK_ERROR') && !state.networkError) return null;
  const wait = backoffMs(strategy, state.retries + 1);
  if (state.elapsedMs + wait > strategy.maxDurationSeconds * 1000) return null;
  return wait;
}

/**
 * Runs `once` until the check's retry policy stops (api-decisions §5.2): numbers the attempts,
 * marks the last one FINAL, reports each through `onAttempt` before any wait, and waits between
 * them (cut to `maxWaitMs`, counted at their nominal length). An attempt with errors is final.
 */
export async function attemptWithRetries(
  check: { retryStrategy: RetryStrategy | null; doubleCheck: boolean },
  once: () => Promise<AttemptResult>,
  opts: Pick<RunOptions, 'onAttempt' | 'maxWaitMs' | 'sleep'>,
): Promise<AttemptResult[]> {
  const sleep = opts.sleep ?? ((ms: number) => delay(ms));
  const results: AttemptResult[] = [];
  let elapsedMs = 0;
  for (;;) {
    const began = performance.now();
    const result = await once();
    elapsedMs += performance.now() - began;
    const wait = result.hasErrors
      ? null
      : nextRetryDelay(check.retryStrategy, check.doubleCheck, {
          retries: results.length,
          failed: result.hasFailures,
          networkError: result.networkError,
          elapsedMs,
        });
    result.attempts = results.length;
    result.resultType = wait === null ? 'FINAL' : 'ATTEMPT';
    results.push(result);
    await opts.onAttempt?.(result);
    if (wait === null) return results;
    elapsedMs += wait;
    if (wait > 0) await sleep(Math.min(wait, opts.maxWaitMs ?? Infinity));
  }
}
