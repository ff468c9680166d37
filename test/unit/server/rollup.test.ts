import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { RESULTS_INDEX } from '../../../src/server/rundata/analytics.js';
import { FIGURE_COLUMNS, figureValues } from '../../../src/server/store/aggregate.js';
import { MIGRATIONS } from '../../../src/server/store/sqlite.js';
import { PG_MIGRATIONS } from '../../../src/server/store/postgres.js';
import { percentile } from '../../../src/server/rundata/stats.js';
import {
  DAY_MS,
  HISTOGRAM_THRESHOLDS,
  HOUR_MS,
  PERCENTILE_RELATIVE_ERROR,
  addTally,
  emptyTally,
  histogramBucket,
  histogramOf,
  tallyOfRecord,
  tallyPercentile,
  type RollupCell,
  type Tally,
} from '../../../src/server/store/rollup.js';
import { asyncResultsReducer, checkFigures, figuresPlan, manyFigures, runReads, type FiguresAsk } from '../../../src/server/rundata/figures.js';
import { pgCreateDatabase, pgDatabase, pgQuery } from '../../helpers/pg-url.js';
import { rng } from '../../helpers/rng.js';

// Cells of check results per hour and day, kept by every store in the transaction of each write:
// after inserts, updates, deletes, the retention and a check's deletion they hold what a reduction
// of the stored results gives; the migration fills them from the results already stored; and the
// percentiles read from their histograms stay within the stated bound.

const T0 = Date.parse('2026-03-01T00:00:00.000Z');

function results(n: number, seed: number): Array<Record<string, unknown>> {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `r${i}`,
    checkId: r() < 0.8 ? 'c1' : 'c2',
    resultType: r() < 0.85 ? 'FINAL' : 'ATTEMPT',
    // Two and a half days: whole days, whole hours and a partial day.
    startedAt: new Date(T0 + Math.floor(r() * 60 * HOUR_MS)).toISOString(),
    hasFailures: r() < 0.2,
    hasErrors: r() < 0.05,
    isDegraded: r() < 0.1,
    responseTime: r() < 0.03 ? null : [0, 0.4, 7, Math.round(r() * 3000), Math.round(r() * 100_000) / 100, 700_000][Math.floor(r() * 6)],
  }));
}

/** The cells a reduction of the records gives (the reference). */
function reference(recs: Iterable<Record<string, unknown>>, checkId: string): Map<string, Tally> {
  const cells = new Map<string, Tally>();
  for (const rec of recs) {
    if (rec.checkId !== checkId) continue;
    const t = tallyOfRecord(rec);
    if (!t) continue;
    const at = Date.parse(rec.startedAt as string);
    for (const span of [HOUR_MS, DAY_MS]) {
      const key = `${span}:${Math.floor(at / span) * span}`;
      addTally(cells.get(key) ?? cells.set(key, emptyTally()).get(key)!, t);
    }
  }
  return cells;
}

async function cellsOf(store: Store, checkId: string): Promise<Map<string, Tally>> {
  const got: RollupCell[] = await store.rollupsAsync('dev', RUN_COLL.checkResults, { checkId, ranges: [[HOUR_MS, T0 - DAY_MS, T0 + 5 * DAY_MS], [DAY_MS, T0 - DAY_MS, T0 + 5 * DAY_MS]] });
  return new Map(got.map((c) => [`${c.span}:${c.start}`, c.tally]));
}

/**
 * The cells of a store against the reference: exact but for sums (each database adds in its own
 * order) and, once results were taken out, the minimum and maximum (within one histogram bucket:
 * rollup.ts takenOut).
 */
function expectCells(got: Map<string, Tally>, want: Map<string, Tally>, name: string, exactBounds = true): void {
  expect([...got.keys()].sort(), name).toEqual([...want.keys()].sort());
  for (const [key, w] of want) {
    const g = got.get(key)!;
    const exact = (t: Tally) => ({ runs: t.runs, fails: t.fails, errors: t.errors, degraded: t.degraded, n: t.n, hist: Object.fromEntries([...t.hist].sort((a, b) => a[0] - b[0])), ...(exactBounds ? { min: t.min, max: t.max } : {}) });
    expect(exact(g), `${name} ${key}`).toEqual(exact(w));
    if (!exactBounds) {
      for (const f of ['min', 'max'] as const) {
        const [x, y] = [g[f], w[f]];
        if (y === null) expect(x, `${name} ${key} ${f}`).toBeNull();
        else expect(Math.abs(x! - y), `${name} ${key} ${f}: ${x} for ${y}`).toBeLessThanOrEqual(Math.max(1, 0.0506 * Math.abs(y)));
      }
    }
    expect(Math.abs(g.sum - w.sum), `${name} ${key} sum`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(w.sum)));
    expect(Math.abs(g.sq - w.sq), `${name} ${key} sq`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(w.sq)));
  }
}

const stores: Store[] = [];
afterAll(() => stores.forEach((s) => s.close()));

describe('the histogram', () => {
  it('has thresholds at most 5.06 % apart from 1 ms to 10 minutes, and buckets by how many are at or below a value', () => {
    expect(HISTOGRAM_THRESHOLDS[0]).toBe(1);
    expect(HISTOGRAM_THRESHOLDS[HISTOGRAM_THRESHOLDS.length - 1]).toBeGreaterThanOrEqual(600_000);
    for (let i = 1; i < HISTOGRAM_THRESHOLDS.length; i++) expect(HISTOGRAM_THRESHOLDS[i] / HISTOGRAM_THRESHOLDS[i - 1]).toBeLessThanOrEqual(1.0506);
    const r = rng(3);
    for (let k = 0; k < 2000; k++) {
      const v = k % 10 === 0 ? HISTOGRAM_THRESHOLDS[k % HISTOGRAM_THRESHOLDS.length] : r() * 10 ** (r() * 7 - 1);
      expect(histogramBucket(v)).toBe(HISTOGRAM_THRESHOLDS.filter((t) => t <= v).length);
    }
  });

  it('gives percentiles within 2.5 % of the exact nearest rank (0.5 ms under 1 ms), and the value itself when all are equal', () => {
    expect(PERCENTILE_RELATIVE_ERROR).toBeGreaterThanOrEqual(Math.sqrt(1.0506) - 1);
    const r = rng(11);
    for (let k = 0; k < 200; k++) {
      const n = 1 + Math.floor(r() * 500);
      const xs = Array.from({ length: n }, () => (r() < 0.05 ? r() : Math.round(r() * 10 ** (1 + r() * 4) * 100) / 100));
      const t = emptyTally();
      for (const x of xs) addTally(t, tallyOfRecord({ resultType: 'FINAL', hasFailures: false, responseTime: x })!);
      expect(t.hist).toEqual(histogramOf(xs));
      for (const p of [1, 50, 90, 95, 99, 100]) {
        const exact = percentile(xs, p)!;
        const got = tallyPercentile(t, p)!;
        expect(Math.abs(got - exact), `p${p} of ${n}: ${got} for ${exact}`).toBeLessThanOrEqual(Math.max(0.5, PERCENTILE_RELATIVE_ERROR * exact));
      }
    }
    const same = emptyTally();
    for (let i = 0; i < 5; i++) addTally(same, tallyOfRecord({ resultType: 'FINAL', hasFailures: false, responseTime: 123 })!);
    expect(tallyPercentile(same, 50)).toBe(123);
  });
});

describe('the plan of a window', () => {
  it('reads whole days and hours from cells, the parts of an hour at the edges from the results', () => {
    const now = T0 + 30 * DAY_MS + 5 * HOUR_MS + 17 * 60_000;
    // 30 UTC days of a status page: 29 whole days, the hours of today, the current hour raw.
    const days = { fromMs: T0 + DAY_MS, toMs: now + 1, bucketMs: DAY_MS };
    expect(figuresPlan(days, 30, true)).toEqual({
      cells: [[DAY_MS, T0 + DAY_MS, T0 + 30 * DAY_MS], [HOUR_MS, T0 + 30 * DAY_MS, T0 + 30 * DAY_MS + 5 * HOUR_MS]],
      raw: [[T0 + 30 * DAY_MS + 5 * HOUR_MS, now + 1]],
    });
    // The last 24 hours as one bucket: the parts of an hour at both ends raw.
    expect(figuresPlan({ fromMs: now - DAY_MS, toMs: now + 1, bucketMs: DAY_MS + 1 }, 1, true)).toEqual({
      cells: [[HOUR_MS, now - DAY_MS + 43 * 60_000, now - 17 * 60_000]],
      raw: [[now - DAY_MS, now - DAY_MS + 43 * 60_000], [now - 17 * 60_000, now + 1]],
    });
    // Minutes: all raw, as one range; without cells, all raw.
    expect(figuresPlan({ fromMs: now - HOUR_MS, toMs: now, bucketMs: 60_000 }, 60, true)).toEqual({ cells: [], raw: [[now - HOUR_MS, now]] });
    expect(figuresPlan(days, 30, false)).toEqual({ cells: [], raw: [[days.fromMs, days.toMs]] });
  });
});

describe('cells on every store', () => {
  const recs = results(3000, 21);
  const open: Array<[string, () => Store]> = [
    ['memory', () => Store.memory(RUN_INDEX)],
    ['sqlite', () => Store.open(join(mkdtempSync(join(tmpdir(), 'mac-rollup-')), 'state.db'), RUN_INDEX)],
    ['postgres', () => Store.open(pgDatabase(), RUN_INDEX)],
  ];

  it.each(open)('%s: follow inserts, updates, deletes, the retention and the deletion of a check', async (name, make) => {
    const store = make();
    stores.push(store);
    const live = new Map(recs.map((r) => [r.id as string, r]));
    for (let i = 0; i < recs.length; i += 250) {
      const tx = store.begin('dev');
      for (const rec of recs.slice(i, i + 250)) tx.put(RUN_COLL.checkResults, rec.id as string, rec);
      tx.commit();
    }
    for (const c of ['c1', 'c2']) expectCells(await cellsOf(store, c), reference(live.values(), c), `${name} inserted ${c}`);
    // Another account's results are its own.
    expect(await store.rollupsAsync('other', RUN_COLL.checkResults, { checkId: 'c1', ranges: [[HOUR_MS, 0, T0 + 5 * DAY_MS]] })).toEqual([]);

    // Updates (a FINAL result becomes an attempt, another changes its time and response time) and deletes.
    const tx = store.begin('dev');
    const r = rng(5);
    for (const rec of recs.slice(0, 300)) {
      const id = rec.id as string;
      const what = r();
      if (what < 0.3) {
        tx.delete(RUN_COLL.checkResults, id);
        live.delete(id);
      } else if (what < 0.6) {
        const next = { ...rec, resultType: rec.resultType === 'FINAL' ? 'ATTEMPT' : 'FINAL', responseTime: 1234, startedAt: new Date(T0 + Math.floor(r() * 60 * HOUR_MS)).toISOString() };
        tx.put(RUN_COLL.checkResults, id, next);
        live.set(id, next);
      }
    }
    tx.commit();
    for (const c of ['c1', 'c2']) expectCells(await cellsOf(store, c), reference(live.values(), c), `${name} changed ${c}`, false);

    // The retention, in bounded batches: the cells lose what it deletes.
    const cut = T0 + 30 * HOUR_MS + 20 * 60_000;
    while (store.expire(RUN_COLL.checkResults, cut, 300) > 0);
    for (const [id, rec] of live) if (Date.parse(rec.startedAt as string) < cut) live.delete(id);
    for (const c of ['c1', 'c2']) expectCells(await cellsOf(store, c), reference(live.values(), c), `${name} expired ${c}`, false);

    // A check deleted: its cells go, the other's stay.
    const del = store.begin('dev');
    del.deleteByCheck(RUN_COLL.checkResults, 'c2');
    del.commit();
    expect((await cellsOf(store, 'c2')).size, name).toBe(0);
    expectCells(await cellsOf(store, 'c1'), reference(live.values(), 'c1'), `${name} after deleting c2`, false);

    // checkFigures over cells and edges answers what a reduction of the results gives (counts exactly).
    const window = { fromMs: T0 + 7 * HOUR_MS + 123_456, toMs: T0 + 58 * HOUR_MS + 1, bucketMs: 6 * HOUR_MS };
    const f = await checkFigures(asyncResultsReducer(store, 'dev'), 'c1', window);
    const inWindow = [...live.values()].filter((x) => x.checkId === 'c1' && x.resultType === 'FINAL').filter((x) => {
      const t = Date.parse(x.startedAt as string);
      return t >= window.fromMs && t < window.toMs;
    });
    expect(f.total.runs, name).toBe(inWindow.length);
    // Failures and errors add up (a run has one or the other), at most the runs.
    expect(f.total.failed, name).toBe(Math.min(inWindow.length, inWindow.reduce((s, x) => s + (x.hasFailures ? 1 : 0) + (x.hasErrors ? 1 : 0), 0)));
    const rts = inWindow.map((x) => x.responseTime).filter((x): x is number => typeof x === 'number');
    expect(Math.abs(f.total.responseTime!.max - Math.max(...rts)), name).toBeLessThanOrEqual(0.0506 * Math.max(...rts));
    const p95 = percentile(rts, 95)!;
    expect(Math.abs(f.total.responseTime!.p95! - p95), name).toBeLessThanOrEqual(Math.max(0.5, PERCENTILE_RELATIVE_ERROR * p95) + 0.005);
  });
});

describe('the figures of a page read together', () => {
  const recs: Array<Record<string, unknown>> = results(3000, 33).map((r, i) => ({ ...r, checkId: ['c1', 'c2', 'c3'][i % 3] }));
  const open: Array<[string, () => Store]> = [
    ['memory', () => Store.memory(RUN_INDEX)],
    ['sqlite', () => Store.open(join(mkdtempSync(join(tmpdir(), 'mac-rollup-')), 'state.db'), RUN_INDEX)],
    ['postgres', () => Store.open(pgDatabase(), RUN_INDEX)],
  ];

  it.each(open)('%s: answer per check and window what each read alone answers, by one statement of cells and one of raw parts', async (name, make) => {
    const store = make();
    stores.push(store);
    const tx = store.begin('dev');
    for (const rec of recs) tx.put(RUN_COLL.checkResults, rec.id as string, rec);
    tx.commit();
    const now = T0 + 40 * HOUR_MS + 17 * 60_000 + 123;
    const windows = [
      // A dashboard's rolling 24 hours, its 24 hours of hours, 3 days of days; buckets of 30 minutes (read alone).
      { fromMs: now - DAY_MS, toMs: now + 1, bucketMs: DAY_MS + 1 },
      { fromMs: Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS, toMs: now + 1, bucketMs: HOUR_MS },
      { fromMs: Math.floor(now / DAY_MS) * DAY_MS - 2 * DAY_MS, toMs: now + 1, bucketMs: DAY_MS },
      { fromMs: T0 + 5 * HOUR_MS, toMs: T0 + 20 * HOUR_MS + 1, bucketMs: 30 * 60_000 },
    ];
    const asks: FiguresAsk[] = [];
    for (const checkId of ['c1', 'c2', 'c3', 'none']) {
      for (const window of windows) asks.push({ checkId, window });
      // Counts only (a status page's bars), and percentiles of its own.
      asks.push({ checkId, window: windows[2], options: { responseTimes: false } });
      asks.push({ checkId, window: windows[0], options: { percentiles: [99] } });
    }
    const reduce = asyncResultsReducer(store, 'dev');
    const alone = await Promise.all(asks.map((a) => checkFigures(reduce, a.checkId, a.window, a.options)));
    expect(await manyFigures(reduce, asks), name).toEqual(alone);
    // RunReads asked in one turn read them so too.
    const reads = runReads(store, 'dev');
    expect(await Promise.all(asks.map((a) => reads.figures(a.checkId, a.window, a.options))), name).toEqual(alone);
    // The figures hold runs (the comparison is not of empty answers).
    expect(alone[1].total.runs, name).toBeGreaterThan(0);
    expect(alone[3].total.runs, name).toBeGreaterThan(0);

    // Cells of several checks by one query: each check's cells as a query of it alone answers them.
    const ranges: Array<[number, number, number]> = [[HOUR_MS, T0 - DAY_MS, T0 + 5 * DAY_MS], [DAY_MS, T0 - DAY_MS, T0 + 5 * DAY_MS]];
    const many = await store.rollupsAsync('dev', RUN_COLL.checkResults, { checkId: 'c1', checkIds: ['c1', 'c3', 'none'], ranges });
    for (const c of ['c1', 'c3']) {
      const one = await store.rollupsAsync('dev', RUN_COLL.checkResults, { checkId: c, ranges });
      const key = (x: RollupCell) => `${x.span}:${x.start}`;
      expect(
        many.filter((x) => x.checkId === c).map(({ checkId: _, ...x }) => x).sort((a, b) => key(a).localeCompare(key(b))),
        `${name} ${c}`,
      ).toEqual([...one].sort((a, b) => key(a).localeCompare(key(b))));
    }
    expect(many.some((x) => x.checkId === 'none' || x.checkId === 'c2'), name).toBe(false);
    // Without histograms: the same counts, no buckets.
    const counts = await store.rollupsAsync('dev', RUN_COLL.checkResults, { checkId: 'c1', checkIds: ['c1'], ranges, histograms: false });
    expect(counts.length, name).toBe(many.filter((x) => x.checkId === 'c1').length);
    expect(counts.every((x) => x.tally.hist.size === 0 && x.tally.runs > 0), name).toBe(true);

    // Cells read again (their histograms held in memory on a database) still follow what changes:
    // a late result in a closed hour, a result deleted, one whose response time changed.
    const live = new Map(recs.map((r) => [r.id as string, r]));
    expectCells(await cellsOf(store, 'c1'), reference(live.values(), 'c1'), `${name} first read`);
    expectCells(await cellsOf(store, 'c1'), reference(live.values(), 'c1'), `${name} read again`);
    const firstC1 = recs.find((r) => r.checkId === 'c1' && r.resultType === 'FINAL' && typeof r.responseTime === 'number')!;
    const secondC1 = recs.find((r) => r.checkId === 'c1' && r.resultType === 'FINAL' && typeof r.responseTime === 'number' && r !== firstC1)!;
    const late = { ...firstC1, id: 'late', startedAt: new Date(T0 + 3 * HOUR_MS + 60_000).toISOString(), responseTime: 4321 };
    const changed = { ...secondC1, responseTime: (secondC1.responseTime as number) + 17 };
    const w = store.begin('dev');
    w.put(RUN_COLL.checkResults, 'late', late);
    w.delete(RUN_COLL.checkResults, firstC1.id as string);
    w.put(RUN_COLL.checkResults, secondC1.id as string, changed);
    w.commit();
    live.set('late', late);
    live.delete(firstC1.id as string);
    live.set(secondC1.id as string, changed);
    expectCells(await cellsOf(store, 'c1'), reference(live.values(), 'c1'), `${name} after a late result, a deletion and a change`, false);
  });
});

describe('the migration fills the cells of the results already stored', () => {
  const recs = results(1500, 8);
  const row = (r: Record<string, unknown>) => ['dev', RUN_COLL.checkResults, r.id, r.checkId, Date.parse(r.startedAt as string), JSON.stringify(r), ...figureValues(RESULTS_INDEX, r)];
  const columns = `account, kind, id, check_id, at, data, ${FIGURE_COLUMNS.join(', ')}`;

  it('on SQLite', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-rollup-')), 'state.db');
    const db = new Database(file);
    // The version before the migration that creates the cells (later ones run on top of it at open).
    const before = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE rollups'));
    expect(before).toBeGreaterThan(0);
    for (const m of MIGRATIONS.slice(0, before)) db.exec(m);
    db.exec(`PRAGMA user_version = ${before}`);
    const put = db.prepare(`INSERT INTO records (${columns}) VALUES (${Array(6 + FIGURE_COLUMNS.length).fill('?').join(', ')})`);
    db.exec('BEGIN');
    for (const r of recs) put.run(...row(r));
    db.exec('COMMIT');
    db.close();
    const store = Store.open(file, RUN_INDEX);
    stores.push(store);
    for (const c of ['c1', 'c2']) expectCells(await cellsOf(store, c), reference(recs, c), `sqlite ${c}`);
  });

  it('on PostgreSQL', async () => {
    const url = pgDatabase();
    await pgCreateDatabase(url);
    const before = PG_MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE rollups'));
    expect(before).toBeGreaterThan(0);
    await pgQuery(url, `${PG_MIGRATIONS.slice(0, before).join(';\n')}; CREATE TABLE mac_schema (version integer NOT NULL); INSERT INTO mac_schema VALUES (${before})`);
    const n = 6 + FIGURE_COLUMNS.length;
    for (let i = 0; i < recs.length; i += 500) {
      const chunk = recs.slice(i, i + 500);
      await pgQuery(url, `INSERT INTO records (${columns}) VALUES ${chunk.map((_, k) => `(${Array.from({ length: n }, (_c, j) => `$${k * n + j + 1}`).join(', ')})`).join(', ')}`, chunk.flatMap(row));
    }
    const store = Store.open(url, RUN_INDEX);
    stores.push(store);
    for (const c of ['c1', 'c2']) expectCells(await cellsOf(store, c), reference(recs, c), `postgres ${c}`);
  });
});
