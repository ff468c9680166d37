/**
 * Figures of check results reduced per check and hour (and per check and UTC day) as the results
 * are written: the count of FINAL results, the sums of their failures, errors and degraded runs,
 * and the count, sum, sum of squares, minimum, maximum and a fixed log-scale histogram of their
 * response times. A cell is kept in the same transaction that writes, changes or deletes a result
 * (SQLite and PostgreSQL: triggers on `records`; memory: the backend), so the cells always hold
 * what the committed results hold. Windowed reads (rundata/figures.ts `checkFigures`) add up the
 * cells of the whole hours and days of a window and reduce the raw results only for the parts of
 * an hour at its edges: the work of a page no longer grows with the results of its window.
 *
 * Percentiles over merged cells come from the histogram: a value v >= 1 ms falls in the bucket
 * [T[i-1], T[i]) of consecutive thresholds about 5 % apart, and a percentile is reported as the
 * geometric middle of its bucket (clamped to the cell's minimum and maximum), within
 * PERCENTILE_RELATIVE_ERROR of the exact nearest-rank value; below 1 ms, within 0.5 ms.
 */

/** The kind whose records are reduced into cells, and how (the figure columns of RESULTS_INDEX). */
export const ROLLUP_KIND = 'checkResults';
/** What of a result the cells reduce: only results whose `resultType` is FINAL. */
export const ROLLUP_FIELDS = { type: 'resultType', final: 'FINAL', fails: 'hasFailures', errors: 'hasErrors', degraded: 'isDegraded', value: 'responseTime' } as const;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The spans of cells kept: an hour and a UTC day. */
export const ROLLUP_SPANS = [HOUR_MS, DAY_MS] as const;

/**
 * The thresholds of the histogram, ascending: 1 ms, then each about 5 % above the previous one
 * (the product rounded to 4 significant digits, so that every runtime computes the same list),
 * up to 10 minutes. Bucket 0 holds values under T[0], bucket i values in [T[i-1], T[i]), and the
 * last bucket values at or above the last threshold. Part of the stored schema: never change it
 * (a new list needs a new migration that rebuilds the cells).
 */
export const HISTOGRAM_THRESHOLDS: readonly number[] = (() => {
  const out = [1];
  let t = 1;
  while (t < 600_000) {
    t = Number((t * 1.05).toPrecision(4));
    out.push(t);
  }
  return out;
})();

/** Most relative error of a percentile of values of 1 ms or more read from the histogram. */
export const PERCENTILE_RELATIVE_ERROR = 0.025;

/** The histogram bucket of a value: how many thresholds are at or below it (PostgreSQL's width_bucket). */
export function histogramBucket(v: number): number {
  let lo = 0;
  let hi = HISTOGRAM_THRESHOLDS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (HISTOGRAM_THRESHOLDS[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The reduced figures of a set of results (a cell, a bucket of a window, a whole window). */
export interface Tally {
  /** Results with a `hasFailures` value (every FINAL result has one). */
  runs: number;
  /** Sums of hasFailures, hasErrors and isDegraded (booleans as 1 and 0). */
  fails: number;
  errors: number;
  degraded: number;
  /** Response times: how many, their sum, sum of squares, minimum, maximum, and histogram (bucket -> count). */
  n: number;
  sum: number;
  sq: number;
  min: number | null;
  max: number | null;
  hist: Map<number, number>;
}

export function emptyTally(): Tally {
  return { runs: 0, fails: 0, errors: 0, degraded: 0, n: 0, sum: 0, sq: 0, min: null, max: null, hist: new Map() };
}

/** Adds `b` into `a` (sign -1: takes it out; the minimum and maximum are then left as they were). */
export function addTally(a: Tally, b: Tally, sign: 1 | -1 = 1): Tally {
  a.runs += sign * b.runs;
  a.fails += sign * b.fails;
  a.errors += sign * b.errors;
  a.degraded += sign * b.degraded;
  a.n += sign * b.n;
  a.sum += sign * b.sum;
  a.sq += sign * b.sq;
  if (sign === 1) {
    if (b.min !== null && (a.min === null || b.min < a.min)) a.min = b.min;
    if (b.max !== null && (a.max === null || b.max > a.max)) a.max = b.max;
  }
  for (const [bucket, count] of b.hist) {
    const c = (a.hist.get(bucket) ?? 0) + sign * count;
    if (c === 0) a.hist.delete(bucket);
    else a.hist.set(bucket, c);
  }
  return a;
}

/**
 * The minimum and maximum of a cell after a value was taken out of it (its figures subtracted
 * already), as the databases' triggers keep them: when the bucket of the minimum is now empty,
 * the minimum becomes the lower bound of the lowest bucket left (the maximum: the upper bound of
 * the highest); otherwise it stays (the values left in its bucket are at least the minimum).
 * Within one bucket of the exact value, without reading the cell's results again.
 */
export function takenOut(cell: Tally): void {
  const buckets = [...cell.hist.keys()];
  if (buckets.length === 0) return;
  const T = HISTOGRAM_THRESHOLDS;
  if (cell.min !== null && !cell.hist.has(histogramBucket(cell.min))) {
    const lowest = Math.min(...buckets);
    if (lowest >= 1) cell.min = T[lowest - 1];
  }
  if (cell.max !== null && !cell.hist.has(histogramBucket(cell.max))) {
    const highest = Math.max(...buckets);
    if (highest < T.length) cell.max = T[highest];
  }
}

/** A number figure as the database keeps it: a number, a boolean as 1 or 0, anything else null. */
function numeric(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

/** The tally of one result record, or null when the cells do not count it (not FINAL). */
export function tallyOfRecord(rec: Record<string, unknown>): Tally | null {
  if (rec[ROLLUP_FIELDS.type] !== ROLLUP_FIELDS.final) return null;
  const t = emptyTally();
  const fails = numeric(rec[ROLLUP_FIELDS.fails]);
  if (fails !== null) {
    t.runs = 1;
    t.fails = fails;
  }
  t.errors = numeric(rec[ROLLUP_FIELDS.errors]) ?? 0;
  t.degraded = numeric(rec[ROLLUP_FIELDS.degraded]) ?? 0;
  const v = numeric(rec[ROLLUP_FIELDS.value]);
  if (v !== null) {
    t.n = 1;
    t.sum = v;
    t.sq = v * v;
    t.min = v;
    t.max = v;
    t.hist.set(histogramBucket(v), 1);
  }
  return t;
}

/** The histogram of raw values (the parts of a window reduced from the results themselves). */
export function histogramOf(values: Iterable<number>): Map<number, number> {
  const hist = new Map<number, number>();
  for (const v of values) {
    const b = histogramBucket(v);
    hist.set(b, (hist.get(b) ?? 0) + 1);
  }
  return hist;
}

/** A histogram as stored (a JSON object of bucket -> count; PostgreSQL gives it parsed). */
export function parseHistogram(stored: unknown): Map<number, number> {
  const obj = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  const hist = new Map<number, number>();
  if (obj === null || typeof obj !== 'object') return hist;
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const bucket = Number(k);
    const count = Number(v);
    if (Number.isInteger(bucket) && Number.isFinite(count) && count !== 0) hist.set(bucket, count);
  }
  return hist;
}

/**
 * The nearest-rank percentile p (1-100) of a tally's response times from its histogram: the
 * geometric middle of the bucket that holds rank ceil(p*n/100), clamped to [min, max] (so a
 * cell of equal values gives that value exactly). Null without values.
 */
export function tallyPercentile(t: Tally, p: number): number | null {
  if (t.n <= 0 || t.hist.size === 0) return null;
  const total = [...t.hist.values()].reduce((s, c) => s + c, 0);
  const rank = Math.max(1, Math.floor((p * total + 99) / 100));
  const buckets = [...t.hist.keys()].sort((a, b) => a - b);
  let seen = 0;
  let at = buckets[buckets.length - 1];
  for (const b of buckets) {
    seen += t.hist.get(b)!;
    if (seen >= rank) {
      at = b;
      break;
    }
  }
  return bucketValue(at, t);
}

/** The value a percentile reads from histogram bucket `at` of a tally: its geometric middle, clamped to [min, max]. */
export function bucketValue(at: number, t: Pick<Tally, 'min' | 'max'>): number {
  const T = HISTOGRAM_THRESHOLDS;
  let v: number;
  if (at <= 0) v = 0.5;
  else if (at >= T.length) v = t.max ?? T[T.length - 1];
  else v = Math.sqrt(T[at - 1] * T[at]);
  if (t.min !== null && v < t.min) v = t.min;
  if (t.max !== null && v > t.max) v = t.max;
  return v;
}

/** Slots of a histogram held as an array (bucket 0 to HISTOGRAM_THRESHOLDS.length). */
export const HISTOGRAM_SLOTS = HISTOGRAM_THRESHOLDS.length + 1;

/** Adds a histogram into an array of HISTOGRAM_SLOTS counts (a bucket out of range counts in the nearest slot). */
export function addToSlots(slots: Float64Array, hist: ReadonlyMap<number, number>): void {
  for (const [b, c] of hist) slots[b <= 0 ? 0 : b >= HISTOGRAM_SLOTS ? HISTOGRAM_SLOTS - 1 : b] += c;
}

/**
 * `tallyPercentile` of a tally whose histogram is held in slots (`addToSlots`), for any
 * percentile: the same values, with the slots summed once for all of them (a page reads three
 * percentiles of each of some thousand buckets of HISTOGRAM_SLOTS slots).
 */
export function slotsPercentiles(slots: Float64Array | null, t: Tally): (p: number) => number | null {
  if (t.n <= 0 || slots === null) return () => null;
  let total = 0;
  for (let b = 0; b < slots.length; b++) total += slots[b];
  if (total === 0) return () => null;
  return (p) => {
    const rank = Math.max(1, Math.floor((p * total + 99) / 100));
    let seen = 0;
    let at = -1;
    for (let b = 0; b < slots.length; b++) {
      if (slots[b] === 0) continue;
      seen += slots[b];
      at = b;
      if (seen >= rank) break;
    }
    return bucketValue(at, t);
  };
}

/** One cell as a backend answers it. */
export interface RollupCell {
  span: number;
  start: number;
  tally: Tally;
  /** The check of the cell, in the answer of a query of several checks (`checkIds`). */
  checkId?: string;
}

/** Cells of one check: `ranges` of [span, fromMs, toMs) (cells whose start is in the range). */
export interface RollupQuery {
  checkId: string;
  /**
   * The cells of these checks instead of `checkId`'s, read by one statement (a page's checks);
   * each cell then names its check. At most MAX_ROLLUP_CHECKS.
   */
  checkIds?: readonly string[];
  /** false: the cells without their histograms (counts, sums, minimum and maximum only). */
  histograms?: boolean;
  ranges: ReadonlyArray<readonly [number, number, number]>;
}

/** Most checks one query of cells (or one reduction of results) names. */
export const MAX_ROLLUP_CHECKS = 200;

/** The columns of a cell row, in the order backends select them after span and start. */
export const CELL_COLUMNS = ['runs', 's0', 's1', 's2', 'vn', 'vsum', 'vsq', 'vmin', 'vmax', 'hist'] as const;

/** A selected cell row (`span, start, ...CELL_COLUMNS`) as a RollupCell. */
export function cellOfRow(r: readonly unknown[]): RollupCell {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const cell: RollupCell = {
    span: Number(r[0]),
    start: Number(r[1]),
    tally: {
      runs: Number(r[2]),
      fails: Number(r[3]),
      errors: Number(r[4]),
      degraded: Number(r[5]),
      n: Number(r[6]),
      sum: Number(r[7]),
      sq: Number(r[8]),
      min: num(r[9]),
      max: num(r[10]),
      hist: parseHistogram(r[11]),
    },
  };
  // A query of several checks selects the check last.
  if (r.length > 12) cell.checkId = String(r[12]);
  return cell;
}

/**
 * The SELECT of cells of one check (or of `key.checkIds`, the check then selected last) over
 * ranges, as UNION ALL of key ranges of the primary key. `p` adds a parameter.
 */
export function rollupSelect(q: RollupQuery, key: { account: string; kind: string; checkId: string; checkIds?: readonly string[] }, p: (v: unknown) => string, hist = 'hist'): string {
  const many = key.checkIds !== undefined;
  if (many && (key.checkIds!.length === 0 || key.checkIds!.length > MAX_ROLLUP_CHECKS)) throw new Error(`a query of cells names 1 to ${MAX_ROLLUP_CHECKS} checks (${key.checkIds!.length})`);
  const cols = `span, start, ${CELL_COLUMNS.slice(0, -1).join(', ')}, ${q.histograms === false ? 'NULL' : hist}${many ? ', check_id' : ''}`;
  return q.ranges
    .map(([span, from, to]) => {
      const check = many ? `check_id IN (${key.checkIds!.map((id) => p(id)).join(', ')})` : `check_id = ${p(key.checkId)}`;
      return `SELECT ${cols} FROM rollups WHERE account = ${p(key.account)} AND kind = ${p(key.kind)} AND ${check} AND span = ${p(span)} AND start >= ${p(from)} AND start < ${p(to)}`;
    })
    .join(' UNION ALL ');
}
