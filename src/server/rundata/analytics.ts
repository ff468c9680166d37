/**
 * Analytics series (decisions §5.6): FINAL results in a window, cut into buckets, optionally
 * grouped, reduced per requested metric. Pure: results and the window come in, strings go out.
 */
import { aggregate, round2, sum } from './stats.js';
import { timingValue, type Metric } from './analytics-metrics.js';
import type { Window } from './time-window.js';
import type { CheckResult } from './types.js';

/** Every field of a result buildSeries reads (the store keeps them as the results' summary). */
export const SERIES_FIELDS: readonly string[] = [
  'resultType',
  'startedAt',
  'hasFailures',
  'attempts',
  'responseTime',
  'runLocation',
  'apiCheckResult.response.status',
  'apiCheckResult.response.timingPhases',
];

/** Grouping dimensions of the analytics API. */
export type GroupBy = 'runLocation' | 'statusCode';

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

/** Value of a result under a grouping dimension; null when the result has none. */
function groupKey(r: CheckResult, by: GroupBy): string | number | null {
  if (by === 'runLocation') return r.runLocation ?? null;
  return r.apiCheckResult?.response.status ?? null;
}

/** Ascending groups, the "no value" group last. */
function compareGroups(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/** One metric over the results of one bucket; null when the bucket holds no value for it. */
export function metricValue(m: Metric, results: readonly CheckResult[]): number | null {
  if (results.length === 0) return null;
  if (m.base === 'availability') return round2((100 * results.filter((r) => !r.hasFailures).length) / results.length);
  if (m.base === 'retries') return round2(sum(results.map((r) => r.attempts)));
  const values = results.map((r) => timingValue(m.base, r)).filter((v): v is number => typeof v === 'number');
  return aggregate(values, m.aggregation);
}

/** Bucket starts of the window, paged by limit/page. */
export function bucketStarts(q: Pick<SeriesQuery, 'window' | 'aggregationIntervalMin' | 'limit' | 'page'>): number[] {
  const { fromMs, toMs } = q.window;
  const width = q.aggregationIntervalMin === undefined ? toMs - fromMs : q.aggregationIntervalMin * 60_000;
  const count = Math.max(1, Math.ceil((toMs - fromMs) / width));
  const first = (q.page - 1) * q.limit;
  const starts: number[] = [];
  for (let i = first; i < Math.min(count, first + q.limit); i++) starts.push(fromMs + i * width);
  return starts;
}

/** The `series` strings of the answer: one per group (one in all without groupBy). */
export function buildSeries(all: readonly CheckResult[], q: SeriesQuery): string[] {
  const { fromMs, toMs } = q.window;
  const width = q.aggregationIntervalMin === undefined ? toMs - fromMs : q.aggregationIntervalMin * 60_000;
  const wanted = new Set(q.filterByStatus);
  const inWindow = all.filter((r) => {
    if (r.resultType !== 'FINAL') return false;
    const t = Date.parse(r.startedAt);
    if (t < fromMs || t >= toMs) return false;
    if (wanted.size === 0) return true;
    return wanted.has(r.hasFailures ? 'failure' : 'success');
  });
  const starts = bucketStarts(q);
  const groups: Array<{ key: string | number | null; results: CheckResult[] }> = [];
  if (q.groupBy === undefined) {
    groups.push({ key: null, results: inWindow });
  } else {
    const byKey = new Map<string | number | null, CheckResult[]>();
    for (const r of inWindow) {
      const k = groupKey(r, q.groupBy);
      byKey.set(k, [...(byKey.get(k) ?? []), r]);
    }
    for (const key of [...byKey.keys()].sort(compareGroups)) groups.push({ key, results: byKey.get(key)! });
  }
  return groups.map(({ key, results }) => {
    const buckets = new Map<number, CheckResult[]>(starts.map((s) => [s, []]));
    for (const r of results) {
      const start = fromMs + Math.floor((Date.parse(r.startedAt) - fromMs) / width) * width;
      buckets.get(start)?.push(r);
    }
    const data = starts.map((s) => {
      const point: Record<string, string | number | null> = { timestamp: new Date(s).toISOString() };
      for (const m of q.metrics) point[m.name] = metricValue(m, buckets.get(s)!);
      return point;
    });
    const body: Record<string, unknown> = { data };
    if (q.groupBy !== undefined) body[q.groupBy] = key;
    return JSON.stringify(body);
  });
}
