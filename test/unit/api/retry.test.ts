import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay } from '../../../src/api/retry.js';
import { NetworkError, RateLimitedError } from '../../../src/api/errors.js';

describe('retryDelay', () => {
  const limited = (retryAfter?: number) => new RateLimitedError('x', { status: 429, method: 'GET', path: '/', body: undefined, retryAfter });
  it('uses 1, 2, 4, 8, 16 s with jitter when a 429 has no Retry-After', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(limited(), 'POST', n, () => 0.5))).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(retryDelay(limited(), 'POST', 1, () => 0)).toBe(800);
    expect(retryDelay(limited(), 'POST', 1, () => 0.999999)).toBeCloseTo(1200, 0);
    expect(retryDelay(limited(), 'POST', 6, () => 0.5)).toBeUndefined();
  });
  it('retries a reset connection for GET/PUT/DELETE only', () => {
    const reset = new NetworkError('x', 'ECONNRESET', 'GET', '/');
    expect(retryDelay(reset, 'DELETE', 1, () => 0.5)).toBe(1000);
    expect(retryDelay(reset, 'POST', 1, () => 0.5)).toBeUndefined();
    expect(retryDelay(new NetworkError('x', 'ECONNREFUSED', 'GET', '/'), 'GET', 1)).toBeUndefined();
  });
  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 0)).toBe(10);
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
