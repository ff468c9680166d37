/**
 * Maintenance windows (issue 25): when a window is in progress, which checks it silences, and
 * what comes next. Pure functions over stored records and times in ms; the callers own the clock.
 *
 * A window's first occurrence is `startsAt`..`endsAt`. With `repeatInterval` set it recurs every
 * `repeatInterval` days, weeks or months (`repeatUnit`) from that first occurrence, for as long
 * as an occurrence starts on or before the calendar date `repeatEndsAt` (inclusive; the last
 * occurrence runs its full length). Days, weeks, months and that date are those of the window's
 * `timezone` (UTC when null): a weekly 02:00 Europe/Berlin window stays at 02:00 local time across
 * daylight-saving changes, each occurrence as long as the first. A monthly window anchored on the
 * 31st falls on the last day of shorter months, each occurrence counted from the anchor (Jan 31,
 * Feb 28, Mar 31).
 */

// The repeat units of the reference's `repeatUnit` and their shortest lengths are the definitions' own.
import { MIN_UNIT_DAYS, REPEAT_UNITS, type RepeatUnit } from '../../schema/resources.js';
export { MIN_UNIT_DAYS, REPEAT_UNITS, type RepeatUnit };

/** A maintenance window as stored and returned by `/v1/maintenance-windows` (reference `MaintenanceWindow`). */
export interface MaintenanceWindowRecord {
  [key: string]: unknown;
  id: number;
  name: string;
  tags: string[];
  /** ISO 8601 instant (UTC, ms). */
  startsAt: string;
  endsAt: string;
  repeatInterval: number | null;
  repeatUnit: RepeatUnit | null;
  /** `YYYY-MM-DD` (UTC), inclusive. */
  repeatEndsAt: string | null;
  timezone: string | null;
  description: string | null;
  pauseAllChecks: boolean;
  silenceAlertsTags: string[];
  silenceAllAlerts: boolean;
  created_at: string;
  updated_at: string | null;
}

/** The fields the schedule reads. */
export type WindowSchedule = Pick<MaintenanceWindowRecord, 'startsAt' | 'endsAt' | 'repeatInterval' | 'repeatUnit' | 'repeatEndsAt'> & { timezone?: string | null };

/** The fields that say which checks a window covers. */
export type WindowScope = Pick<MaintenanceWindowRecord, 'tags' | 'silenceAlertsTags' | 'silenceAllAlerts'>;

/** One occurrence of a window: [startMs, endMs). */
export interface Occurrence {
  startMs: number;
  endMs: number;
}

/** An occurrence together with its window. */
export interface WindowOccurrence<W> extends Occurrence {
  window: W;
}

const DAY_MS = 86_400_000;


/** Whether a window recurs (both its interval and its unit are set). */
export function repeats(w: WindowSchedule): boolean {
  return w.repeatInterval !== null && w.repeatInterval >= 1 && w.repeatUnit !== null;
}

/** Whether a string names an IANA time zone (offsets such as "+05:00" are not names). */
export function isTimeZoneName(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) return false;
  try {
    formatterOf(tz);
    return true;
  } catch {
    return false;
  }
}

// One formatter per zone: building one costs far more than formatting with it.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    // Zones are few (a few hundred names), but the map must not grow with hostile input.
    if (formatters.size < 1000) formatters.set(tz, f);
  }
  return f;
}

// Offsets by zone and minute: a page or an alert asks for the same few instants again and again,
// and one Intl call costs tens of microseconds. Zones change offset on whole minutes.
const offsets = new Map<string, number>();
const MAX_OFFSETS = 50_000;

/** The zone's offset from UTC at `ms` (local wall clock minus UTC, in ms); 0 for UTC. */
function offsetAt(ms: number, tz: string | null | undefined): number {
  if (!tz || tz === 'UTC') return 0;
  const minute = Math.floor(ms / 60_000) * 60_000;
  const key = `${tz} ${minute}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    // en-US with h23: "9/9/2001, 03:46:40"; years before 1 or after 9999 never reach here (the API refuses them).
    const m = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/.exec(formatterOf(tz).format(new Date(minute)));
    offset = m ? Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6])) - minute : 0;
    if (offsets.size >= MAX_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** The instant of a local wall-clock time (given as if it were UTC); a time skipped by a DST change moves by the change. */
function fromWall(wallMs: number, tz: string | null | undefined): number {
  const guess = wallMs - offsetAt(wallMs, tz);
  return wallMs - offsetAt(guess, tz);
}

/** The calendar date (`YYYY-MM-DD`) of `ms` in a zone (UTC when null). */
export function localDate(ms: number, tz: string | null | undefined): string {
  return new Date(ms + offsetAt(ms, tz)).toISOString().slice(0, 10);
}

/** Local wall clock (as if UTC) of occurrence `k`, ignoring repeatEndsAt. */
function wallStart(w: WindowSchedule, k: number): number {
  const first = Date.parse(w.startsAt);
  const anchor = first + offsetAt(first, w.timezone);
  if (k === 0 || !repeats(w)) return anchor;
  if (w.repeatUnit === 'MONTH') return addMonths(anchor, k * w.repeatInterval!);
  return anchor + k * w.repeatInterval! * (w.repeatUnit === 'WEEK' ? 7 : 1) * DAY_MS;
}

/** Start (ms) of occurrence `k` ignoring repeatEndsAt. */
function rawStart(w: WindowSchedule, k: number): number {
  return k === 0 ? Date.parse(w.startsAt) : fromWall(wallStart(w, k), w.timezone);
}

/**
 * Start (ms) of occurrence `k` (0 = the first), or null when it would start after `repeatEndsAt`
 * (a date of the window's zone). Months are counted from the anchor and clamp to the month's last day.
 */
export function occurrenceStart(w: WindowSchedule, k: number): number | null {
  if (k > 0 && w.repeatEndsAt !== null && new Date(wallStart(w, k)).toISOString().slice(0, 10) > w.repeatEndsAt) return null;
  return rawStart(w, k);
}

/** `ms` moved by `months` calendar months (UTC), the day clamped to the target month's length. */
function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const total = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const dayMs = ms - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay)) + dayMs;
}

/** Index of the last occurrence starting at or before `nowMs` (ignoring repeatEndsAt), -1 before the first. */
function lastStartedIndex(w: WindowSchedule, nowMs: number): number {
  const first = Date.parse(w.startsAt);
  if (nowMs < first) return -1;
  if (!repeats(w)) return 0;
  // Estimated on wall clocks, then corrected: a DST change moves a start by an hour at most.
  const anchor = wallStart(w, 0);
  const nowWall = nowMs + offsetAt(nowMs, w.timezone);
  const interval = w.repeatInterval!;
  let k: number;
  if (w.repeatUnit !== 'MONTH') {
    k = Math.floor((nowWall - anchor) / (interval * (w.repeatUnit === 'WEEK' ? 7 : 1) * DAY_MS));
  } else {
    const a = new Date(anchor);
    const n = new Date(nowWall);
    k = Math.floor(((n.getUTCFullYear() - a.getUTCFullYear()) * 12 + (n.getUTCMonth() - a.getUTCMonth())) / interval);
  }
  k = Math.max(0, k);
  for (let i = 0; i < 3 && k > 0 && rawStart(w, k) > nowMs; i++) k -= 1;
  for (let i = 0; i < 3 && rawStart(w, k + 1) <= nowMs; i++) k += 1;
  return k;
}

/** Length of each occurrence (ms). */
function durationMs(w: WindowSchedule): number {
  return Date.parse(w.endsAt) - Date.parse(w.startsAt);
}

/**
 * The occurrence in progress at `nowMs`, or null. Only the last started occurrence can be: the
 * API keeps an occurrence no longer than one repeat period (see MIN_UNIT_DAYS).
 */
export function occurrenceAt(w: WindowSchedule, nowMs: number): Occurrence | null {
  const k = lastStartedIndex(w, nowMs);
  if (k < 0) return null;
  const startMs = occurrenceStart(w, k);
  if (startMs === null) return null;
  const endMs = startMs + durationMs(w);
  return nowMs < endMs ? { startMs, endMs } : null;
}

/** The first occurrence starting after `nowMs`, or null when the window has none left. */
export function nextOccurrence(w: WindowSchedule, nowMs: number): Occurrence | null {
  const k = lastStartedIndex(w, nowMs) + 1;
  if (k > 0 && !repeats(w)) return null;
  const startMs = occurrenceStart(w, k);
  return startMs === null ? null : { startMs, endMs: startMs + durationMs(w) };
}

/**
 * Whether a window covers a check with these tags: every check when `silenceAllAlerts`, else
 * a check sharing a tag with `tags` or `silenceAlertsTags`. A window without tags covers none.
 */
export function coversTags(w: WindowScope, checkTags: readonly string[]): boolean {
  if (w.silenceAllAlerts === true) return true;
  if (checkTags.length === 0) return false;
  const own = new Set(checkTags);
  return (w.tags ?? []).some((t) => own.has(t)) || (w.silenceAlertsTags ?? []).some((t) => own.has(t));
}

/** The first window in progress at `nowMs` that covers a check with `checkTags` (its alerts go to no one), or null. */
export function activeWindow<W extends WindowSchedule & WindowScope>(windows: readonly W[], checkTags: readonly string[], nowMs: number): W | null {
  for (const w of windows) if (coversTags(w, checkTags) && occurrenceAt(w, nowMs) !== null) return w;
  return null;
}

/** Windows in progress at `nowMs` with their current occurrence, the soonest to end first. */
export function currentWindows<W extends WindowSchedule>(windows: readonly W[], nowMs: number): Array<WindowOccurrence<W>> {
  const out: Array<WindowOccurrence<W>> = [];
  for (const window of windows) {
    const occ = occurrenceAt(window, nowMs);
    if (occ) out.push({ window, ...occ });
  }
  return out.sort((a, b) => a.endMs - b.endMs);
}

/**
 * The next occurrence of each window that starts within `horizonMs` after `nowMs` (one per
 * window), the soonest first, at most `limit` of them.
 */
export function upcomingWindows<W extends WindowSchedule>(windows: readonly W[], nowMs: number, horizonMs: number, limit: number): Array<WindowOccurrence<W>> {
  const out: Array<WindowOccurrence<W>> = [];
  for (const window of windows) {
    const occ = nextOccurrence(window, nowMs);
    if (occ && occ.startMs <= nowMs + horizonMs) out.push({ window, ...occ });
  }
  return out.sort((a, b) => a.startMs - b.startMs).slice(0, limit);
}
