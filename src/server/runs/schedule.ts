/**
 * Scheduling math of api-decisions §5.1: when each check is due and where it runs. Pure
 * functions over times in ms; the scheduler owns the clock.
 */

/** The scheduling fields of a stored check. */
export interface ScheduleFields {
  frequency?: number;
  frequencyOffset?: number;
}

/**
 * Real milliseconds between runs: `frequency` minutes, or `frequencyOffset` seconds when the
 * frequency is 0, divided by the time scale.
 */
export function periodMs(check: ScheduleFields, timeScale: number): number {
  const frequency = check.frequency ?? 10;
  const nominal = frequency === 0 ? (check.frequencyOffset ?? 10) * 1000 : frequency * 60_000;
  return nominal / timeScale;
}

/**
 * Real milliseconds from when a check is first scheduled to its first run. Above 0 minutes,
 * `frequencyOffset` is a number of seconds that spreads checks of the same frequency apart
 * (its upper bounds keep it inside the period); sub-minute checks start at once.
 */
export function firstRunDelayMs(check: ScheduleFields, timeScale: number): number {
  if ((check.frequency ?? 10) === 0 || check.frequencyOffset === undefined) return 0;
  return (check.frequencyOffset * 1000) / timeScale;
}

/** Where a check is due next, given when the last run was due. Missed runs are not caught up. */
export function nextDueMs(lastDueMs: number, period: number, nowMs: number): number {
  if (period <= 0) return nowMs;
  const next = lastDueMs + period;
  return next > nowMs ? next : nowMs + period - ((nowMs - lastDueMs) % period);
}

/** The location fields of a stored check. */
export interface LocationFields {
  locations?: string[] | null;
  privateLocations?: string[] | null;
  runParallel?: boolean;
}

/** Every location a check runs in: public locations, then private-location slugs; `local` when none. */
export function allLocations(check: LocationFields): string[] {
  const all = [...(check.locations ?? []), ...(check.privateLocations ?? [])];
  return all.length > 0 ? all : ['local'];
}

/** The locations of one session: all of them in parallel, or the `rotation`-th one in turn. */
export function sessionLocations(check: LocationFields, rotation: number): string[] {
  const all = allLocations(check);
  return check.runParallel ? all : [all[rotation % all.length]];
}

/** The location of attempt `attempt` (0 = first): the same, or the next one when `sameRegion` is false. */
export function attemptLocation(check: LocationFields, first: string, attempt: number, sameRegion: boolean): string {
  if (sameRegion || attempt === 0) return first;
  const all = allLocations(check);
  const at = all.indexOf(first);
  return all[(Math.max(0, at) + attempt) % all.length];
}
