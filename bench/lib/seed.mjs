// Seeding of stored results for the benches at scale (pages.mjs, pg-scale.mjs): copies of one real
// result recorded by the service, written by one SQL statement per database (ids, checks, times
// and response times changed in SQL), never through the API.
import Database from 'libsql';
import pg from 'pg';

const DAY = 86_400_000;
/** The figure columns a copy takes (aggregate.ts FIGURE_COLUMNS). */
export const FIGURES = [...Array.from({ length: 15 }, (_, i) => `n${i}`), 'k0', 'k1', 'k2'];

/**
 * What to write: `total` copies of the one stored result. `share: 'mixed'` (default): row n is
 * at now - n * 30 days / total, of check `ids[n % ids.length]` for 3 rows in 4 and of
 * `other-(n % 100)` for the rest. `share: 'one'`: the first `one` rows are of `ids[0]`, the rest
 * of `other-(n % 100)`, and row n is at now - (n % one) * 30 days / one. Response time
 * 50 + n % 400 ms; with `failures` (default), one row in 50 failed.
 */
function plan({ total, ids, share = 'mixed', one = 0, failures = true }) {
  return { total, ids, share, one, failures };
}

/** Seeds a SQLite database file; `{count, seedS}`. */
export function seedSqlite(file, { startedAt, now, ...opts }) {
  const p = plan(opts);
  const db = new Database(file);
  db.exec('PRAGMA synchronous = OFF');
  const t0 = performance.now();
  const check =
    p.share === 'one'
      ? `CASE WHEN n < ${p.one} THEN json_extract(?3, '$[0]') ELSE 'other-' || (n % 100) END`
      : `CASE WHEN n % 4 < 3 THEN json_extract(?3, '$[' || (n % json_array_length(?3)) || ']') ELSE 'other-' || (n % 100) END`;
  const time = p.share === 'one' ? `?4 - ((n % ${p.one}) * (30 * ${DAY} / ${p.one}))` : `?4 - (n * (30 * ${DAY} / ?1))`;
  const failed = p.failures ? 'n % 50 = 0' : '0';
  const sql = `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ?1 - 1),
    copies AS (SELECT n, ${check} AS c, ${time} AS t FROM seq)
    INSERT INTO records (account, kind, id, check_id, at, data, ${FIGURES.join(', ')})
    SELECT r.account, r.kind, r.id || '-' || n, c, t,
           replace(replace(replace(replace(r.data, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', t / 1000.0, 'unixepoch')), '"responseTime":100', '"responseTime":' || (50 + n % 400)), r.check_id, c), '"hasFailures":false', CASE WHEN ${failed} THEN '"hasFailures":true' ELSE '"hasFailures":false' END),
           CASE WHEN ${failed} THEN 1 ELSE 0 END, r.n1, 50 + n % 400, r.n3, r.n4, r.n5, r.n6, r.n7, r.n8, r.n9, r.n10, r.n11, r.n12, r.n13, r.n14, r.k0, r.k1, r.k2
    FROM records r, copies
    WHERE r.kind = 'checkResults'`;
  db.prepare(sql).run(p.total, startedAt, JSON.stringify(p.ids), now - 60_000);
  db.exec('ANALYZE');
  const count = db.prepare("SELECT count(*) FROM records WHERE kind = 'checkResults'").raw().get()[0];
  db.close();
  return { count, seedS: (performance.now() - t0) / 1000 };
}

/** Seeds a PostgreSQL database (then VACUUM ANALYZE); `{count, seedS}`. */
export async function seedPostgres(url, { startedAt, now, ...opts }) {
  const p = plan(opts);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const t0 = performance.now();
    const check =
      p.share === 'one'
        ? `CASE WHEN n < ${p.one} THEN ($3::text[])[1] ELSE 'other-' || (n % 100) END`
        : `CASE WHEN n % 4 < 3 THEN ($3::text[])[1 + n % cardinality($3::text[])] ELSE 'other-' || (n % 100) END`;
    const time = p.share === 'one' ? `($4::bigint - ((n % ${p.one}) * (30 * ${DAY}::bigint / ${p.one})))::bigint` : `($4::bigint - (n::bigint * (30 * ${DAY}::bigint / $1)))::bigint`;
    const failed = p.failures ? 'n % 50 = 0' : 'false';
    await c.query(
      `INSERT INTO records (account, kind, id, check_id, at, data, ${FIGURES.join(', ')})
       SELECT r.account, r.kind, r.id || '-' || n, cc.c, tt.t,
              replace(replace(replace(replace(r.data, $2, to_char(to_timestamp(tt.t / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), '"responseTime":100', '"responseTime":' || (50 + n % 400)), r.check_id, cc.c), '"hasFailures":false', CASE WHEN ${failed} THEN '"hasFailures":true' ELSE '"hasFailures":false' END),
              CASE WHEN ${failed} THEN 1 ELSE 0 END, r.n1, 50 + n % 400, r.n3, r.n4, r.n5, r.n6, r.n7, r.n8, r.n9, r.n10, r.n11, r.n12, r.n13, r.n14, r.k0, r.k1, r.k2
       FROM records r, generate_series(0, $1 - 1) AS n,
            LATERAL (SELECT ${check} AS c) cc,
            LATERAL (SELECT ${time} AS t) tt
       WHERE r.kind = 'checkResults'`,
      [p.total, startedAt, p.ids, now - 60_000],
    );
    await c.query('VACUUM ANALYZE records');
    const count = Number((await c.query("SELECT count(*) AS n FROM records WHERE kind = 'checkResults'")).rows[0].n);
    return { count, seedS: (performance.now() - t0) / 1000 };
  } finally {
    await c.end();
  }
}
