import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../../src/api/window-limit.js';

/** A clock whose sleeps only move time forward, recording when each send happened. */
function fakeClock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms + 7) }; // every timer fires 7 ms late
}

describe('SlidingWindowLimiter', () => {
  it('lets N through at once, then never more than N within any window, even with late timers', async () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ requests: 5, perSeconds: 1 }, clock, 0);
    const times: number[] = [];
    for (let i = 0; i < 23; i++) {
      await limiter.take();
      times.push(clock.now());
    }
    expect(times.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    for (let i = 5; i < times.length; i++) expect(times[i] - times[i - 5]).toBeGreaterThanOrEqual(1000);
    // Lateness does not compound: 23 sends take four windows plus the late timers, not more.
    expect(times[22]).toBeLessThan(4 * 1000 + 4 * 7 + 1);
  });

  it('stretches the window by the margin', async () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowLimiter({ requests: 1, perSeconds: 1 }, clock, 0.02);
    await limiter.take();
    await limiter.take();
    expect(clock.now()).toBe(1020 + 7);
  });
});

describe('the client limiter', () => {
  it('is off for N = 0 (plan and import accept --rate-limit 0/S as apply does) and a sliding window otherwise', async () => {
    const { ApiClient } = await import('../../../src/api/client.js');
    const { limiterOf } = await import('../../../src/api/window-limit.js');
    expect(() => new ApiClient({ apiUrl: 'http://127.0.0.1:9', apiKey: 'k', rateLimit: { requests: 0, perSeconds: 1 } })).not.toThrow();
    await expect(limiterOf({ requests: 0, perSeconds: 1 }).take()).resolves.toBeUndefined();
    expect(limiterOf({ requests: 600, perSeconds: 60 })).toBeInstanceOf(SlidingWindowLimiter);
  });
});
