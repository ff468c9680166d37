/**
 * Analytics metric names (spec §4.4, decisions §5.6): parsing the `metrics` query and the
 * metadata each metric carries. One table holds every base metric.
 */
import { AGGREGATIONS, type Aggregation } from './stats.js';

/** How a base metric reads one FINAL result, its unit and its label. */
interface BaseMetric {
  label: string;
  unit: 'milliseconds' | 'percentage' | 'count';
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
 * The ICMP analytics metrics this service answers (GET /v1/analytics/icmp/{id}): an ICMP run's
 * responseTime is its average latency (the reference's definition), so latencyAvg is that figure;
 * availability and retries as for every check.
 */
export const ICMP_METRICS: MetricVocabulary = {
  latencyAvg: { label: 'Average latency', unit: 'milliseconds', timing: true, source: 'responseTime' },
  availability: BASE.availability,
  retries: BASE.retries,
};
/**
 * ICMP metrics of the reference that the stored figures cannot answer yet: a run's packet loss and
 * its min, max and standard deviation of latency are kept only in its result's JSON document.
 */
export const ICMP_UNRECORDED: readonly string[] = ['packetLoss', 'latencyMin', 'latencyMax', 'latencyStdDev'];

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
export const METRIC_NAMES: readonly string[] = metricNames(BASE);

/** Every name of a vocabulary: its bases and the ten suffixed forms of each timing metric. */
export function metricNames(vocabulary: MetricVocabulary): string[] {
  return Object.entries(vocabulary).flatMap(([name, m]) => (m.timing ? [name, ...AGGREGATIONS.map((a) => `${name}_${a}`)] : [name]));
}

/** Resolves one metric name, or undefined when it is not one of METRIC_NAMES. */
export function resolveMetric(name: string, vocabulary: MetricVocabulary = BASE): Metric | undefined {
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

/**
 * Parses repeated and comma-separated `metrics` values; duplicates count once. Names whose base is
 * in `unrecorded` are the reference's but not answered here: refused with that reason.
 */
export function parseMetrics(values: readonly string[], vocabulary: MetricVocabulary = BASE, unrecorded: readonly string[] = []): MetricsParse {
  const names = [...new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))];
  if (names.length === 0) return { ok: false, message: 'is required' };
  const notKept = names.filter((n) => unrecorded.includes(n.split('_')[0]));
  if (notKept.length > 0) {
    return { ok: false, message: `has metric ${notKept.map((u) => `"${u}"`).join(', ')}, which this service does not record yet; allowed: ${metricNames(vocabulary).join(', ')}` };
  }
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
