/** The monitoring API client: HTTP, errors, retries, rate limit, pagination. */
export * from './client.js';
export * from './errors.js';
export * from './paginate.js';
export { DEFAULT_RATE_LIMIT, type RateLimit, type Clock } from './rate-limit.js';
export { RETRY, retryDelay, parseRetryAfter } from './retry.js';
export { SlidingWindowLimiter, limiterOf, type Limiter } from './window-limit.js';
