import { describe, expect, it } from 'vitest';
import {
  activeWindow,
  coversTags,
  currentWindows,
  isTimeZoneName,
  nextOccurrence,
  occurrenceAt,
  upcomingWindows,
  type MaintenanceWindowRecord,
} from '../../../src/server/runs/maintenance.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

let nextId = 1;
function win(over: Partial<MaintenanceWindowRecord>): MaintenanceWindowRecord {
  return {
    id: nextId++,
    name: 'w',
    tags: ['prod'],
    startsAt: '2026-01-10T02:00:00.000Z',
    endsAt: '2026-01-10T04:00:00.000Z',
    repeatInterval: null,
    repeatUnit: null,
    repeatEndsAt: null,
    timezone: null,
    description: null,
    pauseAllChecks: false,
    silenceAlertsTags: [],
    silenceAllAlerts: false,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    ...over,
  };
}

describe('one-off windows', () => {
  const w = win({});
  it('is active from its start (inclusive) to its end (exclusive)', () => {
    expect(occurrenceAt(w, at('2026-01-10T01:59:59.999Z'))).toBeNull();
    expect(occurrenceAt(w, at('2026-01-10T02:00:00.000Z'))).toEqual({ startMs: at('2026-01-10T02:00:00Z'), endMs: at('2026-01-10T04:00:00Z') });
    expect(occurrenceAt(w, at('2026-01-10T03:59:59.999Z'))).not.toBeNull();
    expect(occurrenceAt(w, at('2026-01-10T04:00:00.000Z'))).toBeNull();
  });

  it('has a next occurrence only before it starts', () => {
    expect(iso(nextOccurrence(w, at('2026-01-01T00:00:00Z'))?.startMs)).toBe('2026-01-10T02:00:00.000Z');
    expect(nextOccurrence(w, at('2026-01-10T03:00:00Z'))).toBeNull();
    expect(nextOccurrence(w, at('2027-01-01T00:00:00Z'))).toBeNull();
  });

  it('a repeatUnit without repeatInterval does not repeat', () => {
    const once = win({ repeatUnit: 'DAY' });
    expect(occurrenceAt(once, at('2026-01-11T03:00:00Z'))).toBeNull();
  });
});

describe('repeating windows', () => {
  it('daily every 2 days: active on the 2nd-day occurrences only', () => {
    const w = win({ repeatUnit: 'DAY', repeatInterval: 2 });
    expect(occurrenceAt(w, at('2026-01-11T03:00:00Z'))).toBeNull();
    expect(iso(occurrenceAt(w, at('2026-01-12T03:00:00Z'))?.startMs)).toBe('2026-01-12T02:00:00.000Z');
    expect(iso(occurrenceAt(w, at('2026-03-01T02:00:00Z'))?.endMs)).toBe('2026-03-01T04:00:00.000Z'); // day 50
    expect(occurrenceAt(w, at('2026-03-01T04:00:00Z'))).toBeNull();
    expect(iso(nextOccurrence(w, at('2026-01-10T05:00:00Z'))?.startMs)).toBe('2026-01-12T02:00:00.000Z');
  });

  it('weekly: the same weekday and hours', () => {
    const w = win({ repeatUnit: 'WEEK', repeatInterval: 1 });
    expect(occurrenceAt(w, at('2026-01-17T02:30:00Z'))).not.toBeNull();
    expect(occurrenceAt(w, at('2026-01-16T02:30:00Z'))).toBeNull();
    expect(iso(nextOccurrence(w, at('2026-01-17T05:00:00Z'))?.startMs)).toBe('2026-01-24T02:00:00.000Z');
  });

  it('monthly from the 31st: the last day of shorter months, counted from the anchor', () => {
    const w = win({ startsAt: '2026-01-31T22:00:00.000Z', endsAt: '2026-02-01T01:00:00.000Z', repeatUnit: 'MONTH', repeatInterval: 1 });
    expect(iso(occurrenceAt(w, at('2026-02-28T23:00:00Z'))?.startMs)).toBe('2026-02-28T22:00:00.000Z');
    // Back on the 31st in March, not on the 28th.
    expect(occurrenceAt(w, at('2026-03-28T23:00:00Z'))).toBeNull();
    expect(iso(occurrenceAt(w, at('2026-03-31T23:30:00Z'))?.startMs)).toBe('2026-03-31T22:00:00.000Z');
    // Crossing midnight into the next month.
    expect(iso(occurrenceAt(w, at('2026-04-01T00:30:00Z'))?.startMs)).toBe('2026-03-31T22:00:00.000Z');
    expect(iso(occurrenceAt(w, at('2026-05-01T00:30:00Z'))?.startMs)).toBe('2026-04-30T22:00:00.000Z');
    expect(iso(nextOccurrence(w, at('2026-03-15T00:00:00Z'))?.startMs)).toBe('2026-03-31T22:00:00.000Z');
    // A leap year's February.
    expect(iso(occurrenceAt(w, at('2028-02-29T23:00:00Z'))?.startMs)).toBe('2028-02-29T22:00:00.000Z');
  });

  it('every 3 months across a year end', () => {
    const w = win({ startsAt: '2026-11-15T00:00:00.000Z', endsAt: '2026-11-15T06:00:00.000Z', repeatUnit: 'MONTH', repeatInterval: 3 });
    expect(occurrenceAt(w, at('2026-12-15T01:00:00Z'))).toBeNull();
    expect(iso(occurrenceAt(w, at('2027-02-15T01:00:00Z'))?.startMs)).toBe('2027-02-15T00:00:00.000Z');
    expect(iso(nextOccurrence(w, at('2027-02-15T07:00:00Z'))?.startMs)).toBe('2027-05-15T00:00:00.000Z');
  });

  it('stops after repeatEndsAt (inclusive start date); the last occurrence runs its full length', () => {
    const w = win({ startsAt: '2026-01-10T23:00:00.000Z', endsAt: '2026-01-11T01:00:00.000Z', repeatUnit: 'DAY', repeatInterval: 1, repeatEndsAt: '2026-01-12' });
    expect(iso(occurrenceAt(w, at('2026-01-12T23:30:00Z'))?.startMs)).toBe('2026-01-12T23:00:00.000Z');
    expect(occurrenceAt(w, at('2026-01-13T00:30:00Z'))).not.toBeNull();
    expect(occurrenceAt(w, at('2026-01-13T23:30:00Z'))).toBeNull();
    expect(nextOccurrence(w, at('2026-01-12T23:30:00Z'))).toBeNull();
  });

  it('ended windows and windows not yet started are not active', () => {
    const w = win({ repeatUnit: 'WEEK', repeatInterval: 1, repeatEndsAt: '2026-01-20' });
    expect(occurrenceAt(w, at('2026-01-03T03:00:00Z'))).toBeNull();
    expect(occurrenceAt(w, at('2026-01-31T03:00:00Z'))).toBeNull();
  });
});

describe('repeating windows in a time zone', () => {
  it('weekly at 02:00 Europe/Berlin stays at 02:00 local across the change to summer time', () => {
    // 2030-03-17 02:00 CET = 01:00Z; summer time starts 2030-03-31.
    const w = win({ startsAt: '2030-03-17T01:00:00.000Z', endsAt: '2030-03-17T02:00:00.000Z', repeatUnit: 'WEEK', repeatInterval: 1, timezone: 'Europe/Berlin' });
    expect(iso(occurrenceAt(w, at('2030-03-24T01:30:00Z'))?.startMs)).toBe('2030-03-24T01:00:00.000Z');
    // 02:00 CEST = 00:00Z, one hour long as the first.
    expect(occurrenceAt(w, at('2030-04-07T01:30:00Z'))).toBeNull();
    expect(occurrenceAt(w, at('2030-04-07T00:30:00Z'))).toEqual({ startMs: at('2030-04-07T00:00:00Z'), endMs: at('2030-04-07T01:00:00Z') });
    // On the night of the change 02:00 does not exist: that occurrence starts at 03:00 CEST (01:00Z).
    expect(iso(nextOccurrence(w, at('2030-03-25T00:00:00Z'))?.startMs)).toBe('2030-03-31T01:00:00.000Z');
    // The same window in UTC keeps 01:00Z.
    expect(iso(occurrenceAt({ ...w, timezone: null }, at('2030-04-07T01:30:00Z'))?.startMs)).toBe('2030-04-07T01:00:00.000Z');
  });

  it('monthly in America/New_York across both changes; repeatEndsAt is a local date', () => {
    // 23:30 local on Jan 31 (04:30Z Feb 1), every month until 2030-04-30 local.
    const w = win({ startsAt: '2030-02-01T04:30:00.000Z', endsAt: '2030-02-01T05:30:00.000Z', repeatUnit: 'MONTH', repeatInterval: 1, repeatEndsAt: '2030-04-30', timezone: 'America/New_York' });
    expect(iso(nextOccurrence(w, at('2030-02-02T00:00:00Z'))?.startMs)).toBe('2030-03-01T04:30:00.000Z'); // Feb 28 23:30 EST
    expect(iso(nextOccurrence(w, at('2030-03-02T00:00:00Z'))?.startMs)).toBe('2030-04-01T03:30:00.000Z'); // Mar 31 23:30 EDT
    // Apr 30 23:30 EDT is May 1 in UTC, still on the last local date allowed.
    expect(iso(occurrenceAt(w, at('2030-05-01T04:00:00Z'))?.startMs)).toBe('2030-05-01T03:30:00.000Z');
    expect(nextOccurrence(w, at('2030-05-01T04:00:00Z'))).toBeNull();
  });

  it('only IANA names are zones', () => {
    expect(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'].map(isTimeZoneName)).toEqual([true, true, true, true]);
    expect(['+05:00', 'Mars/Base', '', 'Europe/Berlin\n', 'x'.repeat(80)].map(isTimeZoneName)).toEqual([false, false, false, false, false]);
  });
});

describe('which checks a window covers', () => {
  it('a shared tag, a silenceAlertsTags tag, or every check with silenceAllAlerts', () => {
    expect(coversTags(win({ tags: ['prod', 'db'] }), ['db'])).toBe(true);
    expect(coversTags(win({ tags: ['prod'] }), ['staging'])).toBe(false);
    expect(coversTags(win({ tags: [], silenceAlertsTags: ['edge'] }), ['edge'])).toBe(true);
    expect(coversTags(win({ tags: [], silenceAllAlerts: true }), [])).toBe(true);
  });

  it('no tags on either side covers nothing', () => {
    expect(coversTags(win({ tags: [] }), ['prod'])).toBe(false);
    expect(coversTags(win({ tags: ['prod'] }), [])).toBe(false);
  });

  it('activeWindow: the first window both in progress and covering the tags', () => {
    const over = win({ name: 'over', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T01:00:00.000Z' });
    const other = win({ name: 'other', tags: ['staging'] });
    const hit = win({ name: 'hit', tags: ['prod'] });
    const now = at('2026-01-10T03:00:00Z');
    expect(activeWindow([over, other, hit], ['prod'], now)?.name).toBe('hit');
    expect(activeWindow([over, other, hit], ['qa'], now)).toBeNull();
    expect(activeWindow([], ['prod'], now)).toBeNull();
  });
});

describe('windows for status pages', () => {
  it('current ones soonest-ending first; upcoming ones within the horizon, soonest first, bounded', () => {
    const now = at('2026-01-10T03:00:00Z');
    const long = win({ name: 'long', startsAt: '2026-01-10T00:00:00.000Z', endsAt: '2026-01-10T12:00:00.000Z' });
    const short = win({ name: 'short' });
    expect(currentWindows([long, short], now).map((o) => o.window.name)).toEqual(['short', 'long']);
    const soon = win({ name: 'soon', startsAt: '2026-01-12T00:00:00.000Z', endsAt: '2026-01-12T01:00:00.000Z' });
    const sooner = win({ name: 'sooner', startsAt: '2026-01-11T00:00:00.000Z', endsAt: '2026-01-11T01:00:00.000Z' });
    const far = win({ name: 'far', startsAt: '2026-03-01T00:00:00.000Z', endsAt: '2026-03-01T01:00:00.000Z' });
    const weekly = win({ name: 'weekly', repeatUnit: 'WEEK', repeatInterval: 1 });
    const week = 7 * 86_400_000;
    expect(upcomingWindows([soon, far, sooner, weekly, short], now, week, 10).map((o) => [o.window.name, iso(o.startMs)])).toEqual([
      ['sooner', '2026-01-11T00:00:00.000Z'],
      ['soon', '2026-01-12T00:00:00.000Z'],
      ['weekly', '2026-01-17T02:00:00.000Z'],
    ]);
    expect(upcomingWindows([soon, far, sooner, weekly], now, week, 2)).toHaveLength(2);
  });
});
