import { ApiError, NetworkError, RateLimitedError } from './errors.js';

/** Retry limits of api-decisions §1.5. */
export const RETRY = {
  /** 429: any method, this many times. */
  rateLimited: 5,
  /** 502/503/504 and connection resets: idempotent methods only, this many times. */
  transient: 3,
  /** Longest wait a Retry-After may impose. */
  maxRetryAfterSeconds: 60,
  /** Backoff steps when no Retry-After was sent: 1, 2, 4, 8, 16 s. */
  baseSeconds: 1,
  jitter: 0.2,
} as const;

// POST is left out on purpose: a create whose answer was lost may have happened, and apply
// reconciles it by identity instead of sending it twice.
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/**
 * Milliseconds to wait before retry number `attempt` (1-based) of a failed request, or
 * undefined when it must not be retried. `random` returns [0, 1) (tests pass a fixed one).
 */
export function retryDelay(err: unknown, method: string, attempt: number, random: () => number = Math.random): number | undefined {
  const jittered = (seconds: number) => seconds * 1000 * (1 + RETRY.jitter * (2 * random() - 1));
  const backoff = () => jittered(RETRY.baseSeconds * 2 ** (attempt - 1));
  if (err instanceof RateLimitedError) {
    if (attempt > RETRY.rateLimited) return undefined;
    if (err.retryAfter !== undefined) return Math.min(err.retryAfter, RETRY.maxRetryAfterSeconds) * 1000;
    return backoff();
  }
  const transient = (err instanceof ApiError && err.transient) || (err instanceof NetworkError && err.reset);
  if (transient && IDEMPOTENT.has(method.toUpperCase()) && attempt <= RETRY.transient) return backoff();
  return undefined;
}

/** Reads a Retry-After header (seconds or an HTTP date) as seconds, or undefined. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
