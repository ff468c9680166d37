import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { aggregateRecords, type AggregateQuery, type AggregateRow } from '../../../src/server/store/aggregate.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { RESULTS_INDEX, analyticsSeries, buildSeries, type SeriesQuery } from '../../../src/server/rundata/analytics.js';
import { parseMetrics, METRIC_NAMES } from '../../../src/server/rundata/analytics-metrics.js';
import { pgDatabase, pgSchemaV1Database } from '../../helpers/pg-url.js';
import { rng } from '../../helpers/rng.js';
import Database from 'libsql';
import pg from 'pg';
import { MIGRATIONS } from '../../../src/server/store/sqlite.js';
import { getPath } from '../../../src/server/store/backend.js';
import { SUMMARY_V1_FIELDS } from '../../../src/server/rundata/analytics.js';

// The reduction behind analytics runs in SQL on SQLite and PostgreSQL and in JavaScript in
// memory: on the same results every store answers the same figures and the same series.
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const MIN = 60_000;

/** Results of check c1 (and a few of c2) over 10 hours: FINAL and ATTEMPT, with and without phases and status. */
function results(n: number, seed: number): Array<Record<string, unknown>> {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  return Array.from({ length: n }, (_, i) => {
    const responseTime = pick([Math.round(r() * 3000), Math.round(r() * 100_000) / 100, 7, 7, 0]);
    const http = r() < 0.7;
    return {
      id: `r${i}`,
      checkId: r() < 0.9 ? 'c1' : 'c2',
      resultType: r() < 0.85 ? 'FINAL' : 'ATTEMPT',
      startedAt: new Date(T0 + Math.floor(r() * 600 * MIN)).toISOString(),
      hasFailures: r() < 0.2,
      attempts: pick([0, 0, 0, 1, 2]),
      responseTime,
      runLocation: pick(['eu-west-1', 'us-east-1', 'ap-south-1']),
      apiCheckResult: http
        ? {
            response: {
              status: pick([200, 200, 301, 500, 503]),
              timingPhases: r() < 0.9 ? { wait: Math.round(r() * 50), dns: Math.round(r() * 2000) / 100, tcp: Math.round(r() * 80), firstByte: Math.round(r() * 400), download: r() < 0.5 ? 0 : Math.round(r() * 999) / 10 } : null,
            },
          }
        : pick([null, { response: { status: 0, timingPhases: { wait: 0, dns: 1, tcp: responseTime, firstByte: 0, download: 0 } } }]),
    };
  });
}

const stores: Array<[string, Store]> = [];
afterAll(() => stores.forEach(([, s]) => s.close()));

function filled(name: string, open: () => Store, recs: Array<Record<string, unknown>>): Store {
  const s = open();
  stores.push([name, s]);
  for (let i = 0; i < recs.length; i += 200) {
    const tx = s.begin('dev');
    for (const rec of recs.slice(i, i + 200)) tx.put(RUN_COLL.checkResults, rec.id as string, rec);
    tx.commit();
  }
  return s;
}

/** Rows in one order, sums and squared deviations apart (each database adds in its own order, from its own mean). */
function normal(rows: AggregateRow[]) {
  const sorted = [...rows].sort((a, b) => JSON.stringify([a.group, a.bucket]).localeCompare(JSON.stringify([b.group, b.bucket])));
  return {
    exact: sorted.map((r) => ({ ...r, values: r.values.map((v) => ({ ...v, sum: v.sum === null, m2: v.m2 === null })) })),
    sums: sorted.flatMap((r) => r.values.flatMap((v) => [v.sum ?? 0, v.m2 ?? 0])),
  };
}

function expectSame(got: AggregateRow[], want: AggregateRow[], name: string) {
  const g = normal(got);
  const w = normal(want);
  expect(g.exact, name).toEqual(w.exact);
  g.sums.forEach((x, i) => expect(Math.abs(x - w.sums[i]), `${name}: ${x} against ${w.sums[i]}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w.sums[i]))));
}

const QUERIES: Array<[string, Omit<AggregateQuery, 'checkId'>]> = [
  ['one bucket, response time percentiles', { fromMs: T0, toMs: T0 + 600 * MIN, bucketMs: 600 * MIN, filters: [{ path: 'resultType', in: ['FINAL'] }], values: [{ path: 'responseTime', percentiles: [50, 90, 95, 99] }] }],
  [
    'hourly by location, failures only, three values',
    {
      fromMs: T0 + 30 * MIN,
      toMs: T0 + 500 * MIN,
      bucketMs: 60 * MIN,
      filters: [{ path: 'resultType', in: ['FINAL'] }, { path: 'hasFailures', in: [true] }],
      groupBy: 'runLocation',
      values: [{ path: 'hasFailures', percentiles: [] }, { path: 'attempts', percentiles: [] }, { path: 'responseTime', percentiles: [1, 100] }],
    },
  ],
  [
    '7-minute buckets by status code (absent ones null), timing phases',
    {
      fromMs: T0,
      toMs: T0 + 600 * MIN,
      bucketMs: 7 * MIN,
      filters: [{ path: 'resultType', in: ['FINAL', 'ATTEMPT'] }, { path: 'hasFailures', in: [false, true] }],
      groupBy: 'apiCheckResult.response.status',
      values: [{ path: 'apiCheckResult.response.timingPhases.dns', percentiles: [50, 95] }, { path: 'apiCheckResult.response.timingPhases.download', percentiles: [90] }],
    },
  ],
  ['a filter nothing passes', { fromMs: T0, toMs: T0 + 600 * MIN, bucketMs: MIN, filters: [{ path: 'resultType', in: [] }], values: [{ path: 'responseTime', percentiles: [50] }] }],
  ['a window without results', { fromMs: T0 - 600 * MIN, toMs: T0, bucketMs: MIN, filters: [], values: [{ path: 'responseTime', percentiles: [50] }] }],
];

describe('analytics reduction on every store', () => {
  const recs = results(3000, 55);
  const all = [
    ['memory', filled('memory', () => Store.memory(RUN_INDEX), recs)],
    ['sqlite', filled('sqlite', () => Store.open(join(mkdtempSync(join(tmpdir(), 'mac-agg-')), 'state.db'), RUN_INDEX), recs)],
    ['postgres', filled('postgres', () => Store.open(pgDatabase(), RUN_INDEX), recs)],
  ] as const;

  it.each(QUERIES)('%s: the same figures as the reduction in JavaScript', (_name, query) => {
    const q = { ...query, checkId: 'c1' };
    const expected = aggregateRecords(recs, RESULTS_INDEX, q);
    // The reference itself is checked on the cases that hold results: not all empty.
    if (!_name.startsWith('a ')) expect(expected.length).toBeGreaterThan(0);
    for (const [name, store] of all) expectSame(store.aggregate('dev', RUN_COLL.checkResults, q), expected, name);
  });

  it('the series of every metric, grouped or not, filtered or not, paged, are the same on every store', () => {
    const metrics = parseMetrics([METRIC_NAMES.join(',')]);
    if (!metrics.ok) throw new Error(metrics.message);
    for (const groupBy of [undefined, 'runLocation', 'statusCode'] as const) {
      for (const filterByStatus of [[], ['success'], ['failure'], ['success', 'failure']] as Array<Array<'success' | 'failure'>>) {
        for (const [interval, page] of [[undefined, 1], [45, 1], [45, 2], [1, 3]] as const) {
          const sq: SeriesQuery = { metrics: metrics.metrics, window: { fromMs: T0, toMs: T0 + 600 * MIN }, aggregationIntervalMin: interval, groupBy, filterByStatus, limit: 10, page };
          const expected = buildSeries(recs.filter((r) => r.checkId === 'c1') as never, sq, 'c1');
          for (const [name, store] of all) expect(analyticsSeries((agg) => store.aggregate('dev', RUN_COLL.checkResults, agg), 'c1', sq), `${name} ${groupBy} ${filterByStatus} ${interval} ${page}`).toEqual(expected);
        }
      }
    }
  });

  it('other accounts and checks are not counted', () => {
    const q: AggregateQuery = { checkId: 'c1', fromMs: T0, toMs: T0 + 600 * MIN, bucketMs: 600 * MIN, filters: [], values: [{ path: 'responseTime', percentiles: [] }] };
    for (const [name, store] of all) {
      expect(store.aggregate('other', RUN_COLL.checkResults, q), name).toEqual([]);
      const [row] = store.aggregate('dev', RUN_COLL.checkResults, q);
      expect(row.values[0].n, name).toBe(recs.filter((r) => r.checkId === 'c1').length);
    }
  });
});

describe('results stored before the figure columns', () => {
  // Rows as the first schema wrote them: no figure columns, the summary only.
  const recs = results(400, 9);
  const rows = recs.map((r) => ['dev', RUN_COLL.checkResults, r.id, r.checkId, Date.parse(r.startedAt as string), JSON.stringify(r), JSON.stringify(SUMMARY_V1_FIELDS.map((f) => getPath(r, f) ?? null))]);
  const q: AggregateQuery = {
    checkId: 'c1',
    fromMs: T0,
    toMs: T0 + 600 * MIN,
    bucketMs: 60 * MIN,
    filters: [{ path: 'resultType', in: ['FINAL'] }],
    groupBy: 'apiCheckResult.response.status',
    values: [{ path: 'hasFailures', percentiles: [] }, { path: 'responseTime', percentiles: [50, 99] }, { path: 'apiCheckResult.response.timingPhases.download', percentiles: [95] }],
  };

  it('are reduced after the migration on SQLite', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-agg-')), 'state.db');
    const db = new Database(file);
    db.exec(MIGRATIONS[0]);
    db.exec('PRAGMA user_version = 1');
    const put = db.prepare('INSERT INTO records (account, kind, id, check_id, at, data, summary) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const r of rows) put.run(...r);
    db.close();
    const store = Store.open(file, RUN_INDEX);
    stores.push(['sqlite-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, q), aggregateRecords(recs, RESULTS_INDEX, q), 'sqlite');
  });

  it('are reduced after the migration on PostgreSQL', async () => {
    const url = pgDatabase();
    await pgSchemaV1Database(url);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const r of rows) await c.query('INSERT INTO records (account, kind, id, check_id, at, data, summary) VALUES ($1, $2, $3, $4, $5, $6, $7)', r);
    await c.end();
    const store = Store.open(url, RUN_INDEX);
    stores.push(['postgres-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, q), aggregateRecords(recs, RESULTS_INDEX, q), 'postgres');
  });
});
