import { describe, expect, it } from 'vitest';
import { badge, BADGE_COLORS, chartDescription, dayWindow, hourWindow, niceMax, responseChart, uptimeBar, type Series } from '../../../src/server/pages/svg.js';
import { bucketsOf, emptyBuckets } from '../../../src/server/pages/figures.js';
import type { BucketFigures } from '../../../src/server/rundata/figures.js';
import { failureFacts } from '../../../src/server/pages/check.js';
import { CHART_COLORS, contrast, DEFAULT_DARK, DEFAULT_LIGHT, STATE_COLORS } from '../../../src/server/pages/theme.js';
import { incidentFacts, runsState, serviceDays, serviceUptime, windowDays } from '../../../src/server/pages/status.js';
import type { CheckResult } from '../../../src/server/rundata/types.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.parse('2026-03-10T12:30:00Z');

describe('chart colours meet WCAG 2.1 AA (1.4.11: 3:1 for graphics; 1.4.3: 4.5:1 for the axis text)', () => {
  for (const [name, t, chart, states] of [
    ['light', DEFAULT_LIGHT, CHART_COLORS.light, STATE_COLORS.light],
    ['dark', DEFAULT_DARK, CHART_COLORS.dark, STATE_COLORS.dark],
  ] as const) {
    it(`${name}: p50, p95, failed-run and bar colours 3:1 on card and page; axis text 4.5:1`, () => {
      for (const bg of [t.cardBackgroundColor, t.bodyBackgroundColor]) {
        for (const c of [chart.p50, chart.p95, states.bad, states.ok, states.minor, states.warn, states.none]) {
          expect(contrast(c, bg), `${c} on ${bg}`).toBeGreaterThanOrEqual(3);
        }
        expect(contrast(t.bodyFontColorMuted, bg)).toBeGreaterThanOrEqual(4.5);
      }
      // The two lines also differ by dash; their colours still tell apart.
      expect(contrast(chart.p50, chart.p95)).toBeGreaterThan(1);
    });
  }
  it('badges: white text 4.5:1 on every badge colour', () => {
    for (const c of Object.values(BADGE_COLORS)) expect(contrast('#ffffff', c), c).toBeGreaterThanOrEqual(4.5);
  });
});

function series(values: Array<[number, number, number | null, number | null]>, sinceMs: number | null = null): Series {
  const w = hourWindow(now);
  const buckets = emptyBuckets(w.fromMs, w.toMs, w.bucketMs);
  values.forEach(([runs, failed, p50, p95], i) => Object.assign(buckets[buckets.length - values.length + i], { runs, failed, p50, p95 }));
  return { ...w, buckets, sinceMs };
}

describe('response-time chart', () => {
  it('windows: 24 hourly buckets and 30 daily ones, the current one last', () => {
    const h = hourWindow(now);
    expect(emptyBuckets(h.fromMs, h.toMs, h.bucketMs)).toHaveLength(24);
    expect(new Date(h.fromMs).toISOString()).toBe('2026-03-09T13:00:00.000Z');
    const d = dayWindow(now);
    expect(emptyBuckets(d.fromMs, d.toMs, d.bucketMs)).toHaveLength(30);
    expect(new Date(d.fromMs + 29 * DAY).toISOString()).toBe('2026-03-10T00:00:00.000Z');
  });

  it('takes the buckets of checkFigures (runs, failed, p50, p95)', () => {
    const h = hourWindow(now);
    const empty: Omit<BucketFigures, 'startMs' | 'endMs'> = { runs: 0, failed: 0, degraded: 0, availability: null, responseTime: null };
    const buckets = emptyBuckets(h.fromMs, h.toMs, h.bucketMs).map((b) => ({ ...empty, startMs: b.startMs, endMs: b.startMs + HOUR }));
    buckets[23] = { ...buckets[23], runs: 4, failed: 1, availability: 75, responseTime: { avg: 1, min: 1, max: 1, p50: 100, p95: 300, p99: null } };
    const b = bucketsOf({ checkId: 'c', buckets, total: buckets[23] });
    expect(b[23]).toEqual({ startMs: h.fromMs + 23 * HOUR, runs: 4, failed: 1, p50: 100, p95: 300 });
    expect(b.slice(0, 23).every((x) => x.runs === 0 && x.p50 === null)).toBe(true);
  });

  it('is an accessible image: role, name, title and a description in words; p95 dashed; lines break on empty buckets', () => {
    const s = series([[3, 0, 120, 200], [0, 0, null, null], [2, 1, 150, 900]]);
    const svg = responseChart(s, { title: 'Response time, last 24 hours', subject: 'API <1>', unit: 'hour' }).value;
    expect(svg).toContain('role="img"');
    expect(svg).toContain('<title>Response time, last 24 hours: API &lt;1&gt;</title>');
    expect(svg).toMatch(/<desc>p50 and p95 response time per hour\. Latest hour with runs: p50 150 ms, p95 900 ms\. Highest p95 900 ms\. 5 runs, 1 failed\.<\/desc>/);
    expect(svg).toMatch(/aria-label="Response time, last 24 hours: API &lt;1&gt;\. p50/);
    expect(svg).toMatch(/<path class="p95" d="M[^"]*" fill="none" stroke-width="2" stroke-dasharray="6 4"\/>/);
    // Two separate runs of the line: M..  then M.. again after the empty bucket.
    expect(/<path class="p50" d="([^"]*)"/.exec(svg)![1].match(/M/g)).toHaveLength(2);
    expect(svg).toContain('1 of 2 runs failed');
    expect(svg).not.toContain('style=');
    expect(niceMax(900)).toBe(1000);
    expect(niceMax(1200)).toBe(2000);
  });

  it('says "no data" without runs, and for the buckets before the check existed', () => {
    const empty = series([]);
    expect(chartDescription(empty, { title: 't', subject: 's', unit: 'hour' })).toBe('No runs in this window: no data.');
    expect(responseChart(empty, { title: 't', subject: 's', unit: 'hour' }).value).toContain('>No data</text>');
    const young = series([[1, 0, 10, 10]], now - 2 * HOUR);
    const d = chartDescription(young, { title: 't', subject: 's', unit: 'hour' });
    expect(d).toContain('The first 21 hours are before the check existed.');
    expect(responseChart(young, { title: 't', subject: 's', unit: 'hour' }).value).toContain('class="nodata"');
  });

  it('draws a chart once per distinct figures: the same figures give the held drawing, a new result a new one', () => {
    const label = { title: 'Response time, last 24 hours', subject: 'held', unit: 'hour' } as const;
    const s = series([[3, 0, 120, 200], [2, 0, 130, 210]]);
    const first = responseChart(s, label);
    // Figures read again (a new Series of equal buckets): the chart held, not drawn again.
    expect(responseChart(series([[3, 0, 120, 200], [2, 0, 130, 210]]), label)).toBe(first);
    // One more run in the current hour (a failure, a slower p95): drawn again, with it.
    const after = responseChart(series([[3, 0, 120, 200], [3, 1, 130, 900]]), label);
    expect(after).not.toBe(first);
    expect(after.value).toContain('Highest p95 900 ms. 6 runs, 1 failed.');
    expect(after.value).toContain('1 of 3 runs failed');
    // The label, the check's age and the size are part of what is drawn.
    expect(responseChart(s, { ...label, subject: 'other' }).value).toContain('<title>Response time, last 24 hours: other</title>');
    expect(responseChart(s, { ...label, size: 'small' }).value).toContain('chart-small');
    expect(responseChart({ ...s, sinceMs: now - HOUR }, label).value).toContain('class="nodata"');
    expect(responseChart(s, label).value).not.toContain('class="nodata"');
  });
});

describe('status page days and uptime', () => {
  const update = (status: string, at: number) => ({ id: `u${at}`, description: 'd', status, publicIncidentUpdateDate: new Date(at).toISOString(), notifySubscribers: false, created_at: new Date(at).toISOString(), updated_at: null });
  const incident = (severity: string, updates: ReturnType<typeof update>[]) => incidentFacts({ id: 'i', name: 'n', severity, services: [{ id: 's1' }], incidentUpdates: updates, created_at: updates[0].created_at, updated_at: null });

  it('a service created today shows "no data" for every earlier day, operational today', () => {
    const days = serviceDays('s1', [], now, { days: 30, sinceMs: now - HOUR });
    expect(days).toHaveLength(30);
    expect(days.slice(0, 29).every((d) => d.state === 'no-data')).toBe(true);
    expect(days[29].state).toBe('operational');
    expect(serviceUptime(days, false)).toBe(100);
  });

  it('with checks: a day without runs is no data; failures colour by the share that passed; incidents still count', () => {
    const runs = Array.from({ length: 30 }, () => ({ runs: 0, failed: 0 }));
    runs[27] = { runs: 200, failed: 1 };
    runs[28] = { runs: 100, failed: 50 };
    runs[29] = { runs: 10, failed: 0 };
    const open = [incident('MINOR', [update('INVESTIGATING', now - HOUR)])];
    const days = serviceDays('s1', open, now, { days: 30, sinceMs: now - 40 * DAY, runs });
    expect(days.slice(0, 27).every((d) => d.state === 'no-data')).toBe(true);
    expect(days.slice(27).map((d) => d.state)).toEqual(['minor', 'major-outage', 'minor']);
    expect(serviceUptime(days, true)).toBe(Math.floor((100 * 259) / 310 * 100) / 100);
    expect([runsState(100, 0), runsState(100, 1), runsState(100, 5), runsState(100, 11), runsState(0, 0)]).toEqual(['operational', 'minor', 'partial-outage', 'major-outage', 'no-data']);
  });

  it('the window is 30, 60 or 90 days (90 otherwise)', () => {
    expect([windowDays({ uptimeWindowDays: 30 }), windowDays({ uptimeWindowDays: 60 }), windowDays({}), windowDays({ uptimeWindowDays: 7 })]).toEqual([30, 60, 90, 90]);
  });

  it('the bar: one rect per day with its date and state in words; no-data days are short', () => {
    const svg = uptimeBar([{ date: '2026-03-09', state: 'no-data', text: 'No data' }, { date: '2026-03-10', state: 'operational', text: 'Operational' }], 'API', 'last 2 days').value;
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('<title>2026-03-09: No data</title>');
    expect(svg).toMatch(/class="day d-no-data"[^>]*height="10"/);
    expect(svg).toMatch(/class="day d-operational"[^>]*height="32"/);
    expect(svg).toContain('aria-label="API: last 2 days"');
  });
});

describe('badges and failure facts', () => {
  it('a badge is a standalone SVG with its label and message escaped', () => {
    const svg = badge('Shop <api>', 'passing · 99.90 % (30 d)', 'passing');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('Shop &lt;api&gt;');
    expect(svg).toContain(`fill="${BADGE_COLORS.passing}"`);
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<style');
  });

  it('why a run failed: first error, failed assertions with expected and received (cut), status code', () => {
    const r = {
      apiCheckResult: {
        requestError: null,
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', actual: '503', passed: false },
          { source: 'JSON_BODY', property: '$.ok', comparison: 'EQUALS', target: 'true', actual: 'x'.repeat(1000), passed: false },
          { source: 'HEADERS', comparison: 'CONTAINS', target: 'a', actual: 'a', passed: true },
        ],
        request: { method: 'GET' },
        response: { status: 503 },
      },
      overMaxResponseTime: false,
    } as unknown as CheckResult;
    const f = failureFacts(r);
    expect(f.statusCode).toBe(503);
    expect(f.error).toBeNull();
    expect(f.assertions.map((a) => [a.what, a.expected, a.received.length])).toEqual([['STATUS_CODE', '200', 3], ['JSON_BODY $.ok', 'true', 300]]);
    expect(failureFacts({ multiStepCheckResult: { errors: ['boom'] } } as unknown as CheckResult).error).toBe('boom');
  });
});
