import { describe, expect, it } from 'vitest';
import { ClientLimiter } from '../../../src/server/http/client-limit.js';

describe('ClientLimiter (subscribe-form posts per client address)', () => {
  it('allows `limit` requests per window and client, then answers the seconds left', () => {
    const l = new ClientLimiter(3, 60_000);
    expect([l.take('a', 0), l.take('a', 1), l.take('a', 2)]).toEqual([0, 0, 0]);
    expect(l.take('a', 30_000)).toBe(30);
    expect(l.take('b', 30_000)).toBe(0);
    expect(l.take('a', 60_000)).toBe(0);
  });

  it('holds at most maxClients windows: ended ones go first, then the oldest', () => {
    const l = new ClientLimiter(1, 1_000, 100);
    for (let i = 0; i < 100; i++) l.take(`c${i}`, i);
    expect(l.size).toBe(100);
    // All live: the oldest is forgotten for the new one.
    expect(l.take('new', 500)).toBe(0);
    expect(l.size).toBe(100);
    expect(l.take('c0', 500)).toBe(0);
    // Later, every window has ended: they all go at once.
    for (let i = 0; i < 1000; i++) l.take(`flood${i}`, 10_000 + i * 1000);
    expect(l.size).toBeLessThanOrEqual(100);
  });
});
