// Does an index keyed by check and time level off under a sliding retention window on PostgreSQL?
// Two twin tables: each round inserts time-ordered rows for 200 checks, deletes the round that left
// the window (1% of the rows), and runs VACUUM; one table has the default index cleanup (AUTO, which
// may skip the indexes when few pages hold dead rows), the other `vacuum_index_cleanup = on`.
// Prints the table's and the index's size every 50 rounds. `node bench/pg-index-window.mjs`
// (starts a PostgreSQL of its own; about a minute).
import pg from 'pg';
import { startPostgres } from '../scripts/lib/embedded-postgres.mjs';
const server = await startPostgres({ fsync: false });
const c = new pg.Client({ connectionString: server.url('postgres') });
await c.connect();
try {
  for (const [t, opt] of [['auto_t', ''], ['on_t', 'WITH (vacuum_index_cleanup = on, autovacuum_enabled = off)']]) {
    await c.query(`CREATE TABLE ${t} (id bigserial PRIMARY KEY, check_id text, at bigint, data text) ${opt || 'WITH (autovacuum_enabled = off)'}`);
    await c.query(`CREATE INDEX ${t}_check ON ${t} (check_id, at) INCLUDE (id)`);
  }
  const CHECKS = 200, PER_ROUND = 3, WINDOW = 100;
  const size = async (t) => (await c.query(`SELECT pg_relation_size('${t}')/1048576.0 AS heap, pg_relation_size('${t}_check')/1048576.0 AS idx`)).rows[0];
  for (let round = 0; round < 400; round++) {
    for (const t of ['auto_t', 'on_t']) {
      await c.query(`INSERT INTO ${t} (check_id, at, data) SELECT 'c' || (g % ${CHECKS}), ${round} * 1000 + g / ${CHECKS}, repeat('x', 300) FROM generate_series(0, ${CHECKS * PER_ROUND - 1}) g`);
      if (round >= WINDOW) await c.query(`DELETE FROM ${t} WHERE at < ${(round - WINDOW + 1) * 1000}`);
      await c.query(`VACUUM ${t}`);
    }
    if (round % 50 === 49) {
      const a = await size('auto_t'), o = await size('on_t');
      console.log(`round ${round + 1}: AUTO heap ${(+a.heap).toFixed(1)} MB index ${(+a.idx).toFixed(1)} MB | ON heap ${(+o.heap).toFixed(1)} MB index ${(+o.idx).toFixed(1)} MB`);
    }
  }
} finally {
  await c.end();
  await server.stop();
}
