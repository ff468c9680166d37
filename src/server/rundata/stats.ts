/** Small statistics used by analytics and heartbeat stats (decisions §5.5, §5.6). */

/** Rounds to 2 decimals, the precision of every computed figure the API returns. */
export function round2(x: number): number {
  return Math.round((x + Number.EPSILON) * 100) / 100;
}

/** Nearest-rank percentile: `sorted[ceil(p/100*n)-1]` of the ascending values; null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // p*n first: p/100 is inexact in binary (0.07*100 > 7) and ceil would skip a rank.
  const rank = Math.ceil((p * sorted.length) / 100);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Sum of the values (0 when empty). */
export function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Arithmetic mean; null when empty. */
export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length;
}

/** Population standard deviation; null when empty. */
export function stddev(values: readonly number[]): number | null {
  const m = mean(values);
  if (m === null) return null;
  let sq = 0;
  for (const v of values) sq += (v - m) ** 2;
  return Math.sqrt(sq / values.length);
}

/** Aggregations of the analytics API (decisions §2). */
export type Aggregation = 'avg' | 'max' | 'median' | 'min' | 'p50' | 'p90' | 'p95' | 'p99' | 'stddev' | 'sum';

// One table: each aggregation and how it reduces a non-empty sample.
const AGGREGATE: Record<Aggregation, (v: readonly number[]) => number | null> = {
  avg: mean,
  max: (v) => (v.length === 0 ? null : Math.max(...v)),
  min: (v) => (v.length === 0 ? null : Math.min(...v)),
  median: (v) => percentile(v, 50),
  p50: (v) => percentile(v, 50),
  p90: (v) => percentile(v, 90),
  p95: (v) => percentile(v, 95),
  p99: (v) => percentile(v, 99),
  stddev,
  sum: (v) => (v.length === 0 ? null : sum(v)),
};

/** The aggregation names, in the API's order. */
export const AGGREGATIONS = Object.keys(AGGREGATE) as Aggregation[];

/** Reduces a sample by an aggregation, rounded to 2 decimals; null for an empty sample. */
export function aggregate(values: readonly number[], how: Aggregation): number | null {
  const v = AGGREGATE[how](values);
  return v === null ? null : round2(v);
}
