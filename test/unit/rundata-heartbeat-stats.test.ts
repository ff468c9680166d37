import { describe, expect, it } from 'vitest';
import { heartbeatStats } from '../../src/server/rundata/heartbeat-stats.js';
import type { HeartbeatEvent, HeartbeatState } from '../../src/server/rundata/types.js';

const NOW = Date.parse('2025-03-12T12:00:00.000Z');
const H = 3_600_000;
const ev = (state: HeartbeatState, agoMs: number): HeartbeatEvent => ({
  id: `${state}-${agoMs}`, checkId: 'c1', state, timestamp: new Date(NOW - agoMs).toISOString(), source: '127.0.0.1', userAgent: 'curl',
});

describe('heartbeatStats', () => {
  it('is all zeros without events', () => {
    const zero = { successRatio: { previousPeriod: 0, currentPeriod: 0 }, totalEntitiesCurrentPeriod: 0 };
    expect(heartbeatStats([], NOW)).toEqual({ last24Hours: zero, last7Days: zero });
  });
  it('counts RECEIVED, EARLY and GRACE as successes per period', () => {
    const events = [
      ev('RECEIVED', 1 * H), ev('EARLY', 2 * H), ev('GRACE', 3 * H), ev('LATE', 4 * H), ev('FAILING', 5 * H), ev('RECEIVED', 6 * H),
      // previous 24 h
      ev('FAILING', 25 * H), ev('RECEIVED', 26 * H), ev('FAILING', 30 * H),
      // 3 days ago: in the current 7 days only
      ev('RECEIVED', 72 * H),
      // 8 days ago: previous 7 days
      ev('LATE', 8 * 24 * H),
    ];
    const s = heartbeatStats(events, NOW);
    expect(s.last24Hours).toEqual({ successRatio: { currentPeriod: 66.67, previousPeriod: 33.33 }, totalEntitiesCurrentPeriod: 6 });
    expect(s.last7Days).toEqual({ successRatio: { currentPeriod: 60, previousPeriod: 0 }, totalEntitiesCurrentPeriod: 10 });
  });
  it('ignores events from the future', () => {
    expect(heartbeatStats([ev('RECEIVED', -H)], NOW).last24Hours.totalEntitiesCurrentPeriod).toBe(0);
  });
});
