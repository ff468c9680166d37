/**
 * Check figures over a window: the one windowed read of check results that the public pages
 * (dashboards, their data.json, status pages, charts and badges) and analytics share. A window is
 * cut into buckets (an hour, a day, or the whole window); per bucket the database reduces the
 * check's FINAL results to counts and response-time figures (store/aggregate.ts: one SQL GROUP BY
 * on SQLite and PostgreSQL over the figure columns, the same reduction in memory). What a page
 * reads therefore depends on the window it shows, never on how many results a check holds.
 *
 * The latest results of a check (its state, a list of recent runs) are read by `latestResults`:
 * a query by check, newest first, with a limit, on the same index.
 */
import type { AggregateFigures, AggregateQuery, AggregateRow } from '../store/aggregate.js';
import type { Store } from '../store/store.js';
import { RUN_COLL } from './collections.js';
import { round2 } from './stats.js';
import type { CheckResult } from './types.js';

/** A reduction of one check's results (what `Store.aggregate` does for the results of an account). */
export type ResultsReduce = (q: AggregateQuery) => AggregateRow[];
/** The same reduction, answered off the main thread (`Store.aggregateAsync`). */
export type ResultsReduceAsync = (q: AggregateQuery) => AggregateRow[] | Promise<AggregateRow[]>;

/**
 * The reduction of an account's check results by the store, in the database: what analytics
 * (rundata/analytics.ts analyticsSeries) reads through.
 */
export function resultsReducer(store: Store, account: string): ResultsReduce {
  return (q) => store.aggregate(account, RUN_COLL.checkResults, q);
}

/**
 * The reduction of an account's check results by the store without holding the event loop: what
 * `checkFigures` reads through for the pages.
 */
export function asyncResultsReducer(store: Store, account: string): ResultsReduceAsync {
  return (q) => store.aggregateAsync(account, RUN_COLL.checkResults, q);
}

/** A window cut into buckets of `bucketMs` from `fromMs` (the last one may end past `toMs`; results at or after `toMs` are not read). */
export interface FiguresWindow {
  fromMs: number;
  toMs: number;
  bucketMs: number;
}

/** Response times (ms) of the FINAL results of a bucket. Percentiles are nearest rank (null when not asked). */
export interface ResponseFigures {
  avg: number;
  min: number;
  max: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** The figures of one bucket (or of the whole window). */
export interface BucketFigures {
  /** Start of the bucket (epoch ms), and its end (exclusive, at most the window's `toMs`). */
  startMs: number;
  endMs: number;
  /** FINAL results that started in the bucket. */
  runs: number;
  /** Of those, the failed ones: a failed assertion or an error of the run (hasFailures or hasErrors). */
  failed: number;
  /** Of those, the degraded ones that did not fail. */
  degraded: number;
  /** Percent of the runs that did not fail (degraded counts as up), 2 decimals; null without runs. */
  availability: number | null;
  /** Response times; null without runs (or when `responseTimes` was not asked). */
  responseTime: ResponseFigures | null;
}

/** A check's figures over a window: every bucket of the window in order (empty ones with 0 runs), and the whole window. */
export interface CheckFigures {
  checkId: string;
  buckets: BucketFigures[];
  total: BucketFigures;
}

/** What `checkFigures` reduces: counts always; response-time percentiles when asked (they cost more: the values are ranked). */
export interface FiguresOptions {
  /** Response-time figures per bucket and for the window (default true). */
  responseTimes?: boolean;
  /**
   * The percentiles of the response times (default 50, 95, 99), each kept in ResponseFigures'
   * field of its name when it has one (p50, p95, p99); others are in `percentiles` only.
   */
  percentiles?: readonly number[];
  /**
   * The whole window's response times (one more reduction when the window has several buckets;
   * default true). Without it, `total` adds up the counts and has no response times (a chart
   * needs the buckets only).
   */
  total?: boolean;
}

/** Most buckets one window may have (a day of minutes, 90 days of hours). */
export const MAX_BUCKETS = 2160;

const PERCENTILES = [50, 95, 99] as const;

/**
 * The figures of one check's FINAL results over a window: one reduction in the database when the
 * window is one bucket, two (by bucket, then whole) otherwise, since percentiles do not add up.
 * Work per call is bounded by the window's results (an index range), whatever the check holds.
 */
export async function checkFigures(reduce: ResultsReduceAsync, checkId: string, window: FiguresWindow, options: FiguresOptions = {}): Promise<CheckFigures> {
  const { fromMs, toMs } = window;
  const bucketMs = Math.max(1, Math.floor(window.bucketMs));
  const count = Math.max(1, Math.ceil((toMs - fromMs) / bucketMs));
  if (count > MAX_BUCKETS) throw new Error(`a window of ${count} buckets (at most ${MAX_BUCKETS})`);
  const times = options.responseTimes !== false;
  const percentiles = options.percentiles ?? PERCENTILES;
  const query = (width: number): AggregateQuery => ({
    checkId,
    fromMs,
    toMs,
    originMs: fromMs,
    bucketMs: width,
    filters: [{ path: 'resultType', in: ['FINAL'] }],
    values: [
      { path: 'hasFailures', percentiles: [] },
      { path: 'hasErrors', percentiles: [] },
      { path: 'isDegraded', percentiles: [] },
      { path: 'responseTime', percentiles: times ? [...percentiles] : [] },
    ],
  });
  // The whole window is a reduction of its own when it has several buckets (percentiles do not
  // add up); both are asked at once.
  const whole = count > 1 && times && options.total !== false;
  const [rows, wholeRows] = await Promise.all([reduce(query(bucketMs)), whole ? reduce(query(Math.max(1, toMs - fromMs))) : undefined]);
  const byBucket = new Map(rows.map((r) => [r.bucket, r.values]));
  const buckets: BucketFigures[] = [];
  for (let i = 0; i < count; i++) {
    const startMs = fromMs + i * bucketMs;
    buckets.push(bucketOf(startMs, Math.min(toMs, startMs + bucketMs), byBucket.get(i), times, percentiles));
  }
  let total: BucketFigures;
  if (count === 1) total = buckets[0];
  else if (!whole) total = sumOf(buckets, fromMs, toMs);
  else total = bucketOf(fromMs, toMs, wholeRows?.[0]?.values, true, percentiles);
  return { checkId, buckets, total };
}

/** Figures of several checks over one window (a dashboard's, a status page's), read side by side. */
export async function checksFigures(reduce: ResultsReduceAsync, checkIds: readonly string[], window: FiguresWindow, options: FiguresOptions = {}): Promise<Map<string, CheckFigures>> {
  const all = await Promise.all(checkIds.map((id) => checkFigures(reduce, id, window, options)));
  return new Map(all.map((f) => [f.checkId, f]));
}

function bucketOf(startMs: number, endMs: number, values: AggregateFigures[] | undefined, times: boolean, percentiles: readonly number[]): BucketFigures {
  const [failures, errors, degradedRuns, responseTime] = values ?? [];
  const runs = failures?.n ?? 0;
  if (runs === 0) return { startMs, endMs, runs: 0, failed: 0, degraded: 0, availability: null, responseTime: null };
  // A run fails by its assertions or by an error of the run, never both (the runner sets one).
  const failed = Math.min(runs, Math.round((failures.sum ?? 0) + (errors?.sum ?? 0)));
  const degraded = Math.min(runs - failed, Math.round(degradedRuns?.sum ?? 0));
  return {
    startMs,
    endMs,
    runs,
    failed,
    degraded,
    availability: round2((100 * (runs - failed)) / runs),
    responseTime: times && responseTime && responseTime.n > 0 ? responseFigures(responseTime, percentiles) : null,
  };
}

function responseFigures(f: AggregateFigures, percentiles: readonly number[]): ResponseFigures {
  const at = (p: number) => {
    const i = percentiles.indexOf(p);
    return i < 0 ? null : (f.percentiles[i] ?? null);
  };
  return { avg: round2(Number(f.sum!.toPrecision(12)) / f.n), min: f.min!, max: f.max!, p50: at(50), p95: at(95), p99: at(99) };
}

/** Counts of the buckets added up (no response times: those do not add up). */
function sumOf(buckets: readonly BucketFigures[], startMs: number, endMs: number): BucketFigures {
  let runs = 0;
  let failed = 0;
  let degraded = 0;
  for (const b of buckets) {
    runs += b.runs;
    failed += b.failed;
    degraded += b.degraded;
  }
  return { startMs, endMs, runs, failed, degraded, availability: runs === 0 ? null : round2((100 * (runs - failed)) / runs), responseTime: null };
}

/** Most results `latestResults` reads of one check. */
export const MAX_LATEST = 100;

/**
 * The newest FINAL results of a check (newest first), at most `limit` (MAX_LATEST), with only
 * `fields` when given: one indexed query, newest first, that stops after `limit` rows (answered
 * off the main thread on a database).
 */
export async function latestResults(store: Store, account: string, checkId: string, limit: number, fields?: readonly string[]): Promise<CheckResult[]> {
  return store.queryAsync<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, {
    checkId,
    where: [{ path: 'resultType', in: ['FINAL'] }],
    order: 'time-desc',
    limit: Math.max(0, Math.min(MAX_LATEST, Math.floor(limit))),
    ...(fields ? { fields } : {}),
  });
}

/** What a page reads of an account's run data: figures over windows and the latest results, bounded both, without holding the event loop. */
export interface RunReads {
  /** `checkFigures` of one check of the account. */
  figures(checkId: string, window: FiguresWindow, options?: FiguresOptions): Promise<CheckFigures>;
  /** `latestResults` of one check of the account. */
  latest(checkId: string, limit: number, fields?: readonly string[]): Promise<CheckResult[]>;
}

/** RunReads of one account of a store. */
export function runReads(store: Store, account: string): RunReads {
  const reduce = asyncResultsReducer(store, account);
  return {
    figures: (checkId, window, options) => checkFigures(reduce, checkId, window, options),
    latest: (checkId, limit, fields) => latestResults(store, account, checkId, limit, fields),
  };
}
