/**
 * Reductions of run data by group and time bucket, computed where the records are: one SQL
 * statement on SQLite and PostgreSQL over typed columns kept beside each record (its `figures`;
 * window functions rank the values, so percentiles are exact), the same reduction in JavaScript
 * over the records in memory. Analytics (rundata/analytics.ts) turn the reduced figures into
 * metric values; a month of a check's results never leaves the database row by row.
 */
import { checkOf, getPath, timeOf, type IndexedKind, type StoredRecord } from './backend.js';
import { MAX_ROLLUP_CHECKS, histogramOf } from './rollup.js';

/** A reduction of one check's records of an indexed kind (its figures). */
export interface AggregateQuery {
  checkId: string;
  /** Records whose time t has fromMs <= t < toMs, in buckets `floor((t - originMs) / bucketMs)`. */
  fromMs: number;
  toMs: number;
  bucketMs: number;
  /** Where bucket 0 starts (at or before fromMs); fromMs when absent. */
  originMs?: number;
  /** Only records whose value at `path` is one of `in` (a figure: a key, or a number for booleans). */
  filters: ReadonlyArray<{ path: string; in: ReadonlyArray<string | boolean> }>;
  /** Group records by the value at this path (a key figure; missing = null); one group in all when absent. */
  groupBy?: string;
  /**
   * Values reduced per group and bucket (number figures): numbers, and booleans as 1 and 0; any
   * other value (or none) is left out of that value's figures. `percentiles`: whole numbers
   * 1-100, nearest rank.
   */
  values: ReadonlyArray<{ path: string; percentiles: readonly number[]; histogram?: boolean }>;
  /**
   * Only records whose time is also in one of these [from, to) ranges (the parts of a window
   * that cells per hour and day do not cover: rundata/figures.ts). Absent: the whole window.
   */
  ranges?: ReadonlyArray<readonly [number, number]>;
  /**
   * The records of these checks instead of `checkId`'s, reduced by one statement (a page's checks,
   * at most rollup.ts MAX_ROLLUP_CHECKS); each row then names its check (one row per check, group
   * and bucket).
   */
  checkIds?: readonly string[];
  /** With `ranges`: the bucket of a record is the index of its range in `ranges` instead of a time bucket. */
  bucketByRange?: boolean;
}

/** The figures of one value in one group and bucket. */
export interface AggregateFigures {
  /** How many records had a value. The rest are null when n is 0. */
  n: number;
  sum: number | null;
  min: number | null;
  max: number | null;
  /** Sum of squared deviations from the mean (n times the population variance). */
  m2: number | null;
  /** The nearest-rank percentiles asked, in order. */
  percentiles: Array<number | null>;
  /** With `histogram`: the values counted per bucket of rollup.ts's histogram. */
  histogram?: Map<number, number>;
}

/** One group and bucket that holds records. */
export interface AggregateRow {
  group: string | number | boolean | null;
  bucket: number;
  values: AggregateFigures[];
  /** The check of the row, in the answer of a reduction of several checks (`checkIds`). */
  checkId?: string;
}

/** The 1-based rank of percentile p of n ordered values: ceil(p*n/100), in integers (p whole). */
export function nearestRank(p: number, n: number): number {
  return Math.max(1, Math.floor((p * n + 99) / 100));
}

/** A value as the reduction reads it: a number, a boolean as 1/0, anything else null. */
function numeric(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

/**
 * How many typed columns a kind's figures may use: `n0`..`n14` (numbers) and `k0`..`k2` (keys).
 * Columns n8..n12 came with schema version 3 (ICMP figures), n13..n14 with version 4.
 */
export const FIGURE_NUMBERS = 15;
export const FIGURE_KEYS = 3;
/** The figure columns, in the order figureValues gives their values. */
export const FIGURE_COLUMNS: readonly string[] = [
  ...Array.from({ length: FIGURE_NUMBERS }, (_, i) => `n${i}`),
  ...Array.from({ length: FIGURE_KEYS }, (_, i) => `k${i}`),
];

/** The values of a record's figure columns (FIGURE_COLUMNS order): all null for a kind without figures. */
export function figureValues(spec: IndexedKind | undefined, rec: StoredRecord): Array<number | string | null> {
  const numbers = spec?.figures?.numbers ?? [];
  const keys = spec?.figures?.keys ?? [];
  if (numbers.length > FIGURE_NUMBERS || keys.length > FIGURE_KEYS) throw new Error(`at most ${FIGURE_NUMBERS} number and ${FIGURE_KEYS} key figures`);
  return [
    ...Array.from({ length: FIGURE_NUMBERS }, (_, i) => (i < numbers.length ? numeric(figureOf(spec!, rec, numbers[i])) : null)),
    ...Array.from({ length: FIGURE_KEYS }, (_, i) => (i < keys.length ? keyText(figureOf(spec!, rec, keys[i])) : null)),
  ];
}

/** The value of figure `name` of a record: its derived reader's, or the value at that path. */
export function figureOf(spec: IndexedKind, rec: StoredRecord, name: string): unknown {
  const derived = spec.figures?.derived;
  return derived !== undefined && Object.hasOwn(derived, name) ? derived[name](rec) : getPath(rec, name);
}

/** A key figure: the JSON text of the value (missing = `null`). */
function keyText(v: unknown): string {
  return JSON.stringify(v ?? null) ?? 'null';
}

/** The column of a figure: `n<i>` for a number, `k<i>` for a key. */
function figureColumn(spec: IndexedKind, path: string, want: 'number' | 'key' | 'any'): { column: string; type: 'number' | 'key' } {
  const n = want === 'key' ? -1 : (spec.figures?.numbers.indexOf(path) ?? -1);
  if (n >= 0) return { column: `n${n}`, type: 'number' };
  const k = want === 'number' ? -1 : (spec.figures?.keys.indexOf(path) ?? -1);
  if (k >= 0) return { column: `k${k}`, type: 'key' };
  throw new Error(`${path} is not a ${want === 'any' ? '' : `${want} `}figure of the kind`);
}

/** Records whose figure at `path` is one of `in` (a key figure, or a number figure given as numbers or booleans). */
export type FigureFilter = { path: string; in: ReadonlyArray<string | number | boolean> };

/** Whether a record passes figure filters, as the database compares them (memory stores). */
export function passesFigures(spec: IndexedKind, rec: StoredRecord, filters: readonly FigureFilter[]): boolean {
  return filters.every((f) => {
    const { type } = figureColumn(spec, f.path, 'any');
    const v = getPath(rec, f.path);
    if (type === 'key') return f.in.some((x) => keyText(x) === keyText(v));
    const x = numeric(v);
    return x !== null && f.in.some((y) => numeric(y) === x);
  });
}

/** Figure filters as SQL conditions over the figure columns; `p` adds a parameter and returns its placeholder. */
export function figureConditions(spec: IndexedKind, filters: readonly FigureFilter[], p: (v: unknown) => string): string[] {
  return filters.map((f) => {
    const { column, type } = figureColumn(spec, f.path, 'any');
    const values = f.in.map((v) => (type === 'key' ? keyText(v) : numeric(v))).filter((v) => v !== null);
    return values.length === 0 ? 'FALSE' : `${column} IN (${values.map((v) => p(v)).join(', ')})`;
  });
}

/** The reduction over records in memory (the memory store, and the reference of the SQL); records of other checks are skipped. */
export function aggregateRecords(records: Iterable<StoredRecord>, spec: IndexedKind, q: AggregateQuery): AggregateRow[] {
  // The same figures a database can reduce, and no others.
  for (const f of q.filters) figureColumn(spec, f.path, 'any');
  if (q.groupBy !== undefined) figureColumn(spec, q.groupBy, 'key');
  for (const v of q.values) figureColumn(spec, v.path, 'number');
  const cells = new Map<string, { group: AggregateRow['group']; bucket: number; checkId: string; values: number[][] }>();
  const checks = new Set(q.checkIds ?? [q.checkId]);
  for (const rec of records) {
    const checkId = checkOf(rec, spec.check);
    if (typeof checkId !== 'string' || !checks.has(checkId)) continue;
    const t = timeOf(rec, spec.time);
    if (t === null || t < q.fromMs || t >= q.toMs) continue;
    const range = q.ranges ? q.ranges.findIndex(([from, to]) => t >= from && t < to) : -1;
    if (q.ranges && range < 0) continue;
    if (!q.filters.every((f) => f.in.includes(figureOf(spec, rec, f.path) as string | boolean))) continue;
    const g = q.groupBy === undefined ? null : ((figureOf(spec, rec, q.groupBy) ?? null) as AggregateRow['group']);
    const bucket = q.ranges && q.bucketByRange ? range : Math.floor((t - (q.originMs ?? q.fromMs)) / q.bucketMs);
    const key = JSON.stringify([g, bucket, checkId]);
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { group: g, bucket, checkId, values: q.values.map(() => []) }));
    const into = cell;
    q.values.forEach((v, i) => {
      const x = numeric(figureOf(spec, rec, v.path));
      if (x !== null) into.values[i].push(x);
    });
  }
  return [...cells.values()].map(({ group, bucket, checkId, values }) => ({
    group,
    bucket,
    values: values.map((xs, i) => figuresOf(xs, q.values[i].percentiles, q.values[i].histogram === true)),
    ...(q.checkIds ? { checkId } : {}),
  }));
}

function figuresOf(xs: number[], percentiles: readonly number[], histogram: boolean): AggregateFigures {
  const n = xs.length;
  if (n === 0) return { n, sum: null, min: null, max: null, m2: null, percentiles: percentiles.map(() => null), ...(histogram ? { histogram: new Map() } : {}) };
  const sorted = [...xs].sort((a, b) => a - b);
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / n;
  let m2 = 0;
  for (const x of xs) m2 += (x - mean) ** 2;
  return { n, sum, min: sorted[0], max: sorted[n - 1], m2, percentiles: percentiles.map((p) => sorted[nearestRank(p, n) - 1]), ...(histogram ? { histogram: histogramOf(xs) } : {}) };
}

/** How one database spells the parts of the reduction that differ. */
export interface AggregateDialect {
  /** The placeholder of parameter `index` (1-based): `?NNN` or `$n`. */
  param(index: number): string;
  /** The integer bucket of `at`. */
  bucket(from: string, width: string): string;
  /** The non-null values of a number column in the group as one text, separated by commas. */
  list(column: string): string;
}

/**
 * The reduction as one SQL statement over the figure columns of `records`. `key`: the account,
 * kind and check id as the database stores them. Rows: group (JSON text), bucket, then for each
 * value n, sum, min, max, sum of squares and, when percentiles are asked, the values as a list.
 */
export function aggregateSql(d: AggregateDialect, spec: IndexedKind, q: AggregateQuery, key: { account: string; kind: string; checkId: string; checkIds?: readonly string[] }): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  const p = (v: unknown) => {
    args.push(v);
    return d.param(args.length);
  };
  const group = q.groupBy === undefined ? 'NULL' : figureColumn(spec, q.groupBy, 'key').column;
  const vs = q.values.map((v, i) => {
    for (const pc of v.percentiles) if (!Number.isInteger(pc) || pc < 1 || pc > 100) throw new Error(`percentile ${pc} is not a whole number from 1 to 100`);
    return { i, column: figureColumn(spec, v.path, 'number').column, percentiles: v.histogram ? [50] : v.percentiles };
  });
  const many = key.checkIds !== undefined;
  if (many && (key.checkIds!.length === 0 || key.checkIds!.length > MAX_ROLLUP_CHECKS)) throw new Error(`a reduction names 1 to ${MAX_ROLLUP_CHECKS} checks (${key.checkIds!.length})`);
  // One range of the index per part of the window read (UNION ALL: each part an index range).
  const parts = (q.ranges ?? [[q.fromMs, q.toMs]]).map(([from, to], i) => [Math.max(from, q.fromMs), Math.min(to, q.toMs), i] as const).filter(([from, to]) => from < to);
  if (parts.length === 0) parts.push([q.fromMs, q.fromMs, 0]);
  const inner = parts
    .map(([from, to, i]) => {
      const check = many ? `check_id IN (${key.checkIds!.map((id) => p(id)).join(', ')})` : `check_id = ${p(key.checkId)}`;
      const conds = [`account = ${p(key.account)}`, `kind = ${p(key.kind)}`, check, `at >= ${p(Math.ceil(from))}`, `at < ${p(Math.ceil(to))}`];
      conds.push(...figureConditions(spec, q.filters, p));
      const bucket = q.ranges && q.bucketByRange ? String(i) : d.bucket(p(Math.floor(q.originMs ?? q.fromMs)), p(q.bucketMs));
      return `SELECT ${bucket} AS b, ${group} AS g${many ? ', check_id AS c' : ''}${vs.map((v) => `, ${v.column} AS v${v.i}`).join('')} FROM records WHERE ${conds.join(' AND ')}`;
    })
    .join(' UNION ALL ');
  // Percentiles: the cell's values as one text, ranked by aggregateRows (SQLite has no percentile
  // function; PostgreSQL's percentile_disc is the same nearest rank, but one rule serves both).
  // A window function ranking the rows in SQL was 2-3 times slower on SQLite.
  const figures = vs
    .map((v) => `, count(v${v.i}), sum(v${v.i}), min(v${v.i}), max(v${v.i}), sum(v${v.i} * v${v.i})${v.percentiles.length > 0 ? `, ${d.list(`v${v.i}`)}` : ''}`)
    .join('');
  // Several checks: the check selected last.
  return { sql: `SELECT g, b${figures}${many ? ', c' : ''} FROM (${inner}) x GROUP BY g, b${many ? ', c' : ''}`, args };
}

/** The rows of aggregateSql as AggregateRows. */
export function aggregateRows(rows: unknown[][], q: AggregateQuery): AggregateRow[] {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => {
    let at = 2;
    const values = q.values.map((v) => {
      const n = Number(r[at]);
      const sum = num(r[at + 1]);
      const squares = num(r[at + 4]);
      const listed = v.percentiles.length > 0 || v.histogram === true;
      const sorted = listed && typeof r[at + 5] === 'string' ? (r[at + 5] as string).split(',').map(Number).sort((a, b) => a - b) : [];
      const figures: AggregateFigures = {
        n,
        sum,
        min: num(r[at + 2]),
        max: num(r[at + 3]),
        m2: sum === null || squares === null || n === 0 ? null : squares - (sum * sum) / n,
        percentiles: v.percentiles.map((p) => (sorted.length === 0 ? null : sorted[nearestRank(p, sorted.length) - 1])),
        ...(v.histogram ? { histogram: histogramOf(sorted) } : {}),
      };
      at += 5 + (listed ? 1 : 0);
      return figures;
    });
    const row: AggregateRow = { group: r[0] === null || r[0] === undefined ? null : (JSON.parse(String(r[0])) as AggregateRow['group']), bucket: Number(r[1]), values };
    if (q.checkIds) row.checkId = String(r[at]);
    return row;
  });
}
