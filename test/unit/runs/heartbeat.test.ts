import { describe, expect, it } from 'vitest';
import { classifyPing, durationMs, missedDeadlines, nextDeadline, type HeartbeatSpec } from '../../../src/server/runs/heartbeat.js';

const hourly: HeartbeatSpec = { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' };
const MIN = 60_000;

describe('heartbeat timing', () => {
  it('converts units and applies the time scale', () => {
    expect(durationMs(2, 'days', 1)).toBe(172_800_000);
    expect(durationMs(30, 'seconds', 10)).toBe(3000);
  });

  it.each([
    [5, 'EARLY'],
    [29, 'EARLY'],
    [30, 'RECEIVED'],
    [60, 'RECEIVED'],
    [65, 'GRACE'],
    [70, 'GRACE'],
    [71, 'LATE'],
  ])('a ping %i minutes after the last one is %s', (minutes, state) => {
    expect(classifyPing(hourly, 0, minutes * MIN, 1)).toBe(state);
  });

  it('owes one FAILING per missed deadline, each once', () => {
    expect(missedDeadlines(hourly, 0, null, 69 * MIN, 1)).toEqual([]);
    expect(missedDeadlines(hourly, 0, null, 70 * MIN, 1)).toEqual([70 * MIN]);
    expect(missedDeadlines(hourly, 0, 70 * MIN, 129 * MIN, 1)).toEqual([]);
    expect(missedDeadlines(hourly, 0, 70 * MIN, 131 * MIN, 1)).toEqual([130 * MIN]);
    expect(missedDeadlines(hourly, 0, null, 131 * MIN, 1)).toEqual([70 * MIN, 130 * MIN]);
  });

  it('names the next deadline missedDeadlines would record, for any recorded one and time scale', () => {
    expect(nextDeadline(hourly, 0, null, 1)).toBe(70 * MIN);
    expect(nextDeadline(hourly, 0, 70 * MIN, 1)).toBe(130 * MIN);
    const odd: HeartbeatSpec = { period: 7, periodUnit: 'seconds', grace: 3, graceUnit: 'seconds' };
    for (const scale of [1, 3, 600]) {
      let failed: number | null = null;
      for (let i = 0; i < 50; i++) {
        const next = nextDeadline(odd, 1000, failed, scale);
        expect(missedDeadlines(odd, 1000, failed, next, scale)).toEqual([next]);
        expect(missedDeadlines(odd, 1000, failed, next - 0.001, scale)).toEqual([]);
        failed = next;
      }
    }
  });
});
