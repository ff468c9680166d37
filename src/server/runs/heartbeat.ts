/**
 * Heartbeat timing (api-decisions §5.5). A ping is judged against the expected window that
 * follows the previous ping (or, before the first, the moment the check started waiting):
 *
 *   last ......... last+period/2 ....... due=last+period ...... due+grace .........
 *        EARLY            RECEIVED                   GRACE                LATE
 *
 * A ping in the first half of the period came early (a job ran twice); the second half is on
 * time. When due+grace passes without a ping, the scheduler records FAILING, once per missed
 * period; a ping after the grace is LATE and brings the check back.
 */

/** Units of heartbeat periods and graces. */
export type HeartbeatUnit = 'seconds' | 'minutes' | 'hours' | 'days';

/** A check's `heartbeat` object. */
export interface HeartbeatSpec {
  period: number;
  periodUnit: HeartbeatUnit;
  grace: number;
  graceUnit: HeartbeatUnit;
}

const UNIT_MS: Record<HeartbeatUnit, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** Real milliseconds of `value` `unit`, divided by the time scale. */
export function durationMs(value: number, unit: HeartbeatUnit, timeScale: number): number {
  return (value * UNIT_MS[unit]) / timeScale;
}

/** States a ping can have. */
export type PingState = 'EARLY' | 'RECEIVED' | 'GRACE' | 'LATE';

/** Classifies a ping at `nowMs` after the last one (or the start of waiting) at `lastMs`. */
export function classifyPing(spec: HeartbeatSpec, lastMs: number, nowMs: number, timeScale: number): PingState {
  const period = durationMs(spec.period, spec.periodUnit, timeScale);
  const grace = durationMs(spec.grace, spec.graceUnit, timeScale);
  const since = nowMs - lastMs;
  if (since < period / 2) return 'EARLY';
  if (since <= period) return 'RECEIVED';
  if (since <= period + grace) return 'GRACE';
  return 'LATE';
}

/**
 * The FAILING events owed at `nowMs`: one at each `due + grace` passed since `lastMs` that has
 * not been recorded yet (`failedThroughMs` = the last deadline already recorded, or null).
 */
export function missedDeadlines(spec: HeartbeatSpec, lastMs: number, failedThroughMs: number | null, nowMs: number, timeScale: number): number[] {
  const grid = deadlineGrid(spec, lastMs, timeScale);
  if (grid === undefined) return [];
  const out: number[] = [];
  // Bounded so that a service that slept for a long time does not flood the event list.
  for (let k = firstUnrecorded(grid, failedThroughMs); out.length < 100; k++) {
    const deadline = grid.first + k * grid.period;
    if (deadline > nowMs) break;
    out.push(deadline);
  }
  return out;
}

/**
 * The first deadline not recorded yet (`failedThroughMs`, as in missedDeadlines): nothing is
 * owed before it, so the scheduler need not look at the check until then.
 */
export function nextDeadline(spec: HeartbeatSpec, lastMs: number, failedThroughMs: number | null, timeScale: number): number {
  const grid = deadlineGrid(spec, lastMs, timeScale);
  if (grid === undefined) return Number.POSITIVE_INFINITY;
  return grid.first + firstUnrecorded(grid, failedThroughMs) * grid.period;
}

/** Deadlines fall at `first + k * period`, k = 0, 1, ...; none when the period is not positive. */
function deadlineGrid(spec: HeartbeatSpec, lastMs: number, timeScale: number): { first: number; period: number } | undefined {
  const period = durationMs(spec.period, spec.periodUnit, timeScale);
  if (period <= 0) return undefined;
  return { first: lastMs + period + durationMs(spec.grace, spec.graceUnit, timeScale), period };
}

/** The index of the first deadline after `failedThroughMs`. */
function firstUnrecorded(grid: { first: number; period: number }, failedThroughMs: number | null): number {
  if (failedThroughMs === null || failedThroughMs < grid.first) return 0;
  let k = Math.floor((failedThroughMs - grid.first) / grid.period);
  // The division may round either way; the deadlines themselves decide.
  while (k > 0 && grid.first + (k - 1) * grid.period > failedThroughMs) k--;
  while (grid.first + k * grid.period <= failedThroughMs) k++;
  return k;
}
