import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { aggregateSql } from '../../../src/server/store/aggregate.js';
import { MIGRATIONS, SCHEMA_VERSION, SQLITE_AGGREGATE, SqliteBackend } from '../../../src/server/store/sqlite.js';
import { latestResults } from '../../../src/server/rundata/figures.js';

// The index by check and the reads that use it, on a database upgraded from the schema before it:
// a check's newest results come out of records_check in order (no temporary B-tree for rows of
// equal time), and a check's figures still come from the covering records_figures, whether the
// database holds statistics (ANALYZE) or not.

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1);
const CHECKS = 10;
const ROWS = 20_000;
const KIND = RUN_COLL.checkResults;
const SPEC = RUN_INDEX[KIND];

/** The version just before the migration that gave records_check its present columns. */
const BEFORE = MIGRATIONS.findIndex((m) => m.includes('CREATE INDEX records_check ON records (account, kind, check_id, at) WHERE'));

const closers: Array<() => void> = [];
afterAll(() => closers.forEach((c) => c()));

/**
 * A database at version BEFORE with ROWS results of CHECKS checks (every second pair of rows of a
 * check at the same millisecond, the later one created last), ANALYZEd or not; then opened by
 * the store, which upgrades it.
 */
function upgraded(analyze: boolean): { file: string; store: Store } {
  const file = join(mkdtempSync(join(tmpdir(), 'mac-sqlite-index-')), 'state.db');
  const db = new Database(file);
  for (const m of MIGRATIONS.slice(0, BEFORE)) db.exec(m);
  db.exec(`PRAGMA user_version = ${BEFORE}`);
  // Whole numbers written into the statement (a bound JavaScript number is a REAL: n / 10 would not round down).
  db.prepare(
    `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ?1 - 1)
     INSERT INTO records (account, kind, id, check_id, at, data, n0, n2, n13, n14, k0)
     SELECT 'dev', ?2, 'r' || n, 'c' || (n % ${CHECKS}), ${T0} + ((n / ${CHECKS}) / 2) * 60000,
            json_object('id', 'r' || n, 'checkId', 'c' || (n % ${CHECKS}), 'resultType', 'FINAL', 'responseTime', 50 + n % 400, 'hasFailures', json('false'), 'hasErrors', json('false'), 'isDegraded', json('false')),
            0, 50 + n % 400, 0, 0, '"FINAL"'
     FROM seq`,
  ).run(ROWS, KIND);
  if (analyze) db.exec('ANALYZE');
  db.close();
  const store = Store.open(file, RUN_INDEX);
  closers.push(() => store.close());
  return { file, store };
}

/** EXPLAIN QUERY PLAN of a statement, its steps joined. */
function planOf(file: string, sql: string, args: unknown[]): string {
  const db = new Database(file);
  try {
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).raw().all(...args) as unknown[][]).map((r) => r[3]).join(' / ');
  } finally {
    db.close();
  }
}

describe('the SQLite index by check, after the upgrade', () => {
  it('names the migration it tests', () => {
    expect(BEFORE).toBeGreaterThan(0);
    expect(BEFORE).toBeLessThan(SCHEMA_VERSION);
  });

  for (const analyze of [true, false]) {
    it(`${analyze ? 'with' : 'without'} statistics: the newest results read in order from records_check, figures from records_figures`, async () => {
      const { file, store } = upgraded(analyze);
      const db = new Database(file);
      try {
        expect((db.prepare("SELECT name FROM pragma_index_info('records_check') ORDER BY seqno").raw().all() as unknown[][]).map((r) => r[0])).toEqual(['account', 'kind', 'check_id', 'at']);
        const stats = Number((db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").raw().get() as unknown[])[0]);
        if (analyze) expect(db.prepare("SELECT stat FROM sqlite_stat1 WHERE idx = 'records_check'").raw().get()).toBeDefined();
        // A database without statistics is left without (the planner's defaults choose well).
        else expect(stats).toBe(0);
      } finally {
        db.close();
      }
      const backend = SqliteBackend.open(file, RUN_INDEX);
      closers.push(() => backend.close());
      const newest = backend['queryPlan']('dev', KIND, { checkId: 'c3', where: [{ path: 'resultType', in: ['FINAL'] }], order: 'time-desc', limit: 1, fields: ['id'] });
      const newestPlan = planOf(file, newest.sql, newest.args);
      expect(newestPlan).toContain('records_check');
      expect(newestPlan).not.toContain('TEMP B-TREE');
      const window = { checkId: 'c3', fromMs: T0 + 10 * HOUR, toMs: T0 + 34 * HOUR, bucketMs: HOUR, filters: [{ path: 'resultType', in: ['FINAL'] }], values: [{ path: 'responseTime', percentiles: [] }] };
      const agg = aggregateSql(SQLITE_AGGREGATE, SPEC, window, { account: 'dev', kind: KIND, checkId: 'c3' });
      expect(planOf(file, agg.sql, agg.args)).toContain('COVERING INDEX records_figures');

      // Of two results at the same millisecond, the one created last is the newest.
      const last = ROWS - CHECKS + 3;
      const [top, second] = await latestResults(store, 'dev', 'c3', 2, ['id', 'checkId']);
      expect(top.id).toBe(`r${last}`);
      expect(second.id).toBe(`r${last - CHECKS}`);
    });
  }
});
