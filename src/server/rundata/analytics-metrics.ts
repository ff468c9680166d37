/**
 * Analytics metric names (spec §4.4, decisions §5.6): parsing the `metrics` query and the
 * metadata each metric carries. One table holds every base metric.
 */
import { AGGREGATIONS, type Aggregation } from './stats.js';

/** How a base metric reads one FINAL result, its unit and its label. */
interface BaseMetric {
  label: string;
  unit: 'milliseconds' | 'percentage' | 'count' | 'score';
  /** Timing metrics take an aggregation suffix; availability and retries have a fixed one. */
  timing: boolean;
  /** Fixed aggregation of a non-timing metric. */
  aggregation?: Aggregation;
}

// Every base metric the API knows, in the spec's order.
const BASE: Record<string, BaseMetric> = {
  responseTime: { label: 'Response time', unit: 'milliseconds', timing: true },
  wait: { label: 'Wait', unit: 'milliseconds', timing: true },
  dns: { label: 'DNS', unit: 'milliseconds', timing: true },
  tcp: { label: 'TCP', unit: 'milliseconds', timing: true },
  firstByte: { label: 'First byte', unit: 'milliseconds', timing: true },
  download: { label: 'Download', unit: 'milliseconds', timing: true },
  availability: { label: 'Availability', unit: 'percentage', timing: false, aggregation: 'avg' },
  retries: { label: 'Retries', unit: 'count', timing: false, aggregation: 'sum' },
};

/**
 * Browser checks' metrics (reference AnalyticsBrowserCheckMetadata): response time, the web
 * vitals of a page, its error counts, availability and retries.
 */
const BROWSER_BASE: Record<string, BaseMetric> = {
  responseTime: BASE.responseTime,
  TTFB: { label: 'Time to first byte', unit: 'milliseconds', timing: true },
  FCP: { label: 'First contentful paint', unit: 'milliseconds', timing: true },
  LCP: { label: 'Largest contentful paint', unit: 'milliseconds', timing: true },
  CLS: { label: 'Cumulative layout shift', unit: 'score', timing: true },
  TBT: { label: 'Total blocking time', unit: 'milliseconds', timing: true },
  consoleErrors: { label: 'Console errors', unit: 'count', timing: false, aggregation: 'sum' },
  networkErrors: { label: 'Network errors', unit: 'count', timing: false, aggregation: 'sum' },
  userScriptErrors: { label: 'User script errors', unit: 'count', timing: false, aggregation: 'sum' },
  documentErrors: { label: 'Document errors', unit: 'count', timing: false, aggregation: 'sum' },
  availability: BASE.availability,
  retries: BASE.retries,
};

/** Which metric table a route reads: HTTP checks' (url-monitors, api-checks) or browser checks'. */
export type MetricTable = 'http' | 'browser';
const TABLES: Record<MetricTable, Record<string, BaseMetric>> = { http: BASE, browser: BROWSER_BASE };

/** A requested metric, resolved. */
export interface Metric {
  /** The name as requested (`responseTime_p95`), the key in series and metadata. */
  name: string;
  base: string;
  aggregation: Aggregation;
  unit: BaseMetric['unit'];
  label: string;
}

/** Every accepted metric name: the bases and the ten suffixed forms of each timing metric. */
export const METRIC_NAMES: readonly string[] = namesOf(BASE);
/** Every metric name of browser checks. */
export const BROWSER_METRIC_NAMES: readonly string[] = namesOf(BROWSER_BASE);

function namesOf(table: Record<string, BaseMetric>): string[] {
  return Object.entries(table).flatMap(([name, m]) => (m.timing ? [name, ...AGGREGATIONS.map((a) => `${name}_${a}`)] : [name]));
}

/** Resolves one metric name, or undefined when it is not one of the table's names. */
export function resolveMetric(name: string, table: MetricTable = 'http'): Metric | undefined {
  const bases = TABLES[table];
  const [baseName, suffix, ...rest] = name.split('_');
  const base = Object.hasOwn(bases, baseName) ? bases[baseName] : undefined;
  if (!base || rest.length > 0) return undefined;
  if (suffix === undefined) {
    const aggregation = base.aggregation ?? 'avg';
    return { name, base: baseName, aggregation, unit: base.unit, label: `${base.label} (${aggregation})` };
  }
  if (!base.timing || !(AGGREGATIONS as string[]).includes(suffix)) return undefined;
  const aggregation = suffix as Aggregation;
  return { name, base: baseName, aggregation, unit: base.unit, label: `${base.label} (${aggregation})` };
}

/** Outcome of parsing `metrics`: the metrics in first-seen order, or the unknown names. */
export type MetricsParse = { ok: true; metrics: Metric[] } | { ok: false; message: string };

/** Parses repeated and comma-separated `metrics` values; duplicates count once. */
export function parseMetrics(values: readonly string[], table: MetricTable = 'http'): MetricsParse {
  const names = [...new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))];
  if (names.length === 0) return { ok: false, message: 'is required' };
  const unknown = names.filter((n) => resolveMetric(n, table) === undefined);
  if (unknown.length > 0) {
    const allowed = table === 'http' ? METRIC_NAMES : BROWSER_METRIC_NAMES;
    return { ok: false, message: `has unknown metric ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${allowed.join(', ')}` };
  }
  return { ok: true, metrics: names.map((n) => resolveMetric(n, table)!) };
}

/** The metadata entry of a metric. */
export function metricMetadata(m: Metric): { unit: string; label: string; aggregation: Aggregation } {
  return { unit: m.unit, label: m.label, aggregation: m.aggregation };
}
