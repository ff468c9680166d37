/**
 * Heartbeat success ratios (decisions §5.5): per period, the share of events that were pings
 * (RECEIVED, EARLY, GRACE) among all events, for the current and the previous period.
 */
import { round2 } from './stats.js';
import type { HeartbeatEvent, HeartbeatState } from './types.js';

const OK_STATES: ReadonlySet<HeartbeatState> = new Set(['RECEIVED', 'EARLY', 'GRACE']);
const DAY = 86_400_000;

/** Stats of one period length. */
export interface PeriodStats {
  successRatio: { previousPeriod: number; currentPeriod: number };
  totalEntitiesCurrentPeriod: number;
}

/** The `stats` object of endpoint 12. */
export interface HeartbeatStats {
  last24Hours: PeriodStats;
  last7Days: PeriodStats;
}

function ratio(events: readonly HeartbeatEvent[]): number {
  if (events.length === 0) return 0;
  return round2((100 * events.filter((e) => OK_STATES.has(e.state)).length) / events.length);
}

/** Stats for a period of `lengthMs` ending at `nowMs` (current: (now-len, now], previous: the one before). */
function periodStats(events: readonly HeartbeatEvent[], lengthMs: number, nowMs: number): PeriodStats {
  const current: HeartbeatEvent[] = [];
  const previous: HeartbeatEvent[] = [];
  for (const e of events) {
    const age = nowMs - Date.parse(e.timestamp);
    if (age < 0) continue;
    if (age < lengthMs) current.push(e);
    else if (age < 2 * lengthMs) previous.push(e);
  }
  return {
    successRatio: { previousPeriod: ratio(previous), currentPeriod: ratio(current) },
    totalEntitiesCurrentPeriod: current.length,
  };
}

/** Stats over the last 24 hours and the last 7 days; zeros when there are no events. */
export function heartbeatStats(events: readonly HeartbeatEvent[], nowMs: number): HeartbeatStats {
  return { last24Hours: periodStats(events, DAY, nowMs), last7Days: periodStats(events, 7 * DAY, nowMs) };
}
