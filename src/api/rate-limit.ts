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
