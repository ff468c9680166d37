/**
 * Check figures over a window: the one windowed read of check results that the public pages
 * (dashboards, their data.json, status pages, charts and badges) share. A window is cut into
 * buckets (an hour, a day, or the whole window); per bucket the figures come from the cells the
 * store keeps per check and hour and per check and UTC day (store/rollup.ts: counts, sums and a
 * histogram of response times, kept in the transaction of every write of a result), and from
 * one reduction of the FINAL results of the parts of an hour the cells do not cover (the
 * current hour, the start of a rolling window). What a page reads therefore depends on the
 * window it shows, never on how many results a check holds. Analytics reduces the results
 * themselves (`resultsReducer`): its percentiles are exact.
 *
 * The latest results of a check (its state, a list of recent runs) are read by `latestResults`:
 * a query by check, newest first, with a limit, on the same index.
 */
import type { AggregateFigures, AggregateQuery, AggregateRow } from '../store/aggregate.js';
import { DAY_MS, HISTOGRAM_SLOTS, HOUR_MS, MAX_ROLLUP_CHECKS, addTally, addToSlots, emptyTally, slotsPercentiles, tallyPercentile, type RollupCell, type RollupQuery, type Tally } from '../store/rollup.js';
import type { Store } from '../store/store.js';
import { RUN_COLL } from './collections.js';
import { round2 } from './stats.js';
import type { CheckResult } from './types.js';

/** A reduction of one check's results (what `Store.aggregate` does for the results of an account). */
export type ResultsReduce = (q: AggregateQuery) => AggregateRow[];
/**
 * The same reduction, answered off the main thread (`Store.aggregateAsync`); with `cells`, the
 * cells of the check's results per hour and day kept by the store (`Store.rollupsAsync`).
 */
export type ResultsReduceAsync = ((q: AggregateQuery) => AggregateRow[] | Promise<AggregateRow[]>) & {
  cells?: (q: RollupQuery) => Promise<RollupCell[]>;
};

/**
 * The reduction of an account's check results by the store, in the database: what analytics
 * (rundata/analytics.ts analyticsSeries) reads through.
 */
export function resultsReducer(store: Store, account: string): ResultsReduce {
  return (q) => store.aggregate(account, RUN_COLL.checkResults, q);
}

/**
 * The reduction of an account's check results by the store without holding the event loop, with
 * the store's cells per hour and day: what `checkFigures` reads through for the pages.
 */
export function asyncResultsReducer(store: Store, account: string): ResultsReduceAsync {
  const reduce: ResultsReduceAsync = (q) => store.aggregateAsync(account, RUN_COLL.checkResults, q);
  if (store.rollupsKept) reduce.cells = (q) => store.rollupsAsync(account, RUN_COLL.checkResults, q);
  return reduce;
}

/** A window cut into buckets of `bucketMs` from `fromMs` (the last one may end past `toMs`; results at or after `toMs` are not read). */
export interface FiguresWindow {
  fromMs: number;
  toMs: number;
  bucketMs: number;
}

/**
 * Response times (ms) of the FINAL results of a bucket. avg, min and max are exact; percentiles
 * are nearest rank read from a log-scale histogram (store/rollup.ts): within 2.5 % of the exact
 * value (0.5 ms under 1 ms), null when not asked.
 */
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

/** What `checkFigures` reduces: counts always; response times when asked. */
export interface FiguresOptions {
  /** Response-time figures per bucket and for the window (default true). */
  responseTimes?: boolean;
  /**
   * The percentiles of the response times (default 50, 95, 99), each kept in ResponseFigures'
   * field of its name when it has one (p50, p95, p99).
   */
  percentiles?: readonly number[];
  /** The whole window's response times (default true); without them `total` has counts only. */
  total?: boolean;
}

/** Most buckets one window may have (a day of minutes, 90 days of hours). */
export const MAX_BUCKETS = 2160;
/** Most separate parts of a window reduced from the results themselves; beyond, the whole window is. */
const MAX_RAW_PARTS = 32;

const PERCENTILES = [50, 95, 99] as const;

/** Where a window's figures come from: cells per day and hour, and the parts of hours at its edges read raw. */
export interface FiguresPlan {
  /** [span, fromMs, toMs): cells of that span whose start is in the range. */
  cells: Array<[number, number, number]>;
  /** [fromMs, toMs) reduced from the results themselves. */
  raw: Array<[number, number]>;
}

/**
 * The plan of a window: per bucket, its whole UTC days and whole hours from the cells, the parts
 * of an hour at its start and end from the results (an hour-aligned window of hours or days reads
 * the results of its last, current hour only). Adjacent ranges are joined. Without `cells`, or
 * when the raw parts would be too many (buckets that are not whole hours), all is raw.
 */
export function figuresPlan(window: FiguresWindow, count: number, cells: boolean): FiguresPlan {
  const { fromMs, toMs } = window;
  const whole: FiguresPlan = { cells: [], raw: [[fromMs, toMs]] };
  if (!cells) return whole;
  const plan: FiguresPlan = { cells: [], raw: [] };
  const push = <T extends number[]>(list: T[], range: T) => {
    const last = list[list.length - 1];
    // Joined when contiguous (and of the same span for cells).
    if (last && last[last.length - 1] === range[range.length - 2] && (range.length === 2 || last[0] === range[0])) last[last.length - 1] = range[range.length - 1];
    else list.push(range);
  };
  for (let i = 0; i < count; i++) {
    const s = fromMs + i * window.bucketMs;
    const e = Math.min(toMs, s + window.bucketMs);
    const h0 = Math.ceil(s / HOUR_MS) * HOUR_MS;
    const h1 = Math.floor(e / HOUR_MS) * HOUR_MS;
    if (h1 <= h0) {
      push(plan.raw, [s, e]);
      continue;
    }
    if (s < h0) push(plan.raw, [s, h0]);
    const d0 = Math.ceil(h0 / DAY_MS) * DAY_MS;
    const d1 = Math.floor(h1 / DAY_MS) * DAY_MS;
    if (d1 > d0) {
      if (h0 < d0) push(plan.cells, [HOUR_MS, h0, d0]);
      push(plan.cells, [DAY_MS, d0, d1]);
      if (d1 < h1) push(plan.cells, [HOUR_MS, d1, h1]);
    } else push(plan.cells, [HOUR_MS, h0, h1]);
    if (h1 < e) push(plan.raw, [h1, e]);
  }
  return plan.raw.length > MAX_RAW_PARTS ? whole : plan;
}

/** The values a reduction of results gives the figures: the three flags, and response times (their histogram when `times`). */
function figureValues(times: boolean): AggregateQuery['values'] {
  return [
    { path: 'hasFailures', percentiles: [] },
    { path: 'hasErrors', percentiles: [] },
    { path: 'isDegraded', percentiles: [] },
    { path: 'responseTime', percentiles: [], histogram: times },
  ];
}

/**
 * The figures of one check's FINAL results over a window. Whole hours and UTC days come from the
 * cells the store keeps per check and hour and day (store/rollup.ts), the rest (parts of an hour
 * at a bucket's edges, the current hour) from one reduction of the results of those parts only:
 * a month of hourly or daily buckets reads about 60 cells and at most an hour of results per
 * edge. Percentiles come from the merged histograms, so the whole window's add up from its
 * buckets. Without cells (a store that keeps none), the window's results are reduced whole.
 */
export async function checkFigures(reduce: ResultsReduceAsync, checkId: string, window: FiguresWindow, options: FiguresOptions = {}): Promise<CheckFigures> {
  const { fromMs, toMs } = window;
  const bucketMs = Math.max(1, Math.floor(window.bucketMs));
  const count = Math.max(1, Math.ceil((toMs - fromMs) / bucketMs));
  if (count > MAX_BUCKETS) throw new Error(`a window of ${count} buckets (at most ${MAX_BUCKETS})`);
  const times = options.responseTimes !== false;
  const plan = figuresPlan({ fromMs, toMs, bucketMs }, count, reduce.cells !== undefined);
  const query: AggregateQuery = {
    checkId,
    fromMs,
    toMs,
    originMs: fromMs,
    bucketMs,
    filters: [{ path: 'resultType', in: ['FINAL'] }],
    values: figureValues(times),
    ranges: plan.raw,
  };
  const [rows, cells] = await Promise.all([
    plan.raw.length > 0 ? reduce(query) : [],
    plan.cells.length > 0 && reduce.cells ? reduce.cells({ checkId, ranges: plan.cells }) : [],
  ]);
  const tallies = Array.from({ length: count }, () => emptyTally());
  for (const c of cells) {
    const i = Math.floor((c.start - fromMs) / bucketMs);
    if (i >= 0 && i < count) addTally(tallies[i], c.tally);
  }
  for (const r of rows) if (r.bucket >= 0 && r.bucket < count) addTally(tallies[r.bucket], tallyOfRow(r.values));
  return figuresOfTallies(checkId, { fromMs, toMs, bucketMs }, tallies, options);
}

/**
 * A check's figures from the tallies of the buckets of a window. With `slots`, the histograms of
 * the buckets are held there (rollup.ts addToSlots), not in the tallies.
 */
function figuresOfTallies(checkId: string, window: FiguresWindow, tallies: Tally[], options: FiguresOptions, slots?: Array<Float64Array | null>): CheckFigures {
  const { fromMs, toMs, bucketMs } = window;
  const times = options.responseTimes !== false;
  const percentiles = options.percentiles ?? PERCENTILES;
  const buckets = tallies.map((t, i) => {
    const startMs = fromMs + i * bucketMs;
    const pct = slots ? slotsPercentiles(slots[i], t) : undefined;
    return bucketOf(startMs, Math.min(toMs, startMs + bucketMs), t, times, percentiles, pct);
  });
  let total: BucketFigures;
  if (tallies.length === 1) total = buckets[0];
  else {
    const all = emptyTally();
    for (const t of tallies) addTally(all, t);
    const whole = times && options.total !== false;
    let pct: ((p: number) => number | null) | undefined;
    if (slots) {
      let sum: Float64Array | null = null;
      if (whole) {
        for (const s of slots) {
          if (!s) continue;
          sum ??= new Float64Array(HISTOGRAM_SLOTS);
          for (let b = 0; b < s.length; b++) sum[b] += s[b];
        }
      }
      pct = slotsPercentiles(sum, all);
    }
    total = bucketOf(fromMs, toMs, all, whole, percentiles, pct);
  }
  return { checkId, buckets, total };
}

/** The histogram of a tally whose histogram is held in slots: empty, and never added to. */
const NO_HISTOGRAM: Map<number, number> = new Map();

/** A tally of counts whose histogram is held apart, in slots (`addCounts` adds to it). */
const countsTally = (): Tally => ({ ...emptyTally(), hist: NO_HISTOGRAM });

/** Buckets of a window whose slots come from one array kept between pages (a chart's 24 hours or 30 days, with room). */
const SCRATCH_BUCKETS = 64;
let scratch: Float64Array | null = null;

/**
 * The slots of bucket `i` of a window of `count` buckets, zeroed: views of one array kept between
 * reads for a window of at most SCRATCH_BUCKETS (else an array per bucket). A window's slots are
 * read to the end (figuresOfTallies) before the next window's are taken, all in one synchronous
 * run, and no view outlives it: a page of charts then allocates no 2 KiB of counts per bucket.
 */
function bucketSlots(count: number): (i: number) => Float64Array {
  if (count > SCRATCH_BUCKETS) return () => new Float64Array(HISTOGRAM_SLOTS);
  scratch ??= new Float64Array(SCRATCH_BUCKETS * HISTOGRAM_SLOTS);
  const all = scratch;
  return (i) => all.fill(0, i * HISTOGRAM_SLOTS, (i + 1) * HISTOGRAM_SLOTS).subarray(i * HISTOGRAM_SLOTS, (i + 1) * HISTOGRAM_SLOTS);
}

/** Adds a tally into another but for its histogram (held apart, in slots). */
function addCounts(a: Tally, b: Tally): void {
  a.runs += b.runs;
  a.fails += b.fails;
  a.errors += b.errors;
  a.degraded += b.degraded;
  a.n += b.n;
  a.sum += b.sum;
  a.sq += b.sq;
  if (b.min !== null && (a.min === null || b.min < a.min)) a.min = b.min;
  if (b.max !== null && (a.max === null || b.max > a.max)) a.max = b.max;
}

/** Figures of several checks over one window (a dashboard's, a status page's), read together. */
export async function checksFigures(reduce: ResultsReduceAsync, checkIds: readonly string[], window: FiguresWindow, options: FiguresOptions = {}): Promise<Map<string, CheckFigures>> {
  const all = await manyFigures(reduce, checkIds.map((checkId) => ({ checkId, window, options })));
  return new Map(all.map((f) => [f.checkId, f]));
}

/** One check's figures over one window, as `manyFigures` is asked them. */
export interface FiguresAsk {
  checkId: string;
  window: FiguresWindow;
  options?: FiguresOptions;
}

/** Most separate parts of hours read raw by one `manyFigures` (beyond, each ask is read alone). */
const MAX_SHARED_RAW_PARTS = 64;

/**
 * The figures of many checks over many windows (a page's: every check's 24 hours, 30 days, ...)
 * as `checkFigures` computes each, read together: the cells of every check and window by one
 * statement (per MAX_ROLLUP_CHECKS checks) over the union of the windows' ranges of cells, and
 * the parts of hours they read raw (the current hour, the start of a rolling window) by one
 * reduction of every check, per part; each window then adds up the cells and parts it covers.
 * Two statements for a page, whatever its checks and charts, instead of two per check and window.
 * An ask whose raw parts span buckets (buckets that are not whole hours) is read alone.
 */
export async function manyFigures(reduce: ResultsReduceAsync, asks: readonly FiguresAsk[]): Promise<CheckFigures[]> {
  const plans = asks.map((a) => {
    const bucketMs = Math.max(1, Math.floor(a.window.bucketMs));
    const window = { fromMs: a.window.fromMs, toMs: a.window.toMs, bucketMs };
    const count = Math.max(1, Math.ceil((window.toMs - window.fromMs) / bucketMs));
    if (count > MAX_BUCKETS) throw new Error(`a window of ${count} buckets (at most ${MAX_BUCKETS})`);
    const plan = figuresPlan(window, count, reduce.cells !== undefined);
    // Each raw part must lie in one bucket, so that a part's tally goes whole to one bucket.
    const shared = reduce.cells !== undefined && plan.raw.every(([s, e]) => Math.floor((s - window.fromMs) / bucketMs) === Math.floor((e - 1 - window.fromMs) / bucketMs));
    return { ask: a, window, count, plan, shared, times: a.options?.responseTimes !== false };
  });
  // The parts of hours read raw, cut at every edge of every ask's raw parts.
  const edges = [...new Set(plans.filter((p) => p.shared).flatMap((p) => p.plan.raw.flat()))].sort((a, b) => a - b);
  const parts: Array<[number, number]> = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const [a, b] = [edges[i], edges[i + 1]];
    if (plans.some((p) => p.shared && p.plan.raw.some(([s, e]) => s <= a && b <= e))) parts.push([a, b]);
  }
  if (parts.length > MAX_SHARED_RAW_PARTS) for (const p of plans) p.shared = false;
  const shared = plans.filter((p) => p.shared);
  const alone = Promise.all(plans.map((p) => (p.shared ? null : checkFigures(reduce, p.ask.checkId, p.ask.window, p.ask.options))));
  if (shared.length === 0) return (await alone) as CheckFigures[];

  // Cells: per span, the union of the asks' ranges.
  const spans = new Map<number, Array<[number, number]>>();
  for (const p of shared) {
    for (const [span, from, to] of p.plan.cells) {
      const list = spans.get(span) ?? [];
      if (list.length === 0) spans.set(span, list);
      list.push([from, to]);
    }
  }
  const ranges: Array<[number, number, number]> = [];
  for (const [span, list] of spans) {
    list.sort((a, b) => a[0] - b[0]);
    let cur: [number, number] | undefined;
    for (const [from, to] of list) {
      if (cur && from <= cur[1]) cur[1] = Math.max(cur[1], to);
      else {
        if (cur) ranges.push([span, cur[0], cur[1]]);
        cur = [from, to];
      }
    }
    if (cur) ranges.push([span, cur[0], cur[1]]);
  }
  const withCells = [...new Set(shared.filter((p) => p.plan.cells.length > 0).map((p) => p.ask.checkId))];
  const withRaw = [...new Set(shared.filter((p) => p.plan.raw.length > 0).map((p) => p.ask.checkId))];
  const times = shared.some((p) => p.times);
  const chunks = (ids: string[]) => Array.from({ length: Math.ceil(ids.length / MAX_ROLLUP_CHECKS) }, (_, i) => ids.slice(i * MAX_ROLLUP_CHECKS, (i + 1) * MAX_ROLLUP_CHECKS));
  const [cellLists, rowLists, single] = await Promise.all([
    ranges.length === 0 ? [] : Promise.all(chunks(withCells).map((ids) => reduce.cells!({ checkId: ids[0], checkIds: ids, ranges, histograms: times }))),
    parts.length === 0
      ? []
      : Promise.all(
          chunks(withRaw).map((ids) =>
            reduce({
              checkId: ids[0],
              checkIds: ids,
              fromMs: parts[0][0],
              toMs: parts[parts.length - 1][1],
              bucketMs: 1,
              filters: [{ path: 'resultType', in: ['FINAL'] }],
              values: figureValues(times),
              ranges: parts,
              bucketByRange: true,
            }),
          ),
        ),
    alone,
  ]);
  const listOf = <T>(m: Map<string, T[]>, key: string): T[] => {
    let list = m.get(key);
    if (!list) m.set(key, (list = []));
    return list;
  };
  const cellsOf = new Map<string, RollupCell[]>();
  for (const c of cellLists.flat()) if (c.checkId !== undefined) listOf(cellsOf, c.checkId).push(c);
  const rawOf = new Map<string, Array<{ part: [number, number]; tally: Tally }>>();
  for (const r of rowLists.flat()) {
    const part = parts[r.bucket];
    if (r.checkId !== undefined && part) listOf(rawOf, r.checkId).push({ part, tally: tallyOfRow(r.values) });
  }
  return plans.map((p, n) => {
    if (!p.shared) return single[n]!;
    const { fromMs, bucketMs } = p.window;
    // Counts only: the histograms go to the slots (a shared empty one, never added to, stands in the tallies).
    const tallies = Array.from({ length: p.count }, countsTally);
    // The histograms of the buckets as arrays of counts: a cell adds its buckets without hashing.
    const slots: Array<Float64Array | null> = new Array<Float64Array | null>(p.count).fill(null);
    const slotsOf = bucketSlots(p.count);
    const add = (i: number, t: Tally) => {
      addCounts(tallies[i], t);
      if (p.times && t.hist.size > 0) addToSlots((slots[i] ??= slotsOf(i)), t.hist);
    };
    for (const c of cellsOf.get(p.ask.checkId) ?? []) {
      if (!p.plan.cells.some(([span, from, to]) => span === c.span && c.start >= from && c.start < to)) continue;
      const i = Math.floor((c.start - fromMs) / bucketMs);
      if (i >= 0 && i < p.count) add(i, c.tally);
    }
    for (const { part, tally } of rawOf.get(p.ask.checkId) ?? []) {
      if (!p.plan.raw.some(([s, e]) => s <= part[0] && part[1] <= e)) continue;
      const i = Math.floor((part[0] - fromMs) / bucketMs);
      if (i >= 0 && i < p.count) add(i, tally);
    }
    return figuresOfTallies(p.ask.checkId, p.window, tallies, p.ask.options ?? {}, slots);
  });
}

/** The tally of a reduction's row (hasFailures, hasErrors, isDegraded, responseTime). */
function tallyOfRow(values: AggregateFigures[]): Tally {
  const [failures, errors, degraded, rt] = values;
  const t = emptyTally();
  t.runs = failures?.n ?? 0;
  t.fails = failures?.sum ?? 0;
  t.errors = errors?.sum ?? 0;
  t.degraded = degraded?.sum ?? 0;
  if (rt && rt.n > 0) {
    t.n = rt.n;
    t.sum = rt.sum ?? 0;
    t.sq = (rt.m2 ?? 0) + (t.sum * t.sum) / rt.n;
    t.min = rt.min;
    t.max = rt.max;
    t.hist = rt.histogram ?? new Map();
  }
  return t;
}

function bucketOf(startMs: number, endMs: number, t: Tally, times: boolean, percentiles: readonly number[], pct?: (p: number) => number | null): BucketFigures {
  const runs = t.runs;
  if (runs <= 0) return { startMs, endMs, runs: 0, failed: 0, degraded: 0, availability: null, responseTime: null };
  // A run fails by its assertions or by an error of the run, never both (the runner sets one).
  const failed = Math.min(runs, Math.round(t.fails + t.errors));
  const degraded = Math.min(runs - failed, Math.round(t.degraded));
  return {
    startMs,
    endMs,
    runs,
    failed,
    degraded,
    availability: round2((100 * (runs - failed)) / runs),
    responseTime: times && t.n > 0 ? responseFigures(t, percentiles, pct ?? ((p) => tallyPercentile(t, p))) : null,
  };
}

function responseFigures(t: Tally, percentiles: readonly number[], pct: (p: number) => number | null): ResponseFigures {
  const at = (p: number) => {
    if (!percentiles.includes(p)) return null;
    const v = pct(p);
    return v === null ? null : round2(v);
  };
  return { avg: round2(Number(t.sum.toPrecision(12)) / t.n), min: t.min!, max: t.max!, p50: at(50), p95: at(95), p99: at(99) };
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

/**
 * RunReads of one account of a store. The figures asked in one turn of the event loop (a page asks
 * every check's at once) are read together by `manyFigures`: a page costs the database a few
 * statements, not a few per check.
 */
export function runReads(store: Store, account: string): RunReads {
  const reduce = asyncResultsReducer(store, account);
  let asked: Array<{ ask: FiguresAsk; resolve: (f: CheckFigures) => void; reject: (e: unknown) => void }> = [];
  const read = () => {
    const batch = asked;
    asked = [];
    manyFigures(reduce, batch.map((b) => b.ask)).then(
      (all) => batch.forEach((b, i) => b.resolve(all[i])),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  };
  return {
    figures: (checkId, window, options) =>
      new Promise<CheckFigures>((resolve, reject) => {
        const count = Math.ceil((window.toMs - window.fromMs) / Math.max(1, Math.floor(window.bucketMs)));
        if (count > MAX_BUCKETS) return reject(new Error(`a window of ${count} buckets (at most ${MAX_BUCKETS})`));
        asked.push({ ask: { checkId, window, options }, resolve, reject });
        if (asked.length === 1) queueMicrotask(read);
      }),
    latest: (checkId, limit, fields) => latestResults(store, account, checkId, limit, fields),
  };
}
