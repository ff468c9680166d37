/** How many requests a run may make per period (api-decisions §1.5: the service allows 600 per 60 s). */
export interface RateLimit {
  requests: number;
  perSeconds: number;
}

/** The service's default window, which mac stays under unless told otherwise. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 600, perSeconds: 60 };

/** Clock and timer of a limiter; tests pass fakes. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * A token bucket shared by every request of a run: `requests` tokens at most, refilled
 * continuously at requests/perSeconds. Waiters are served in arrival order.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();
  private readonly ratePerMs: number;

  constructor(
    readonly limit: RateLimit = DEFAULT_RATE_LIMIT,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(limit.requests > 0) || !(limit.perSeconds > 0)) throw new RangeError(`invalid rate limit ${limit.requests}/${limit.perSeconds}`);
    this.tokens = limit.requests;
    this.last = clock.now();
    this.ratePerMs = limit.requests / (limit.perSeconds * 1000);
  }

  /** Resolves once a request may be sent, taking one token. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.waitForToken());
    this.queue = turn;
    return turn;
  }

  private async waitForToken(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      this.tokens = Math.min(this.limit.requests, this.tokens + (now - this.last) * this.ratePerMs);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil((1 - this.tokens) / this.ratePerMs));
    }
  }
}
