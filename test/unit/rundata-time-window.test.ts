import { describe, expect, it } from 'vitest';
import { analyticsWindow, quickRangeWindow, resultsWindow, unixToMs } from '../../src/server/rundata/time-window.js';

const iso = (ms: number) => new Date(ms).toISOString();
// Wednesday 2025-03-12 15:30:00 UTC
const NOW = Date.parse('2025-03-12T15:30:00.000Z');

describe('quickRangeWindow (UTC, weeks from Monday)', () => {
  it.each([
    ['last24Hours', '2025-03-11T15:30:00.000Z', '2025-03-12T15:30:00.000Z'],
    ['last7Days', '2025-03-05T15:30:00.000Z', '2025-03-12T15:30:00.000Z'],
    ['last30Days', '2025-02-10T15:30:00.000Z', '2025-03-12T15:30:00.000Z'],
    ['thisWeek', '2025-03-10T00:00:00.000Z', '2025-03-12T15:30:00.000Z'],
    ['thisMonth', '2025-03-01T00:00:00.000Z', '2025-03-12T15:30:00.000Z'],
    ['lastWeek', '2025-03-03T00:00:00.000Z', '2025-03-10T00:00:00.000Z'],
    ['lastMonth', '2025-02-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z'],
  ] as const)('%s', (range, from, to) => {
    const w = quickRangeWindow(range, NOW);
    expect([iso(w.fromMs), iso(w.toMs)]).toEqual([from, to]);
  });
  it('starts the week on Monday even on a Sunday', () => {
    const sunday = Date.parse('2025-03-16T23:59:00.000Z');
    expect(iso(quickRangeWindow('thisWeek', sunday).fromMs)).toBe('2025-03-10T00:00:00.000Z');
    const monday = Date.parse('2025-03-17T00:00:00.000Z');
    expect(iso(quickRangeWindow('thisWeek', monday).fromMs)).toBe('2025-03-17T00:00:00.000Z');
  });
  it('crosses the year for lastMonth in January', () => {
    const w = quickRangeWindow('lastMonth', Date.parse('2025-01-15T00:00:00Z'));
    expect([iso(w.fromMs), iso(w.toMs)]).toEqual(['2024-12-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']);
  });
});

describe('unix times', () => {
  it('reads seconds, and values above 1e11 as milliseconds', () => {
    expect(unixToMs(1_700_000_000)).toBe(1_700_000_000_000);
    expect(unixToMs(1_700_000_000_123)).toBe(1_700_000_000_123);
  });
});

describe('analyticsWindow', () => {
  const s = NOW / 1000;
  it('uses quickRange without from/to', () => {
    expect(analyticsWindow({ quickRange: 'lastWeek' }, NOW)).toEqual({ ok: true, window: quickRangeWindow('lastWeek', NOW) });
  });
  it('lets from/to override quickRange', () => {
    expect(analyticsWindow({ from: s - 60, to: s, quickRange: 'lastMonth' }, NOW)).toEqual({ ok: true, window: { fromMs: NOW - 60_000, toMs: NOW } });
  });
  it('from alone ends now; to alone starts 24 h before', () => {
    expect(analyticsWindow({ from: s - 600, quickRange: 'last24Hours' }, NOW)).toEqual({ ok: true, window: { fromMs: NOW - 600_000, toMs: NOW } });
    expect(analyticsWindow({ to: s - 3600, quickRange: 'last24Hours' }, NOW)).toEqual({ ok: true, window: { fromMs: NOW - 3_600_000 - 86_400_000, toMs: NOW - 3_600_000 } });
  });
  it('refuses from >= to', () => {
    expect(analyticsWindow({ from: s, to: s, quickRange: 'last24Hours' }, NOW).ok).toBe(false);
    expect(analyticsWindow({ from: s + 1, to: s, quickRange: 'last24Hours' }, NOW).ok).toBe(false);
  });
});

describe('resultsWindow', () => {
  const s = NOW / 1000;
  it('defaults to the 6 hours before now', () => {
    expect(resultsWindow({}, NOW)).toEqual({ ok: true, window: { fromMs: NOW - 6 * 3_600_000, toMs: NOW } });
  });
  it('from alone spans 6 hours forward', () => {
    expect(resultsWindow({ from: s - 7200 }, NOW)).toEqual({ ok: true, window: { fromMs: NOW - 7_200_000, toMs: NOW + 4 * 3_600_000 } });
  });
  it('accepts exactly 6 hours and refuses more', () => {
    expect(resultsWindow({ from: s - 6 * 3600, to: s }, NOW).ok).toBe(true);
    expect(resultsWindow({ from: s - 6 * 3600 - 1, to: s }, NOW)).toMatchObject({ ok: false, path: 'to' });
  });
  it('refuses from >= to', () => {
    expect(resultsWindow({ from: s, to: s }, NOW)).toMatchObject({ ok: false, path: 'from' });
  });
});
