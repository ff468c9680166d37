/**
 * Time windows of the read endpoints: unix-time query values, the analytics quickRange
 * (decisions §5.6) and the check-results window (decisions §4). Pure; `now` is passed in.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A half-open window `[fromMs, toMs)` in epoch milliseconds. */
export interface Window {
  fromMs: number;
  toMs: number;
}

/** Outcome of a window computation: the window, or the query field at fault and why. */
export type WindowResult = { ok: true; window: Window } | { ok: false; path: string; message: string };

/** Reads a unix time: seconds, or milliseconds when above 10^11 (a ms value of 1973 onwards). */
export function unixToMs(value: number): number {
  // Whole milliseconds (stored times are): for a whole t, t >= x and t < x hold as they do for ceil(x).
  return Math.ceil(value > 1e11 ? value : value * 1000);
}

/** The quickRange values, default first. */
export const QUICK_RANGES = ['last24Hours', 'last7Days', 'last30Days', 'thisWeek', 'thisMonth', 'lastWeek', 'lastMonth'] as const;

/** One of QUICK_RANGES. */
export type QuickRange = (typeof QUICK_RANGES)[number];

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/** Monday 00:00 UTC of the week holding `ms`. */
function startOfUtcWeek(ms: number): number {
  const day = startOfUtcDay(ms);
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return day - weekday * DAY;
}

function startOfUtcMonth(ms: number, monthOffset = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + monthOffset, 1);
}

/** The window a quickRange names at `nowMs`, in UTC; last* full periods end where this one starts. */
export function quickRangeWindow(range: QuickRange, nowMs: number): Window {
  switch (range) {
    case 'last24Hours':
      return { fromMs: nowMs - DAY, toMs: nowMs };
    case 'last7Days':
      return { fromMs: nowMs - 7 * DAY, toMs: nowMs };
    case 'last30Days':
      return { fromMs: nowMs - 30 * DAY, toMs: nowMs };
    case 'thisWeek':
      return { fromMs: startOfUtcWeek(nowMs), toMs: nowMs };
    case 'thisMonth':
      return { fromMs: startOfUtcMonth(nowMs), toMs: nowMs };
    case 'lastWeek': {
      const thisWeek = startOfUtcWeek(nowMs);
      return { fromMs: thisWeek - 7 * DAY, toMs: thisWeek };
    }
    case 'lastMonth':
      return { fromMs: startOfUtcMonth(nowMs, -1), toMs: startOfUtcMonth(nowMs) };
  }
}

/** The analytics window: explicit from/to (unix) override quickRange; `to` alone means the 24 h before it. */
export function analyticsWindow(q: { from?: number; to?: number; quickRange: QuickRange }, nowMs: number): WindowResult {
  if (q.from === undefined && q.to === undefined) return { ok: true, window: quickRangeWindow(q.quickRange, nowMs) };
  const toMs = q.to !== undefined ? unixToMs(q.to) : nowMs;
  const fromMs = q.from !== undefined ? unixToMs(q.from) : toMs - DAY;
  if (fromMs >= toMs) return { ok: false, path: 'from', message: 'must be before "to"' };
  return { ok: true, window: { fromMs, toMs } };
}

/** The longest span of a check-results list. */
export const RESULTS_MAX_SPAN_MS = 6 * HOUR;

/** The check-results window: 6 h ending at `to` (default now), or starting at `from` alone; `to` is inclusive there. */
export function resultsWindow(q: { from?: number; to?: number }, nowMs: number): WindowResult {
  let fromMs: number;
  let toMs: number;
  if (q.from !== undefined && q.to === undefined) {
    fromMs = unixToMs(q.from);
    toMs = fromMs + RESULTS_MAX_SPAN_MS;
  } else {
    toMs = q.to !== undefined ? unixToMs(q.to) : nowMs;
    fromMs = q.from !== undefined ? unixToMs(q.from) : toMs - RESULTS_MAX_SPAN_MS;
  }
  if (fromMs >= toMs) return { ok: false, path: 'from', message: 'must be before "to"' };
  if (toMs - fromMs > RESULTS_MAX_SPAN_MS) return { ok: false, path: 'to', message: 'must be at most 6 hours after "from"' };
  return { ok: true, window: { fromMs, toMs } };
}
