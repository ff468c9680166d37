/**
 * Analytics series (decisions §5.6): FINAL results in a window, cut into buckets, optionally
 * grouped, reduced per requested metric. The reduction runs where the results are (the store's
 * `aggregate`: SQL on a database); this module says what to reduce and turns the figures into
 * the answer's strings.
 */
import { aggregateRecords, type AggregateFigures, type AggregateQuery, type AggregateRow } from '../store/aggregate.js';
import type { IndexedKind, StoredRecord } from '../store/backend.js';
import { round2 } from './stats.js';
import type { Metric } from './analytics-metrics.js';
import type { Window } from './time-window.js';
import type { CheckResult } from './types.js';

/**
 * The fields of a result schema version 1 kept as its `summary` (a JSON array, in this order);
 * migration 2 fills the figure columns from it. Not written since.
 */
export const SUMMARY_V1_FIELDS: readonly string[] = [
  'resultType',
  'startedAt',
  'hasFailures',
  'attempts',
  'responseTime',
  'runLocation',
  'apiCheckResult.response.status',
  'apiCheckResult.response.timingPhases',
];

/** How the store indexes check results: by check and start, expiring, with the series' fields as summary. */
export const RESULTS_INDEX = {
  check: 'checkId',
  time: 'startedAt',
  expires: true,
  // Typed columns the database reduces (migration 2 fills n0-n7 and k0-k2 from the summary,
  // migration 3 n8-n9 from the record: keep the order, append new ones).
  figures: {
    numbers: ['hasFailures', 'attempts', 'responseTime', ...['wait', 'dns', 'tcp', 'firstByte', 'download'].map((p) => `apiCheckResult.response.timingPhases.${p}`), 'hasErrors', 'isDegraded'],
    keys: ['resultType', 'runLocation', 'apiCheckResult.response.status'],
  },
} as const satisfies IndexedKind;

/** Grouping dimensions of the analytics API (pageIndex: browser checks only). */
export type GroupBy = 'runLocation' | 'statusCode' | 'pageIndex';

/** Everything that shapes one analytics answer. */
export interface SeriesQuery {
  metrics: Metric[];
  window: Window;
  /** Bucket width in minutes; undefined = one bucket for the whole window. */
  aggregationIntervalMin?: number;
  groupBy?: GroupBy;
  /** `success` keeps passing results, `failure` failing ones; empty = all. */
  filterByStatus: ReadonlyArray<'success' | 'failure'>;
  limit: number;
  page: number;
}

/** Ascending groups, the "no value" group last. */
function compareGroups(a: AggregateRow['group'], b: AggregateRow['group']): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/** Bucket starts of the window, paged by limit/page. */
export function bucketStarts(q: Pick<SeriesQuery, 'window' | 'aggregationIntervalMin' | 'limit' | 'page'>): number[] {
  const { fromMs, toMs } = q.window;
  const width = bucketMs(q);
  const count = Math.max(1, Math.ceil((toMs - fromMs) / width));
  const first = (q.page - 1) * q.limit;
  const starts: number[] = [];
  for (let i = first; i < Math.min(count, first + q.limit); i++) starts.push(fromMs + i * width);
  return starts;
}

// Where each base metric reads a result, and the percentile each aggregation asks for.
const GROUP_PATH: Record<GroupBy, string> = { runLocation: 'runLocation', statusCode: 'apiCheckResult.response.status', pageIndex: 'pageIndex' };
/** Metrics read from the flat rows of browser results (browserRows), under their own names. */
const BROWSER_PATHS = new Set(['TTFB', 'FCP', 'LCP', 'CLS', 'TBT', 'consoleErrors', 'networkErrors', 'userScriptErrors', 'documentErrors']);
const PERCENTILE: Partial<Record<Metric['aggregation'], number>> = { median: 50, p50: 50, p90: 90, p95: 95, p99: 99 };

function valuePath(base: string): string {
  if (base === 'availability') return 'hasFailures';
  if (base === 'retries') return 'attempts';
  if (base === 'responseTime') return 'responseTime';
  if (BROWSER_PATHS.has(base)) return base;
  return `apiCheckResult.response.timingPhases.${base}`;
}

/** Bucket width in ms: the interval, or the whole window. */
function bucketMs(q: Pick<SeriesQuery, 'window' | 'aggregationIntervalMin'>): number {
  return q.aggregationIntervalMin === undefined ? Math.max(1, q.window.toMs - q.window.fromMs) : q.aggregationIntervalMin * 60_000;
}

/** A reduction of the check's results, by the store (or in memory for buildSeries). */
export type Reduce = (q: AggregateQuery) => AggregateRow[];

/**
 * What the store reduces for a series query: FINAL results of the check in the page's buckets
 * (a page of hourly buckets reads 100 hours of results, not the month), by bucket and group.
 */
export function seriesAggregate(checkId: string, q: SeriesQuery): AggregateQuery {
  const wanted = new Set(q.filterByStatus);
  const values: Array<{ path: string; percentiles: number[] }> = [];
  for (const m of q.metrics) {
    const path = valuePath(m.base);
    let v = values.find((x) => x.path === path);
    if (!v) values.push((v = { path, percentiles: [] }));
    const p = PERCENTILE[m.aggregation];
    if (m.base !== 'availability' && m.base !== 'retries' && p !== undefined && !v.percentiles.includes(p)) v.percentiles.push(p);
  }
  const width = bucketMs(q);
  const starts = bucketStarts(q);
  const fromMs = starts.length === 0 ? q.window.toMs : starts[0];
  return {
    checkId,
    fromMs,
    toMs: starts.length === 0 ? q.window.toMs : Math.min(q.window.toMs, starts[starts.length - 1] + width),
    originMs: q.window.fromMs,
    bucketMs: width,
    filters: [{ path: 'resultType', in: ['FINAL'] }, ...(wanted.size === 1 ? [{ path: 'hasFailures', in: [wanted.has('failure')] }] : [])],
    groupBy: q.groupBy === undefined ? undefined : GROUP_PATH[q.groupBy],
    values,
  };
}

/** One metric from the figures of its value in one bucket; null when the bucket holds no value for it. */
function metricValue(m: Metric, agg: AggregateQuery, values: AggregateFigures[] | undefined): number | null {
  const i = agg.values.findIndex((v) => v.path === valuePath(m.base));
  const f = values?.[i];
  if (!f || f.n === 0) return null;
  // Each database adds in its own order (SQLite compensates, PostgreSQL does not): sums are taken
  // to 12 significant digits, so every store rounds the same number to 2 decimals.
  const sum = Number(f.sum!.toPrecision(12));
  if (m.base === 'availability') return round2((100 * (f.n - sum)) / f.n);
  if (m.base === 'retries') return round2(sum);
  let v: number | null;
  if (m.aggregation === 'avg') v = sum / f.n;
  else if (m.aggregation === 'sum') v = sum;
  else if (m.aggregation === 'min') v = f.min;
  else if (m.aggregation === 'max') v = f.max;
  else if (m.aggregation === 'stddev') v = Math.sqrt(Math.max(0, Number(f.m2!.toPrecision(12))) / f.n);
  else v = f.percentiles[agg.values[i].percentiles.indexOf(PERCENTILE[m.aggregation]!)];
  return v === null ? null : round2(v);
}

/**
 * The `series` strings of the answer: one per group (one in all without groupBy). Groups are
 * those of the whole window, also when the page's buckets hold none of a group's results (one
 * more reduction, without values, when the page does not cover the window).
 */
export function analyticsSeries(reduce: Reduce, checkId: string, q: SeriesQuery): string[] {
  const agg = seriesAggregate(checkId, q);
  const rows = reduce(agg);
  const width = agg.bucketMs;
  const cells = new Map<string, AggregateFigures[]>(rows.map((r) => [JSON.stringify([r.group, r.bucket]), r.values]));
  let groups: Array<AggregateRow['group']> = [null];
  if (q.groupBy !== undefined) {
    const whole = agg.fromMs === q.window.fromMs && agg.toMs === q.window.toMs;
    const found = whole ? rows : reduce({ ...agg, fromMs: q.window.fromMs, toMs: q.window.toMs, bucketMs: Math.max(1, q.window.toMs - q.window.fromMs), values: [] });
    groups = [...new Set(found.map((r) => r.group))].sort(compareGroups);
  }
  const starts = bucketStarts(q);
  return groups.map((key) => {
    const data = starts.map((s) => {
      const values = cells.get(JSON.stringify([key, Math.round((s - q.window.fromMs) / width)]));
      const point: Record<string, string | number | null> = { timestamp: new Date(s).toISOString() };
      for (const m of q.metrics) point[m.name] = metricValue(m, agg, values);
      return point;
    });
    const body: Record<string, unknown> = { data };
    if (q.groupBy !== undefined) body[q.groupBy] = key;
    return JSON.stringify(body);
  });
}

/** The series of results in memory: the same reduction in JavaScript (a reference for the stores). */
export function buildSeries(results: readonly CheckResult[], q: SeriesQuery, checkId = results[0]?.checkId ?? ''): string[] {
  return analyticsSeries((agg) => aggregateRecords(results as unknown as StoredRecord[], RESULTS_INDEX, agg), checkId, q);
}

/** The fields of a stored result that browser analytics reads (never the log or the script's output). */
export const BROWSER_RESULT_FIELDS = [
  'checkId',
  'resultType',
  'startedAt',
  'hasFailures',
  'attempts',
  'responseTime',
  'runLocation',
  'browserCheckResult.pages',
  'browserCheckResult.traceSummary.consoleErrors',
  'browserCheckResult.traceSummary.networkErrors',
  'browserCheckResult.traceSummary.userScriptErrors',
  'browserCheckResult.traceSummary.documentErrors',
] as const;

/** How browserRows are reduced: in memory, by the same reduction the stores run (aggregateRecords). */
export const BROWSER_ROWS_INDEX: IndexedKind = {
  check: 'checkId',
  time: 'startedAt',
  expires: false,
  figures: {
    numbers: ['hasFailures', 'attempts', 'responseTime', ...BROWSER_PATHS],
    keys: ['resultType', 'runLocation', 'pageIndex'],
  },
};

/**
 * A browser result as flat rows, one per page it visited (at least one): the result's own
 * figures on each, the page's web vitals and its index. Series without groupBy pageIndex read
 * the first page's row only, so a result counts once.
 */
export function browserRows(result: StoredRecord): StoredRecord[] {
  const b = (result.browserCheckResult ?? {}) as { pages?: unknown; traceSummary?: Record<string, unknown> };
  const pages = Array.isArray(b.pages) && b.pages.length > 0 ? (b.pages as Array<{ webVitals?: Record<string, { value?: unknown }> }>) : [{}];
  const base: StoredRecord = {
    checkId: result.checkId,
    resultType: result.resultType,
    startedAt: result.startedAt,
    hasFailures: result.hasFailures,
    attempts: result.attempts,
    responseTime: result.responseTime,
    runLocation: result.runLocation,
  };
  for (const k of ['consoleErrors', 'networkErrors', 'userScriptErrors', 'documentErrors']) base[k] = b.traceSummary?.[k] ?? null;
  return pages.slice(0, 20).map((p, pageIndex) => {
    const row: StoredRecord = { ...base, pageIndex };
    for (const v of ['TTFB', 'FCP', 'LCP', 'CLS', 'TBT']) row[v] = p?.webVitals?.[v]?.value ?? null;
    return row;
  });
}

/** Rows of one page only unless grouped by page: what browser series reduce. */
export function browserSeriesRows(results: Iterable<StoredRecord>, groupBy: GroupBy | undefined): StoredRecord[] {
  const rows: StoredRecord[] = [];
  for (const r of results) for (const row of browserRows(r)) if (groupBy === 'pageIndex' || row.pageIndex === 0) rows.push(row);
  return rows;
}
