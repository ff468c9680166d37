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
