import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { aggregateRecords, type AggregateQuery, type AggregateRow } from '../../../src/server/store/aggregate.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { RESULTS_INDEX, analyticsSeries, buildSeries, type SeriesQuery } from '../../../src/server/rundata/analytics.js';
import { parseMetrics, metricNames, ICMP_METRICS, METRIC_NAMES } from '../../../src/server/rundata/analytics-metrics.js';
import { PG_MIGRATIONS } from '../../../src/server/store/postgres.js';
import { FIGURE_COLUMNS, figureValues } from '../../../src/server/store/aggregate.js';
import { pgCreateDatabase, pgDatabase, pgQuery, pgSchemaV1Database } from '../../helpers/pg-url.js';
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

/** One PostgreSQL `INSERT INTO records (columns) VALUES ($1, ...), (...)` of all `rows`: one round trip, not one per row. */
function pgInsert(columns: string, rows: unknown[][]): { text: string; values: unknown[] } {
  let i = 0;
  return { text: `INSERT INTO records (${columns}) VALUES ${rows.map((r) => `(${r.map(() => `$${++i}`).join(', ')})`).join(', ')}`, values: rows.flat() };
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
    db.exec('BEGIN');
    for (const r of rows) put.run(...r);
    db.exec('COMMIT');
    db.close();
    const store = Store.open(file, RUN_INDEX);
    stores.push(['sqlite-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, q), aggregateRecords(recs, RESULTS_INDEX, q), 'sqlite');
  });

  it('are reduced after the migration on PostgreSQL', async () => {
    const url = pgDatabase();
    await pgSchemaV1Database(url);
    const insert = pgInsert('account, kind, id, check_id, at, data, summary', rows);
    await pgQuery(url, insert.text, insert.values);
    const store = Store.open(url, RUN_INDEX);
    stores.push(['postgres-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, q), aggregateRecords(recs, RESULTS_INDEX, q), 'postgres');
  });
});

/** ICMP results of check i1 as the runner writes them: the JSON document as body; a few with no reply, a few bodies that are no document. */
function icmpResults(n: number, seed: number): Array<Record<string, unknown>> {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const sent = 1 + Math.floor(r() * 10);
    const received = r() < 0.1 ? 0 : Math.max(1, sent - Math.floor(r() * 3));
    const min = Math.round(r() * 500) / 1000;
    const latency = received === 0 ? { min: null, avg: null, max: null, stdDev: null } : { min, avg: Math.round(1000 * min + 100) / 1000, max: Math.round(1000 * min + r() * 900) / 1000, stdDev: Math.round(r() * 300) / 1000 };
    const doc = { hostname: '127.0.0.1', packetsSent: sent, packetsReceived: received, packetLoss: Math.round((10000 * (sent - received)) / sent) / 100, latency, pingResults: [] };
    const odd = i % 97 === 5 ? 'not json' : i % 97 === 6 ? '[1, 2]' : i % 97 === 7 ? JSON.stringify({ ...doc, packetLoss: 'lots', latency: { min: true } }) : null;
    return {
      id: `p${i}`,
      checkId: r() < 0.9 ? 'i1' : 'i2',
      resultType: r() < 0.85 ? 'FINAL' : 'ATTEMPT',
      startedAt: new Date(T0 + Math.floor(r() * 600 * MIN)).toISOString(),
      hasFailures: received === 0,
      attempts: 0,
      responseTime: latency.avg ?? 0,
      runLocation: 'eu-west-1',
      apiCheckResult: {
        request: { method: 'ICMP', url: 'icmp://127.0.0.1' },
        response: { status: 0, body: odd ?? JSON.stringify(doc), timingPhases: { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0, total: 3 } },
      },
    };
  });
}

// A URL result whose body happens to look like an ICMP document is not one.
const LOOKALIKE = {
  id: 'u1',
  checkId: 'i1',
  resultType: 'FINAL',
  startedAt: new Date(T0 + 5 * MIN).toISOString(),
  hasFailures: false,
  attempts: 0,
  responseTime: 12,
  runLocation: 'eu-west-1',
  apiCheckResult: { request: { method: 'GET', url: 'http://x/' }, response: { status: 200, body: '{"packetLoss":99,"latency":{"min":1,"max":2,"stdDev":3}}' } },
};

const ICMP_VALUES = ['icmp:packetLoss', 'icmp:latencyMin', 'icmp:latencyMax', 'icmp:latencyStdDev', 'icmp:latencyAvg'].map((path) => ({ path, percentiles: [50, 95] }));
const ICMP_QUERY: AggregateQuery = { checkId: 'i1', fromMs: T0, toMs: T0 + 600 * MIN, bucketMs: 60 * MIN, filters: [{ path: 'resultType', in: ['FINAL'] }], values: ICMP_VALUES };

describe('ICMP figures (packet loss, latency min, max and standard deviation)', () => {
  const recs = [...icmpResults(600, 77), LOOKALIKE];

  it('are read from the document of ICMP results only', () => {
    const at = (name: string) => FIGURE_COLUMNS.indexOf(`n${RESULTS_INDEX.figures.numbers.indexOf(name as never)}`);
    const doc = { packetLoss: 20, latency: { min: 0.04, avg: 0.05, max: 0.07, stdDev: 0.011 } };
    const icmp = { apiCheckResult: { request: { method: 'ICMP' }, response: { body: JSON.stringify(doc) } } };
    const v = figureValues(RESULTS_INDEX, icmp);
    expect([v[at('icmp:packetLoss')], v[at('icmp:latencyMin')], v[at('icmp:latencyAvg')], v[at('icmp:latencyMax')], v[at('icmp:latencyStdDev')]]).toEqual([20, 0.04, 0.05, 0.07, 0.011]);
    const none = figureValues(RESULTS_INDEX, LOOKALIKE);
    expect(['icmp:packetLoss', 'icmp:latencyMin', 'icmp:latencyAvg', 'icmp:latencyMax', 'icmp:latencyStdDev'].map((n) => none[at(n)])).toEqual([null, null, null, null, null]);
  });

  it('every store reduces them as the reduction in JavaScript, and the ICMP series of every metric are the same', () => {
    const all = [
      ['memory', filled('memory-icmp', () => Store.memory(RUN_INDEX), recs)],
      ['sqlite', filled('sqlite-icmp', () => Store.open(join(mkdtempSync(join(tmpdir(), 'mac-agg-')), 'state.db'), RUN_INDEX), recs)],
      ['postgres', filled('postgres-icmp', () => Store.open(pgDatabase(), RUN_INDEX), recs)],
    ] as const;
    const expected = aggregateRecords(recs, RESULTS_INDEX, ICMP_QUERY);
    expect(expected.length).toBeGreaterThan(5);
    // Plausible: losses 0-100 %, minimum latency at most the maximum.
    for (const row of expected) {
      expect(row.values[0].min!).toBeGreaterThanOrEqual(0);
      expect(row.values[0].max!).toBeLessThanOrEqual(100);
      expect(row.values[1].min!).toBeLessThanOrEqual(row.values[2].max!);
    }
    for (const [name, store] of all) expectSame(store.aggregate('dev', RUN_COLL.checkResults, ICMP_QUERY), expected, name);

    const metrics = parseMetrics([metricNames(ICMP_METRICS).join(',')], 'icmp');
    if (!metrics.ok) throw new Error(metrics.message);
    const sq: SeriesQuery = { metrics: metrics.metrics, window: { fromMs: T0, toMs: T0 + 600 * MIN }, aggregationIntervalMin: 120, filterByStatus: [], limit: 10, page: 1 };
    const series = buildSeries(recs.filter((r) => r.checkId === 'i1') as never, sq, 'i1');
    const first = JSON.parse(series[0]).data[0];
    for (const m of ['packetLoss', 'packetLoss_p95', 'latencyMin', 'latencyMax_max', 'latencyStdDev_avg', 'latencyAvg']) expect(typeof first[m], m).toBe('number');
    for (const [name, store] of all) expect(analyticsSeries((agg) => store.aggregate('dev', RUN_COLL.checkResults, agg), 'i1', sq), name).toEqual(series);
  });

  // Rows as schema version 2 wrote them: figure columns n0-n7 and k0-k2 only.
  const v2Rows = () => {
    const v2Columns = FIGURE_COLUMNS.filter((c) => !['n8', 'n9', 'n10', 'n11', 'n12', 'n13', 'n14'].includes(c));
    const rows = recs.map((r) => {
      const v = figureValues(RESULTS_INDEX, r);
      return [r.id, r.checkId, Date.parse(r.startedAt as string), JSON.stringify(r), ...v2Columns.map((c) => v[FIGURE_COLUMNS.indexOf(c)])];
    });
    return { v2Columns, rows };
  };

  it('of results stored at schema version 2 are filled by the SQLite migration', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-agg-')), 'state.db');
    const db = new Database(file);
    db.exec(MIGRATIONS[0]);
    db.exec(MIGRATIONS[1]);
    db.exec('PRAGMA user_version = 2');
    const { v2Columns, rows } = v2Rows();
    const put = db.prepare(`INSERT INTO records (account, kind, id, check_id, at, data, ${v2Columns.join(', ')}) VALUES ('dev', 'checkResults', ?, ?, ?, ?${', ?'.repeat(v2Columns.length)})`);
    db.exec('BEGIN');
    for (const row of rows) put.run(...row);
    db.exec('COMMIT');
    db.close();
    const store = Store.open(file, RUN_INDEX);
    stores.push(['sqlite-icmp-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, ICMP_QUERY), aggregateRecords(recs, RESULTS_INDEX, ICMP_QUERY), 'sqlite');
  });

  it('of results stored at schema version 2 are filled by the PostgreSQL migration (a record that is no JSON does not stop it)', async () => {
    const url = pgDatabase();
    await pgCreateDatabase(url);
    await pgQuery(url, `${PG_MIGRATIONS[0]}; ${PG_MIGRATIONS[1]}; CREATE TABLE mac_schema (version integer NOT NULL); INSERT INTO mac_schema VALUES (2)`);
    const { v2Columns, rows } = v2Rows();
    const insert = pgInsert(`account, kind, id, check_id, at, data, ${v2Columns.join(', ')}`, rows.map((row) => ['dev', 'checkResults', ...row]));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(insert.text, insert.values);
    // A record whose text mentions ICMP but does not parse as JSON.
    await c.query(`INSERT INTO records (account, kind, id, check_id, at, data) VALUES ('dev', 'checkResults', 'bad', 'i1', $1, '{"apiCheckResult":{"request":{"method":"ICMP"}')`, [T0 + MIN]);
    await c.end();
    const store = Store.open(url, RUN_INDEX);
    stores.push(['postgres-icmp-migrated', store]);
    expectSame(store.aggregate('dev', RUN_COLL.checkResults, ICMP_QUERY), aggregateRecords(recs, RESULTS_INDEX, ICMP_QUERY), 'postgres');
  });
});
