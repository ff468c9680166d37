import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, parseMetrics, resolveMetric, metricMetadata } from '../../src/server/rundata/analytics-metrics.js';
import { bucketStarts, buildSeries, type SeriesQuery } from '../../src/server/rundata/analytics.js';
import type { CheckResult } from '../../src/server/rundata/types.js';

const T0 = Date.parse('2025-03-12T10:00:00.000Z');
let n = 0;
function result(over: Partial<CheckResult> & { at: number; status?: number; dns?: number }): CheckResult {
  const { at, status = 0, dns = 1, ...rest } = over;
  n += 1;
  return {
    id: `r${n}`,
    name: 'db',
    checkId: 'c1',
    resultType: 'FINAL',
    hasFailures: false,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    runLocation: 'eu-west-1',
    startedAt: new Date(at).toISOString(),
    stoppedAt: new Date(at + 100).toISOString(),
    created_at: new Date(at + 100).toISOString(),
    responseTime: 100,
    apiCheckResult: {
      assertions: [],
      request: { method: 'TCP', url: 'tcp://db:5432', data: '', headers: {}, params: {} },
      response: { status, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: { wait: 0, dns, tcp: 5, firstByte: 0, download: 0, total: dns + 5 } },
      requestError: null,
      jobLog: null,
      jobAssets: null,
      pcapDataUrl: null,
    },
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: n,
    attempts: 0,
    sequenceId: null,
    ...rest,
  };
}

function query(over: Omit<Partial<SeriesQuery>, 'metrics'> & { metrics: string }): SeriesQuery {
  const parsed = parseMetrics([over.metrics]);
  if (!parsed.ok) throw new Error(parsed.message);
  return { window: { fromMs: T0, toMs: T0 + 3_600_000 }, filterByStatus: [], limit: 10, page: 1, ...over, metrics: parsed.metrics };
}

const parse = (s: string) => JSON.parse(s) as { data: Array<Record<string, unknown>>; runLocation?: string | null; statusCode?: number | null };

describe('metrics', () => {
  it('knows 6 timing metrics x 11 forms plus availability and retries', () => {
    expect(METRIC_NAMES).toHaveLength(6 * 11 + 2);
    for (const name of METRIC_NAMES) expect(resolveMetric(name)?.name).toBe(name);
  });
  it('accepts comma lists and repeats, once each', () => {
    const p = parseMetrics(['responseTime_p95,availability', 'availability', ' dns_max ']);
    expect(p.ok && p.metrics.map((m) => m.name)).toEqual(['responseTime_p95', 'availability', 'dns_max']);
  });
  it.each([['availability_avg'], ['retries_sum'], ['responseTime_p42'], ['response'], ['responseTime_p95_x'], ['__proto__'], ['toString']])('refuses %s', (bad) => {
    expect(parseMetrics([bad]).ok).toBe(false);
  });
  it('refuses an empty list', () => {
    expect(parseMetrics([]).ok).toBe(false);
    expect(parseMetrics([',']).ok).toBe(false);
  });
  it('describes metrics in metadata', () => {
    expect(metricMetadata(resolveMetric('responseTime_p95')!)).toEqual({ unit: 'milliseconds', label: 'Response time (p95)', aggregation: 'p95' });
    expect(metricMetadata(resolveMetric('dns')!)).toEqual({ unit: 'milliseconds', label: 'DNS (avg)', aggregation: 'avg' });
    expect(metricMetadata(resolveMetric('availability')!)).toEqual({ unit: 'percentage', label: 'Availability (avg)', aggregation: 'avg' });
    expect(metricMetadata(resolveMetric('retries')!)).toEqual({ unit: 'count', label: 'Retries (sum)', aggregation: 'sum' });
  });
});

describe('bucketStarts', () => {
  it('cuts the window by the interval and pages the buckets', () => {
    const w = { fromMs: T0, toMs: T0 + 3_600_000 };
    expect(bucketStarts({ window: w, aggregationIntervalMin: 15, limit: 10, page: 1 })).toEqual([0, 1, 2, 3].map((i) => T0 + i * 900_000));
    expect(bucketStarts({ window: w, aggregationIntervalMin: 7, limit: 5, page: 2 })).toEqual([5, 6, 7, 8].map((i) => T0 + i * 420_000));
    expect(bucketStarts({ window: w, aggregationIntervalMin: 15, limit: 10, page: 2 })).toEqual([]);
    expect(bucketStarts({ window: w, limit: 10, page: 1 })).toEqual([T0]);
  });
});

describe('buildSeries', () => {
  const times = [120, 85, 300, 95, 110, 101, 90, 250, 130, 99, 105, 180, 97, 115, 88, 140, 92, 125, 160, 1000];
  const many = times.map((rt, i) => result({ at: T0 + i * 60_000, responseTime: rt }));

  it('computes one bucket over the window by default', () => {
    const [s] = buildSeries(many, query({ metrics: 'responseTime_p95,responseTime_p99,responseTime,responseTime_max,responseTime_median' }));
    expect(parse(s)).toEqual({
      data: [{ timestamp: '2025-03-12T10:00:00.000Z', responseTime_p95: 300, responseTime_p99: 1000, responseTime: 174.1, responseTime_max: 1000, responseTime_median: 110 }],
    });
  });

  it('gives null for empty buckets and only counts FINAL results in [from, to)', () => {
    const rs = [
      result({ at: T0, responseTime: 10 }),
      result({ at: T0 + 1000, responseTime: 999, resultType: 'ATTEMPT' }),
      result({ at: T0 + 3_600_000, responseTime: 999 }), // at `to`: outside
      result({ at: T0 - 1, responseTime: 999 }),
    ];
    const [s] = buildSeries(rs, query({ metrics: 'responseTime,availability,retries', aggregationIntervalMin: 30 }));
    expect(parse(s).data).toEqual([
      { timestamp: '2025-03-12T10:00:00.000Z', responseTime: 10, availability: 100, retries: 0 },
      { timestamp: '2025-03-12T10:30:00.000Z', responseTime: null, availability: null, retries: null },
    ]);
  });

  it('computes availability, retries and timing phases', () => {
    const rs = [
      result({ at: T0, hasFailures: true, attempts: 1, dns: 4 }),
      result({ at: T0 + 1, attempts: 2, dns: 6 }),
      result({ at: T0 + 2, dns: 8 }),
    ];
    const [s] = buildSeries(rs, query({ metrics: 'availability,retries,dns,dns_stddev,tcp_sum' }));
    expect(parse(s).data[0]).toMatchObject({ availability: 66.67, retries: 3, dns: 6, dns_stddev: 1.63, tcp_sum: 15 });
  });

  it('filters by status', () => {
    const rs = [result({ at: T0, hasFailures: true, responseTime: 50 }), result({ at: T0 + 1, responseTime: 10 })];
    const only = (f: Array<'success' | 'failure'>) => parse(buildSeries(rs, query({ metrics: 'responseTime', filterByStatus: f }))[0]).data[0].responseTime;
    expect(only(['success'])).toBe(10);
    expect(only(['failure'])).toBe(50);
    expect(only(['success', 'failure'])).toBe(30);
  });

  it('groups by runLocation and statusCode, ascending, absent values last', () => {
    const rs = [
      result({ at: T0, runLocation: 'us-east-1', responseTime: 30 }),
      result({ at: T0 + 1, runLocation: 'eu-west-1', responseTime: 10 }),
      result({ at: T0 + 2, runLocation: 'eu-west-1', responseTime: 20 }),
    ];
    const byLoc = buildSeries(rs, query({ metrics: 'responseTime', groupBy: 'runLocation' })).map(parse);
    expect(byLoc.map((g) => [g.runLocation, g.data[0].responseTime])).toEqual([['eu-west-1', 15], ['us-east-1', 30]]);

    const codes = [result({ at: T0, status: 3 }), result({ at: T0 + 1, status: 0 }), result({ at: T0 + 2, apiCheckResult: null })];
    const byCode = buildSeries(codes, query({ metrics: 'availability', groupBy: 'statusCode' })).map(parse);
    expect(byCode.map((g) => g.statusCode)).toEqual([0, 3, null]);
  });

  it('answers nulls without results: one series, or no groups', () => {
    const [s] = buildSeries([], query({ metrics: 'responseTime_p95', aggregationIntervalMin: 20 }));
    expect(parse(s).data.map((d) => d.responseTime_p95)).toEqual([null, null, null]);
    expect(buildSeries([], query({ metrics: 'responseTime', groupBy: 'runLocation' }))).toEqual([]);
  });

  it('gives null timing values for results without timing phases', () => {
    const ms = result({ at: T0, apiCheckResult: null });
    const [s] = buildSeries([ms], query({ metrics: 'dns,responseTime,availability' }));
    expect(parse(s).data[0]).toMatchObject({ dns: null, responseTime: 100, availability: 100 });
  });
});
