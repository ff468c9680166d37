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
  /** The base figure it reads when that is not its own name (ICMP latencyAvg reads responseTime). */
  source?: string;
}

/** The metric names an analytics route accepts, by base. */
export type MetricVocabulary = Readonly<Record<string, BaseMetric>>;

// Every base metric the API knows, in the spec's order.
const BASE: MetricVocabulary = {
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
 * The ICMP analytics metrics (GET /v1/analytics/icmp/{id}, reference AnalyticsIcmpMonitorMetadata):
 * packet loss and the latency figures are kept per run (analytics.ts ICMP_FIGURES; a run without
 * replies has loss but no latency); availability and retries as for every check.
 */
export const ICMP_METRICS: MetricVocabulary = {
  packetLoss: { label: 'Packet loss', unit: 'percentage', timing: true },
  latencyMin: { label: 'Minimum latency', unit: 'milliseconds', timing: true },
  latencyMax: { label: 'Maximum latency', unit: 'milliseconds', timing: true },
  latencyAvg: { label: 'Average latency', unit: 'milliseconds', timing: true },
  latencyStdDev: { label: 'Latency standard deviation', unit: 'milliseconds', timing: true },
  availability: BASE.availability,
  retries: BASE.retries,
};

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
/**
 * Browser checks' metrics (reference AnalyticsBrowserCheckMetadata): response time, the web
 * vitals of a page, its error counts, availability and retries.
 */
export const BROWSER_METRICS: MetricVocabulary = {
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

/** Which metric table a route reads: HTTP checks' (url-monitors, api-checks), browser checks' or ICMP monitors'. */
export type MetricTable = 'http' | 'browser' | 'icmp';
const TABLES: Record<MetricTable, MetricVocabulary> = { http: BASE, browser: BROWSER_METRICS, icmp: ICMP_METRICS };
const vocabularyOf = (v: MetricVocabulary | MetricTable): MetricVocabulary => (typeof v === 'string' ? TABLES[v] : v);

export const METRIC_NAMES: readonly string[] = metricNames(BASE);
/** Every metric name of browser checks. */
export const BROWSER_METRIC_NAMES: readonly string[] = metricNames(BROWSER_METRICS);

/** Every name of a vocabulary: its bases and the ten suffixed forms of each timing metric. */
export function metricNames(vocabulary: MetricVocabulary): string[] {
  return Object.entries(vocabulary).flatMap(([name, m]) => (m.timing ? [name, ...AGGREGATIONS.map((a) => `${name}_${a}`)] : [name]));
}

/** Resolves one metric name, or undefined when it is not one of METRIC_NAMES. */
export function resolveMetric(name: string, table: MetricVocabulary | MetricTable = BASE): Metric | undefined {
  const vocabulary = vocabularyOf(table);
  const [baseName, suffix, ...rest] = name.split('_');
  const base = Object.hasOwn(vocabulary, baseName) ? vocabulary[baseName] : undefined;
  if (!base || rest.length > 0) return undefined;
  const source = base.source ?? baseName;
  if (suffix === undefined) {
    const aggregation = base.aggregation ?? 'avg';
    return { name, base: source, aggregation, unit: base.unit, label: `${base.label} (${aggregation})` };
  }
  if (!base.timing || !(AGGREGATIONS as string[]).includes(suffix)) return undefined;
  const aggregation = suffix as Aggregation;
  return { name, base: source, aggregation, unit: base.unit, label: `${base.label} (${aggregation})` };
}

/** Outcome of parsing `metrics`: the metrics in first-seen order, or the unknown names. */
export type MetricsParse = { ok: true; metrics: Metric[] } | { ok: false; message: string };

/** Parses repeated and comma-separated `metrics` values; duplicates count once. */
export function parseMetrics(values: readonly string[], table: MetricVocabulary | MetricTable = BASE): MetricsParse {
  const vocabulary = vocabularyOf(table);
  const names = [...new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))];
  if (names.length === 0) return { ok: false, message: 'is required' };
  const unknown = names.filter((n) => resolveMetric(n, vocabulary) === undefined);
  if (unknown.length > 0) {
    return { ok: false, message: `has unknown metric ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${metricNames(vocabulary).join(', ')}` };
  }
  return { ok: true, metrics: names.map((n) => resolveMetric(n, vocabulary)!) };
}

/** The metadata entry of a metric. */
export function metricMetadata(m: Metric): { unit: string; label: string; aggregation: Aggregation } {
  return { unit: m.unit, label: m.label, aggregation: m.aggregation };
}
