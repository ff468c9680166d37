import { systemClock, type Clock, type RateLimit } from './rate-limit.js';

/** What the client waits on before each request. */
export interface Limiter {
  /** Resolves once a request may be sent. */
  take(): Promise<void>;
}

/**
 * At most `requests` sends in any window of `perSeconds` (stretched by `margin` for requests that
 * arrive closer together than they were sent). A service that counts fixed windows then never
 * sees more than its limit, and, unlike a refilling bucket, a timer that fires late loses no
 * capacity: a slot frees exactly one window after the send that used it.
 */
export class SlidingWindowLimiter implements Limiter {
  private readonly sent: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  private readonly windowMs: number;

  constructor(
    readonly limit: RateLimit,
    private readonly clock: Clock = systemClock,
    margin = 0.02,
  ) {
    if (!(limit.requests >= 1) || !(limit.perSeconds > 0)) throw new RangeError(`invalid rate limit ${limit.requests}/${limit.perSeconds}`);
    this.windowMs = limit.perSeconds * 1000 * (1 + margin);
  }

  take(): Promise<void> {
    const turn = this.queue.then(() => this.waitForSlot());
    this.queue = turn;
    return turn;
  }

  private async waitForSlot(): Promise<void> {
    if (this.sent.length >= this.limit.requests) {
      // The oldest of the last N sends frees its slot one window later.
      const oldest = this.sent.shift()!;
      const wait = oldest + this.windowMs - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
    }
    this.sent.push(this.clock.now());
  }
}

/** The limiter of a run: a sliding window of `limit`, or none when `limit.requests` is 0. */
export function limiterOf(limit: RateLimit, clock: Clock = systemClock): Limiter {
  if (limit.requests === 0) return { take: () => Promise.resolve() };
  return new SlidingWindowLimiter(limit, clock);
}
