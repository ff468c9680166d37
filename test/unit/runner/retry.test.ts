import { describe, expect, it } from 'vitest';
import { backoffMs, nextRetryDelay } from '../../../src/runner/retry.js';
import { retryStrategySchema, type RetryStrategy } from '../../../src/runner/types.js';

const strategy = (s: Partial<RetryStrategy> & { type: RetryStrategy['type'] }): RetryStrategy => retryStrategySchema.parse(s);
const failed = { retries: 0, failed: true, networkError: false, elapsedMs: 0 };

describe('retry policy', () => {
  it('computes FIXED, LINEAR and EXPONENTIAL backoff', () => {
    const b = { baseBackoffSeconds: 10 };
    expect([1, 2, 3].map((n) => backoffMs(strategy({ type: 'FIXED', ...b }), n))).toEqual([10_000, 10_000, 10_000]);
    expect([1, 2, 3].map((n) => backoffMs(strategy({ type: 'LINEAR', ...b }), n))).toEqual([10_000, 20_000, 30_000]);
    expect([1, 2, 3].map((n) => backoffMs(strategy({ type: 'EXPONENTIAL', ...b }), n))).toEqual([10_000, 20_000, 40_000]);
  });

  it('retries once, immediately, with no strategy and doubleCheck on', () => {
    expect(nextRetryDelay(null, true, failed)).toBe(0);
    expect(nextRetryDelay(null, true, { ...failed, retries: 1 })).toBeNull();
    expect(nextRetryDelay(null, false, failed)).toBeNull();
  });

  it('never retries a passing attempt', () => {
    expect(nextRetryDelay(null, true, { ...failed, failed: false })).toBeNull();
    expect(nextRetryDelay(strategy({ type: 'FIXED' }), true, { ...failed, failed: false })).toBeNull();
  });

  it('stops at maxRetries, and SINGLE_RETRY at one', () => {
    const s = strategy({ type: 'FIXED', baseBackoffSeconds: 1, maxRetries: 2 });
    expect(nextRetryDelay(s, false, { ...failed, retries: 1 })).toBe(1000);
    expect(nextRetryDelay(s, false, { ...failed, retries: 2 })).toBeNull();
    const single = strategy({ type: 'SINGLE_RETRY', baseBackoffSeconds: 5, maxRetries: 5 });
    expect(nextRetryDelay(single, false, failed)).toBe(5000);
    expect(nextRetryDelay(single, false, { ...failed, retries: 1 })).toBeNull();
  });

  it('retries only network errors with onlyOn NETWORK_ERROR', () => {
    const s = strategy({ type: 'FIXED', baseBackoffSeconds: 0, onlyOn: ['NETWORK_ERROR'] });
    expect(nextRetryDelay(s, false, failed)).toBeNull();
    expect(nextRetryDelay(s, false, { ...failed, networkError: true })).toBe(0);
  });

  it('does not retry past maxDurationSeconds', () => {
    const s = strategy({ type: 'EXPONENTIAL', baseBackoffSeconds: 10, maxRetries: 5, maxDurationSeconds: 60 });
    // Third retry would wait 40 s: 30.5 s + 40 s passes the 60 s budget.
    expect(nextRetryDelay(s, false, { ...failed, retries: 2, elapsedMs: 30_500 })).toBeNull();
    expect(nextRetryDelay(s, false, { ...failed, retries: 2, elapsedMs: 20_000 })).toBe(40_000);
    expect(nextRetryDelay(s, false, { ...failed, retries: 1, elapsedMs: 10_000 })).toBe(20_000);
    expect(nextRetryDelay(s, false, { ...failed, retries: 1, elapsedMs: 40_001 })).toBeNull();
  });
});
