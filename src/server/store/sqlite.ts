import { createRequire } from 'node:module';
import type Database from 'libsql';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { takeAnswersUpTo } from './answers.js';
import { workerModule } from '../../runner/worker-module.js';
import type { WriterAnswer, WriterRequest, WriterRow } from './sqlite-writer.js';
import { QUEUE_KINDS, checkOf, revisionOf, setPath, timeOf, type Backend, type IndexedKinds, type LeasedRecord, type RecordQuery, type StoreCommit, type StoredRecord } from './backend.js';
import { MemoryBackend } from './memory.js';
import { FIGURE_COLUMNS, aggregateRows, figureConditions, aggregateSql, figureValues, type AggregateDialect, type AggregateQuery, type AggregateRow } from './aggregate.js';
import { StaleWrite, StateError } from './errors.js';
import { AsyncReader } from './reader.js';
import { HISTOGRAM_THRESHOLDS, ROLLUP_KIND, ROLLUP_SPANS, cellOfRow, rollupSelect, type RollupCell, type RollupQuery } from './rollup.js';

type Db = InstanceType<typeof Database>;

/**
 * libsql (a native module) is loaded when a SQLite database is opened: a service on the memory
 * store, and every command of the CLI that reaches this module, do without it.
 */
let libsql: typeof Database | undefined;
function openDatabase(path: string): Db {
  libsql ??= createRequire(import.meta.url)('libsql') as typeof Database;
  return new libsql(path);
}
type Row = unknown[];

/**
 * Versioned migrations: entry i upgrades schema version i to i+1 (PRAGMA user_version). Append
 * new entries; never edit a released one.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE records (
     seq INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     kind TEXT NOT NULL,
     id TEXT NOT NULL,
     check_id TEXT,
     at INTEGER,
     data TEXT NOT NULL,
     summary TEXT
   );
   CREATE UNIQUE INDEX records_key ON records (account, kind, id);
   CREATE INDEX records_order ON records (account, kind, seq);
   -- Covering for summary reads: a check's run data by time is read from this index alone.
   CREATE INDEX records_check ON records (account, kind, check_id, at, id, summary) WHERE check_id IS NOT NULL;
   CREATE INDEX records_time ON records (kind, at) WHERE at IS NOT NULL;
   CREATE INDEX records_config ON records (seq) WHERE at IS NULL;
   CREATE TABLE counters (kind TEXT PRIMARY KEY, value INTEGER NOT NULL);`,
  // Figures (aggregate.ts): typed columns reduced by analytics, filled from the summary of the
  // results already stored (its order: analytics.ts SUMMARY_V1_FIELDS), which is no longer kept.
  `ALTER TABLE records ADD COLUMN n0 REAL; ALTER TABLE records ADD COLUMN n1 REAL; ALTER TABLE records ADD COLUMN n2 REAL;
   ALTER TABLE records ADD COLUMN n3 REAL; ALTER TABLE records ADD COLUMN n4 REAL; ALTER TABLE records ADD COLUMN n5 REAL;
   ALTER TABLE records ADD COLUMN n6 REAL; ALTER TABLE records ADD COLUMN n7 REAL;
   ALTER TABLE records ADD COLUMN k0 TEXT; ALTER TABLE records ADD COLUMN k1 TEXT; ALTER TABLE records ADD COLUMN k2 TEXT;
   UPDATE records SET
         n0 = CASE json_type(summary, '$[2]') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[2]' WHEN 'real' THEN summary ->> '$[2]' END,
         n1 = CASE json_type(summary, '$[3]') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[3]' WHEN 'real' THEN summary ->> '$[3]' END,
         n2 = CASE json_type(summary, '$[4]') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[4]' WHEN 'real' THEN summary ->> '$[4]' END,
         n3 = CASE json_type(summary, '$[7].wait') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[7].wait' WHEN 'real' THEN summary ->> '$[7].wait' END,
         n4 = CASE json_type(summary, '$[7].dns') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[7].dns' WHEN 'real' THEN summary ->> '$[7].dns' END,
         n5 = CASE json_type(summary, '$[7].tcp') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[7].tcp' WHEN 'real' THEN summary ->> '$[7].tcp' END,
         n6 = CASE json_type(summary, '$[7].firstByte') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[7].firstByte' WHEN 'real' THEN summary ->> '$[7].firstByte' END,
         n7 = CASE json_type(summary, '$[7].download') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN summary ->> '$[7].download' WHEN 'real' THEN summary ->> '$[7].download' END,
         k0 = coalesce(summary -> '$[0]', 'null'),
         k1 = coalesce(summary -> '$[5]', 'null'),
         k2 = coalesce(summary -> '$[6]', 'null')
     WHERE kind = 'checkResults' AND summary IS NOT NULL;
   -- Covering for reductions: a check's figures by time are read from this index alone.
   CREATE INDEX records_figures ON records (account, kind, check_id, at, n0, n1, n2, n3, n4, n5, n6, n7, k0, k1, k2) WHERE check_id IS NOT NULL;
   -- The summary is no longer written (nor read): the index by check stops carrying it.
   DROP INDEX records_check;
   CREATE INDEX records_check ON records (account, kind, check_id, at, id) WHERE check_id IS NOT NULL;`,
  // ICMP figures (analytics.ts ICMP_FIGURES): packet loss and min, average, max and standard
  // deviation of latency, filled from the JSON document of the ICMP results already stored (a document that
  // is not a JSON object of at most 256 KiB gives none, as when written).
  `ALTER TABLE records ADD COLUMN n8 REAL; ALTER TABLE records ADD COLUMN n9 REAL;
   ALTER TABLE records ADD COLUMN n10 REAL; ALTER TABLE records ADD COLUMN n11 REAL; ALTER TABLE records ADD COLUMN n12 REAL;
   UPDATE records SET
         n8 = CASE json_type(data ->> '$.apiCheckResult.response.body', '$.packetLoss') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.packetLoss' WHEN 'real' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.packetLoss' END,
         n9 = CASE json_type(data ->> '$.apiCheckResult.response.body', '$.latency.min') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.min' WHEN 'real' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.min' END,
         n10 = CASE json_type(data ->> '$.apiCheckResult.response.body', '$.latency.avg') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.avg' WHEN 'real' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.avg' END,
         n11 = CASE json_type(data ->> '$.apiCheckResult.response.body', '$.latency.max') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.max' WHEN 'real' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.max' END,
         n12 = CASE json_type(data ->> '$.apiCheckResult.response.body', '$.latency.stdDev') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.stdDev' WHEN 'real' THEN (data ->> '$.apiCheckResult.response.body') ->> '$.latency.stdDev' END
     WHERE kind = 'checkResults' AND data LIKE '%"method":"ICMP"%'
       AND data ->> '$.apiCheckResult.request.method' = 'ICMP'
       AND json_type(data, '$.apiCheckResult.response.body') = 'text'
       AND length(data ->> '$.apiCheckResult.response.body') <= 262144
       AND json_valid(data ->> '$.apiCheckResult.response.body')
       AND json_type(data ->> '$.apiCheckResult.response.body') = 'object';
   DROP INDEX records_figures;
   CREATE INDEX records_figures ON records (account, kind, check_id, at, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, k0, k1, k2) WHERE check_id IS NOT NULL;`,
  // Figures n13 (hasErrors) and n14 (isDegraded) of results: the public pages reduce a check's
  // failures (a failed assertion or an error of the run) and degraded runs in the database.
  `ALTER TABLE records ADD COLUMN n13 REAL; ALTER TABLE records ADD COLUMN n14 REAL;
   UPDATE records SET
         n13 = CASE json_type(data, '$.hasErrors') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN data ->> '$.hasErrors' WHEN 'real' THEN data ->> '$.hasErrors' END,
         n14 = CASE json_type(data, '$.isDegraded') WHEN 'true' THEN 1 WHEN 'false' THEN 0 WHEN 'integer' THEN data ->> '$.isDegraded' WHEN 'real' THEN data ->> '$.isDegraded' END
     WHERE kind = 'checkResults' AND json_valid(data);
   DROP INDEX records_figures;
   CREATE INDEX records_figures ON records (account, kind, check_id, at, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14, k0, k1, k2) WHERE check_id IS NOT NULL;`,
  // The queue of private locations by location and time (backend.ts QUEUE_KINDS): a claim reads
  // the rows it takes (the index ends with the rowid, seq: ORDER BY at, seq needs no sort).
  `CREATE INDEX records_queue ON records (check_id, at) WHERE kind = 'privateLocationRuns';`,
  // Results reduced per check and hour and per check and day (rollup.ts), kept by triggers in the
  // transaction of every write of a result, and filled here from the results already stored.
  sqliteRollupMigration(),
  // A check's run data newest first (a page's state of each check, its recent runs: ORDER BY
  // at DESC, seq DESC LIMIT n): the index by check ends with the time, then the rowid (seq, the
  // last column of every index), so the rows come out of it in that order and the read stops
  // after n of them. Ending with id, rows of equal time had to be sorted again by seq in a
  // temporary B-tree, every row of the check's range read first. Nothing reads id from it.
  `DROP INDEX records_check;
   CREATE INDEX records_check ON records (account, kind, check_id, at) WHERE check_id IS NOT NULL;`,
];

/** The schema version this code creates and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Records in one SQLite database (WAL, synchronous=FULL: a commit is on disk when it returns).
 * Configuration (every kind not indexed) is also held in a memory cache loaded at open, since it is
 * small and read on every request; indexed kinds (run data) are only in the database and read by
 * indexed queries, so memory does not grow with the history.
 */
export class SqliteBackend implements Backend {
  private readonly cache: MemoryBackend;
  private readonly stmts;
  private leaseStmts: { due: Database.Statement<unknown[]>; dueOf: Database.Statement<unknown[]>; take: Database.Statement<unknown[]>; queues: Map<string, Database.Statement<unknown[]>> } | undefined;

  /** The asynchronous reads: a thread of its own with its own connection (started at the first). */
  private readonly reader: AsyncReader | undefined;
  /** The group commit's writes: a thread of its own with its own connection (started at the first). */
  private writer: SqliteWriter | undefined;
  /** A read of this connection does not see a batch sent to the writer until it is answered (Backend.readsSeeSent). */
  readonly readsSeeSent = false;

  private constructor(
    private readonly db: Db,
    private readonly indexed: IndexedKinds,
    private readonly path: string,
  ) {
    this.cache = new MemoryBackend();
    this.reader = path === ':memory:' || path === '' ? undefined : new AsyncReader({ driver: 'sqlite', target: path });
    const s = (sql: string) => db.prepare(sql);
    this.stmts = {
      get: s('SELECT data FROM records WHERE account = ? AND kind = ? AND id = ?').raw(),
      entries: s('SELECT id, data FROM records WHERE account = ? AND kind = ? ORDER BY seq').raw(),
      count: s('SELECT count(*) FROM records WHERE account = ? AND kind = ?').raw(),
      everywhere: s('SELECT account, data FROM records WHERE kind = ? ORDER BY seq').raw(),
      put: s(
        `INSERT INTO records (account, kind, id, check_id, at, data, ${FIGURE_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?${', ?'.repeat(FIGURE_COLUMNS.length)})
         ON CONFLICT (account, kind, id) DO UPDATE SET check_id = excluded.check_id, at = excluded.at, data = excluded.data, summary = NULL${FIGURE_COLUMNS.map((c) => `, ${c} = excluded.${c}`).join('')}`,
      ),
      del: s('DELETE FROM records WHERE account = ? AND kind = ? AND id = ?'),
      delCheck: s('DELETE FROM records WHERE account = ? AND kind = ? AND check_id = ?'),
      counter: s('INSERT INTO counters (kind, value) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET value = max(value, excluded.value)'),
      expire: s('DELETE FROM records WHERE seq IN (SELECT seq FROM records WHERE kind = ? AND at < ? LIMIT ?)'),
    };
    // Only configuration is loaded: the run data stays on disk (restart time does not grow with it).
    const runKinds = Object.keys(indexed);
    // Run data always has a time (`at`); the partial index records_config finds the rest.
    const loadSql = `SELECT account, kind, id, data FROM records WHERE at IS NULL AND kind NOT IN (${runKinds.map(() => '?').join(', ') || "''"}) ORDER BY seq`;
    for (const [account, kind, id, data] of s(loadSql).raw().iterate(...runKinds) as Iterable<Row>) {
      this.cache.commit({ a: account as string, o: [['p', kind as string, id as string, JSON.parse(data as string)]] });
    }
    const counters = Object.fromEntries(s('SELECT kind, value FROM counters').raw().all() as Array<[string, number]>);
    this.cache.commit({ c: counters });
  }

  /**
   * Opens (creating if needed) the database at `path` and migrates it to SCHEMA_VERSION.
   * Refuses a schema newer than this code and a SQLite database mac serve did not create.
   */
  static open(path: string, indexed: IndexedKinds): SqliteBackend {
    let db: Db;
    try {
      db = openDatabase(path);
    } catch (err) {
      throw new StateError(`${path}: cannot open the database: ${(err as Error).message}`, 'check that the directory exists and is writable', { cause: err });
    }
    try {
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = FULL');
      migrate(db, path);
      return new SqliteBackend(db, indexed, path);
    } catch (err) {
      db.close();
      if (err instanceof StateError) throw err;
      throw new StateError(`${path}: cannot open the database: ${(err as Error).message}`, undefined, { cause: err });
    }
  }

  get(account: string, kind: string, id: string): StoredRecord | undefined {
    if (!this.indexed[kind]) return this.cache.get(account, kind, id);
    const row = this.stmts.get.get(account, kind, id) as Row | undefined;
    return row ? (JSON.parse(row[0] as string) as StoredRecord) : undefined;
  }

  entries(account: string, kind: string): Array<[string, StoredRecord]> {
    if (!this.indexed[kind]) return this.cache.entries(account, kind);
    return (this.stmts.entries.all(account, kind) as Row[]).map((r) => [r[0] as string, JSON.parse(r[1] as string) as StoredRecord]);
  }

  count(account: string, kind: string): number {
    if (!this.indexed[kind]) return this.cache.count(account, kind);
    return Number((this.stmts.count.get(account, kind) as Row)[0]);
  }

  *everywhere(kind: string): Iterable<{ account: string; record: StoredRecord }> {
    if (!this.indexed[kind]) {
      yield* this.cache.everywhere(kind);
      return;
    }
    for (const r of this.stmts.everywhere.all(kind) as Row[]) yield { account: r[0] as string, record: JSON.parse(r[1] as string) as StoredRecord };
  }

  accountIds(): string[] {
    return this.cache.accountIds();
  }

  counter(kind: string): number {
    return this.cache.counter(kind);
  }

  query(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    if (!this.indexed[kind]) return this.cache.query(account, kind, q);
    const { sql, args, finish } = this.queryPlan(account, kind, q);
    return finish(this.db.prepare(sql).raw().all(...args) as Row[]);
  }

  async queryAsync(account: string, kind: string, q: RecordQuery): Promise<Array<[string, StoredRecord]>> {
    if (!this.indexed[kind] || !this.reader) return this.query(account, kind, q);
    const { sql, args, finish } = this.queryPlan(account, kind, q);
    return finish(await this.reader.run<Row[]>(sql, args, { kind: 'rows' }));
  }

  warmReads(): Promise<void> {
    return this.reader ? this.reader.warm() : Promise.resolve();
  }

  async aggregateAsync(account: string, kind: string, q: AggregateQuery): Promise<AggregateRow[]> {
    if (!this.reader) return this.aggregate(account, kind, q);
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    const { sql, args } = aggregateSql(SQLITE_AGGREGATE, spec, q, { account, kind, checkId: q.checkId, checkIds: q.checkIds });
    return this.reader.run<AggregateRow[]>(sql, args, { kind: 'aggregate', q });
  }

  rollups(account: string, kind: string, q: RollupQuery): RollupCell[] {
    if (q.ranges.length === 0) return [];
    const { sql, args } = sqliteRollupSql(account, kind, q);
    return (this.db.prepare(sql).raw().all(...args) as Row[]).map(cellOfRow);
  }

  async rollupsAsync(account: string, kind: string, q: RollupQuery): Promise<RollupCell[]> {
    if (!this.reader || q.ranges.length === 0) return this.rollups(account, kind, q);
    const { sql, args } = sqliteRollupSql(account, kind, q);
    // The histograms are parsed in the reader thread too.
    return this.reader.run<RollupCell[]>(sql, args, { kind: 'cells' });
  }

  /** The statement of a query of run data, and how its rows become records. */
  private queryPlan(account: string, kind: string, q: RecordQuery): { sql: string; args: unknown[]; finish: (rows: Row[]) => Array<[string, StoredRecord]> } {
    const { where, args } = this.where(account, kind, q);
    const order = q.order === 'time-desc' ? 'at DESC, seq DESC' : q.order === 'created-desc' ? 'seq DESC' : 'seq';
    // Only the wanted fields leave the database (one JSON array of their values per row).
    const fields = q.fields;
    const what = fields ? `json_array(${fields.map((f) => `data -> ${sqlString(`$.${f}`)}`).join(', ')})` : 'data';
    let sql = `SELECT id, ${what} FROM records WHERE ${where} ORDER BY ${order}`;
    if (q.limit !== undefined || q.offset !== undefined) {
      sql += ' LIMIT ? OFFSET ?';
      args.push(q.limit ?? -1, q.offset ?? 0);
    }
    const finish = (rows: Row[]): Array<[string, StoredRecord]> => {
      if (!fields) return rows.map((r) => [r[0] as string, JSON.parse(r[1] as string) as StoredRecord]);
      return rows.map((r) => {
        const values = JSON.parse(r[1] as string) as unknown[];
        const rec: StoredRecord = {};
        fields.forEach((f, i) => {
          if (values[i] !== null) setPath(rec, f, values[i]);
        });
        return [r[0] as string, rec];
      });
    };
    return { sql, args, finish };
  }

  countQuery(account: string, kind: string, q: RecordQuery): number {
    if (!this.indexed[kind]) return this.cache.countQuery(account, kind, q);
    const { where, args } = this.where(account, kind, q);
    return Number((this.db.prepare(`SELECT count(*) FROM records WHERE ${where}`).raw().get(...args) as Row)[0]);
  }

  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    const { sql, args } = aggregateSql(SQLITE_AGGREGATE, spec, q, { account, kind, checkId: q.checkId, checkIds: q.checkIds });
    return aggregateRows(this.db.prepare(sql).raw().all(...args) as Row[], q);
  }

  commit(entry: StoreCommit): void {
    this.commitMany([entry]);
  }

  /** Several commits in one SQLite transaction (one fsync); once durable, the cache follows each (configuration kinds and counters only). */
  commitMany(entries: readonly StoreCommit[]): void {
    this.db.transaction(() => {
      for (const e of entries) this.write(e);
    }).immediate();
    // The expectations held in the database (write): the cache, which holds no run data, does not check them again.
    for (const { e: _checked, ...entry } of entries) this.cache.commit({ ...entry, o: (entry.o ?? []).filter((op) => !this.indexed[op[1]]) });
  }

  /**
   * `commitMany` of run data on the writer thread (one transaction there, `done` when it is
   * durable or failed). The rows' values (JSON text, figures) are computed here; the thread only
   * runs the statements. Anything else than puts and deletes of run data and counters (a
   * compare-and-set, a delete by check, configuration), or a database without a file, is written
   * here and now, as `commitMany`.
   */
  commitManyAsync(entries: readonly StoreCommit[], done: (error?: unknown) => void): void {
    const plain = entries.every((e) => !e.e?.length && (e.o ?? []).every((op) => op[0] !== 'x' && this.indexed[op[1]] !== undefined));
    // A writer thread not ready yet (starting): written here and now, not sent to wait for it.
    const started = plain ? this.startWriter() : undefined;
    const writer = started?.ready ? started : undefined;
    if (!writer) {
      try {
        this.commitMany(entries);
      } catch (err) {
        return done(err);
      }
      return done();
    }
    const rows: WriterRow[] = [];
    for (const e of entries) {
      for (const [kind, value] of Object.entries(e.c ?? {})) rows.push(['counter', [kind, value]]);
      if (e.a === undefined) continue;
      for (const op of e.o ?? []) {
        if (op[0] === 'p') {
          const rec = op[3] as StoredRecord;
          const spec = this.indexed[op[1]];
          rows.push(['put', [e.a, op[1], op[2], spec ? checkOf(rec, spec.check) : null, spec ? timeOf(rec, spec.time) : null, JSON.stringify(rec), ...figureValues(spec, rec)]]);
        } else rows.push(['del', [e.a, op[1], op[2]]]);
      }
    }
    writer.send(rows, (err) => {
      if (err) return done(err);
      // The counters of the cache follow once durable, as after commitMany.
      for (const entry of entries) if (entry.c) this.cache.commit({ c: entry.c });
      done();
    });
  }

  /** Blocks until every batch sent to the writer thread is answered. */
  settleSent(): void {
    this.writer?.settle();
  }

  /**
   * Starts the writer thread (a database with a file) and resolves once it is ready for batches;
   * until then the group commit is written on this connection.
   */
  writerStarted(): Promise<void> {
    return this.startWriter()?.started ?? Promise.resolve();
  }

  private startWriter(): SqliteWriter | undefined {
    if (this.writer && !this.writer.broken) return this.writer;
    if (this.path === ':memory:' || this.path === '' || !this.db.open) return undefined;
    const url = workerModule('server/store/sqlite-writer.js');
    if (!url) return undefined;
    this.writer?.close();
    this.writer = new SqliteWriter(url, this.path, WRITER_SQL);
    return this.writer;
  }

  /**
   * Writes many commits in one transaction (the journal import; the cache is not updated), then
   * folds the WAL into the main file so that the file alone holds the database (it is renamed next).
   */
  importCommits(entries: readonly StoreCommit[]): void {
    this.db.transaction(() => {
      for (const e of entries) this.write(e);
    }).immediate();
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    this.db.exec('PRAGMA journal_mode = DELETE');
  }

  private write(entry: StoreCommit): void {
    // Compare-and-set expectations, read from the database inside the write transaction (another
    // process on the file cannot write between this read and the commit: BEGIN IMMEDIATE).
    (entry.e ?? []).forEach(([kind, id, rev], index) => {
      const row = this.stmts.get.get(entry.a ?? '', kind, id) as Row | undefined;
      if (revisionOf(row ? (JSON.parse(row[0] as string) as StoredRecord) : undefined) !== rev) throw new StaleWrite(index);
    });
    for (const [kind, value] of Object.entries(entry.c ?? {})) this.stmts.counter.run(kind, value);
    if (entry.a === undefined) return;
    for (const op of entry.o ?? []) {
      if (op[0] === 'p') {
        const rec = op[3] as StoredRecord;
        const spec = this.indexed[op[1]];
        this.stmts.put.run(entry.a, op[1], op[2], spec ? checkOf(rec, spec.check) : null, spec ? timeOf(rec, spec.time) : null, JSON.stringify(rec), ...figureValues(spec, rec));
      } else if (op[0] === 'd') this.stmts.del.run(entry.a, op[1], op[2]);
      else this.stmts.delCheck.run(entry.a, op[1], op[2]);
    }
  }

  lease(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): LeasedRecord[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    // One write transaction: the rows due are read and moved to untilMs together (records_time index).
    const stmts = (this.leaseStmts ??= {
      due: this.db.prepare('SELECT seq FROM records WHERE kind = ? AND at <= ? ORDER BY at, seq LIMIT ?').raw(),
      dueOf: this.db.prepare('SELECT seq FROM records WHERE kind = ? AND at <= ? AND check_id = ? ORDER BY at, seq LIMIT ?').raw(),
      take: this.db.prepare('UPDATE records SET at = ?, data = json_set(data, ?, ?) WHERE seq = ? RETURNING account, id, data').raw(),
      queues: new Map(),
    });
    const { due, dueOf, take } = stmts;
    // A queue kind by check value: its partial index (records_queue), named by its condition.
    let queue = only !== undefined && QUEUE_KINDS.includes(kind) ? stmts.queues.get(kind) : undefined;
    if (!queue && only !== undefined && QUEUE_KINDS.includes(kind)) {
      queue = this.db.prepare(`SELECT seq FROM records WHERE kind = '${kind}' AND check_id = ? AND at <= ? ORDER BY at, seq LIMIT ?`).raw();
      stmts.queues.set(kind, queue);
    }
    const rows = this.db.transaction(() => {
      const found = only === undefined ? due.all(kind, nowMs, limit) : queue ? queue.all(only, nowMs, limit) : dueOf.all(kind, nowMs, only, limit);
      const seqs = (found as Row[]).map((r) => r[0]);
      return seqs.map((seq) => take.get(untilMs, `$.${spec.time}`, new Date(untilMs).toISOString(), seq) as Row);
    }).immediate() as Row[];
    return rows.map((r) => ({ account: r[0] as string, id: r[1] as string, record: JSON.parse(r[2] as string) as StoredRecord }));
  }

  expire(kind: string, beforeMs: number, limit: number): number {
    const spec = this.indexed[kind];
    if (!spec) return 0;
    const keep = spec.keepWhile;
    if (!keep) return Number(this.stmts.expire.run(kind, beforeMs, limit).changes);
    const sql = `DELETE FROM records WHERE seq IN (SELECT seq FROM records WHERE kind = ? AND at < ?
                   AND coalesce(json_extract(data, ?), '') NOT IN (${keep.values.map(() => '?').join(', ')}) LIMIT ?)`;
    return Number(this.db.prepare(sql).run(kind, beforeMs, `$.${keep.field}`, ...keep.values, limit).changes);
  }

  close(): void {
    void this.reader?.close();
    this.writer?.close();
    if (this.db.open) this.db.close();
  }

  private where(account: string, kind: string, q: RecordQuery): { where: string; args: unknown[] } {
    const parts = ['account = ?', 'kind = ?'];
    const args: unknown[] = [account, kind];
    if (q.checkId !== undefined) {
      parts.push('check_id = ?');
      args.push(q.checkId);
    }
    if (q.fromMs !== undefined) {
      parts.push('at >= ?');
      args.push(q.fromMs);
    }
    if (q.toMs !== undefined) {
      parts.push('at <= ?');
      args.push(q.toMs);
    }
    const spec = this.indexed[kind];
    if (spec && q.where && q.where.length > 0) {
      parts.push(
        ...figureConditions(spec, q.where, (v) => {
          args.push(v);
          return '?';
        }),
      );
    }
    return { where: parts.join(' AND '), args };
  }
}

/** The cells of one check over ranges (rollup.ts). */
function sqliteRollupSql(account: string, kind: string, q: RollupQuery): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  const sql = rollupSelect(q, { account, kind, checkId: q.checkId, checkIds: q.checkIds }, (v) => {
    args.push(v);
    return `?${args.length}`;
  }, 'json(hist)');
  return { sql, args };
}

/** The reduction of aggregate.ts spelled for SQLite (numbered parameters). */
export const SQLITE_AGGREGATE: AggregateDialect = {
  param: (i) => `?${i}`,
  bucket: (from, width) => `CAST((at - ${from}) / ${width} AS INTEGER)`,
  list: (column) => `group_concat(${column})`,
};

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

function scalar(db: Db, sql: string): unknown {
  return (db.prepare(sql).raw().get() as Row | undefined)?.[0];
}

/** Brings the schema to SCHEMA_VERSION, one transaction per migration. */
function migrate(db: Db, path: string): void {
  const version = Number(scalar(db, 'PRAGMA user_version'));
  if (version > SCHEMA_VERSION) {
    throw new StateError(
      `${path}: database schema version ${version} is newer than this mac serve knows (${SCHEMA_VERSION})`,
      'it was written by a newer mac; run that version, or start with another --state/--database file',
    );
  }
  if (version === 0 && Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'")) > 0) {
    throw new StateError(`${path}: a SQLite database that mac serve did not create (it has tables but no mac schema version)`, 'point --state/--database at a mac serve database or a new file');
  }
  // An upgrade of a database with data can take a while (migration 2 fills a column of every
  // stored result): say so, since nothing listens until it is done.
  const upgrading = version > 0 && version < SCHEMA_VERSION;
  const t0 = Date.now();
  if (upgrading) process.stderr.write(`mac serve: upgrading ${path} from schema version ${version} to ${SCHEMA_VERSION} (once; about a minute per million stored results) ...\n`);
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    }).immediate();
  }
  if (upgrading) {
    analyzeNewIndexes(db);
    process.stderr.write(`mac serve: upgraded ${path} to schema version ${SCHEMA_VERSION} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
}

/**
 * Statistics for the indexes a migration created, when the database holds statistics of the
 * others (someone ran ANALYZE; mac serve never does). Without, the query planner would take an
 * index with none for the most selective (an index without statistics is assumed to narrow to
 * a few rows): a check's figures read from records_check and the table instead of the covering
 * records_figures. A database without statistics stays without (the planner's defaults choose well).
 */
function analyzeNewIndexes(db: Db): void {
  if (Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'")) === 0) return;
  const missing = db
    .prepare("SELECT name FROM sqlite_master m WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sqlite_stat1 s WHERE s.idx = m.name)")
    .raw()
    .all() as Row[];
  if (missing.length === 0 || Number(scalar(db, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'records'")) === 0) return;
  for (const [name] of missing) db.exec(`ANALYZE "${String(name).replaceAll('"', '""')}"`);
}

/**
 * The cells of rollup.ts on SQLite: the table, the histogram's thresholds, the cells of the
 * results already stored, and the triggers that keep them in the transaction of every insert,
 * update and delete of a result (the retention and a check's deletion included). Generated from
 * the constants of rollup.ts, which never change once released.
 *
 * A cell's histogram is SQLite's binary JSON (JSONB, read back as text by json(hist)): the
 * trigger of every result written reads and changes one bucket of it without parsing and
 * printing the whole object as text. (bench/rollup-writes.mjs; one counter row per cell and
 * bucket in a table of its own was measured too, and cost more: one more B-tree upsert per span.)
 */
function sqliteRollupMigration(): string {
  const final = `'"FINAL"'`;
  const counted = (r: string) => `${r}.kind = '${ROLLUP_KIND}' AND ${r}.k0 = ${final} AND ${r}.check_id IS NOT NULL AND ${r}.at IS NOT NULL`;
  const bucket = (v: string) => `coalesce((SELECT i FROM rollup_bounds WHERE t <= ${v} ORDER BY t DESC LIMIT 1), 0)`;
  const path = (v: string) => `'$."' || ${bucket(v)} || '"'`;
  const start = (r: string, span: number) => `(CAST(${r}.at AS INTEGER) / ${span}) * ${span}`;
  const key = (r: string, span: number) => `account = ${r}.account AND kind = ${r}.kind AND check_id = ${r}.check_id AND span = ${span} AND start = ${start(r, span)}`;
  const add = (r: string) =>
    ROLLUP_SPANS.map(
      (span) => `INSERT INTO rollups (account, kind, check_id, span, start, runs, s0, s1, s2, vn, vsum, vsq, vmin, vmax, hist)
       SELECT ${r}.account, ${r}.kind, ${r}.check_id, ${span}, ${start(r, span)}, ${r}.n0 IS NOT NULL, coalesce(${r}.n0, 0), coalesce(${r}.n13, 0), coalesce(${r}.n14, 0),
              ${r}.n2 IS NOT NULL, coalesce(${r}.n2, 0), coalesce(${r}.n2 * ${r}.n2, 0), ${r}.n2, ${r}.n2,
              CASE WHEN ${r}.n2 IS NULL THEN jsonb('{}') ELSE jsonb_object(CAST(${bucket(`${r}.n2`)} AS TEXT), 1) END
       WHERE ${counted(r)}
       ON CONFLICT (account, kind, check_id, span, start) DO UPDATE SET
         runs = runs + excluded.runs, s0 = s0 + excluded.s0, s1 = s1 + excluded.s1, s2 = s2 + excluded.s2,
         vn = vn + excluded.vn, vsum = vsum + excluded.vsum, vsq = vsq + excluded.vsq,
         vmin = CASE WHEN vmin IS NULL THEN excluded.vmin WHEN excluded.vmin IS NULL THEN vmin ELSE min(vmin, excluded.vmin) END,
         vmax = CASE WHEN vmax IS NULL THEN excluded.vmax WHEN excluded.vmax IS NULL THEN vmax ELSE max(vmax, excluded.vmax) END,
         hist = CASE WHEN ${r}.n2 IS NULL THEN hist ELSE jsonb_set(hist, ${path(`${r}.n2`)}, coalesce(json_extract(hist, ${path(`${r}.n2`)}), 0) + 1) END;`,
    ).join('\n');
  // A result taken out: its figures are subtracted and an empty cell goes. When that emptied its
  // histogram bucket and the cell's minimum (maximum) lay in that bucket, the minimum becomes the
  // lower (maximum: upper) bound of the lowest (highest) bucket left (rollup.ts takenOut): a few
  // index lookups per delete, within one bucket of the exact value.
  const sub = (r: string) =>
    ROLLUP_SPANS.map(
      (span) => `UPDATE rollups SET runs = runs - (${r}.n0 IS NOT NULL), s0 = s0 - coalesce(${r}.n0, 0), s1 = s1 - coalesce(${r}.n13, 0), s2 = s2 - coalesce(${r}.n14, 0),
         vn = vn - (${r}.n2 IS NOT NULL), vsum = vsum - coalesce(${r}.n2, 0), vsq = vsq - coalesce(${r}.n2 * ${r}.n2, 0),
         hist = CASE WHEN ${r}.n2 IS NULL THEN hist WHEN coalesce(json_extract(hist, ${path(`${r}.n2`)}), 0) <= 1 THEN jsonb_remove(hist, ${path(`${r}.n2`)})
                ELSE jsonb_set(hist, ${path(`${r}.n2`)}, json_extract(hist, ${path(`${r}.n2`)}) - 1) END
       WHERE ${key(r, span)} AND ${counted(r)};
       DELETE FROM rollups WHERE ${key(r, span)} AND ${counted(r)} AND runs <= 0 AND vn <= 0;
       UPDATE rollups SET
         vmin = CASE WHEN json_extract(hist, ${path('vmin')}) IS NOT NULL THEN vmin ELSE coalesce((SELECT t FROM rollup_bounds WHERE i = (SELECT min(CAST(key AS INTEGER)) FROM json_each(rollups.hist))), vmin) END,
         vmax = CASE WHEN json_extract(hist, ${path('vmax')}) IS NOT NULL THEN vmax ELSE coalesce((SELECT t FROM rollup_bounds WHERE i = (SELECT max(CAST(key AS INTEGER)) FROM json_each(rollups.hist)) + 1), vmax) END
       WHERE ${key(r, span)} AND ${counted(r)} AND ${r}.n2 IS NOT NULL AND vmin IS NOT NULL AND json_extract(hist, ${path(`${r}.n2`)}) IS NULL;`,
    ).join('\n');
  const fill = ROLLUP_SPANS.map(
    (span) => `INSERT INTO rollups (account, kind, check_id, span, start, runs, s0, s1, s2, vn, vsum, vsq, vmin, vmax, hist)
     SELECT account, kind, check_id, ${span}, start, sum(runs), sum(s0), sum(s1), sum(s2), sum(vn), sum(vsum), sum(vsq), min(vmin), max(vmax),
            coalesce(jsonb_group_object(CAST(b AS TEXT), vn) FILTER (WHERE b IS NOT NULL), jsonb('{}'))
     FROM (SELECT account, kind, check_id, (CAST(at AS INTEGER) / ${span}) * ${span} AS start, CASE WHEN n2 IS NULL THEN NULL ELSE ${bucket('n2')} END AS b,
                  count(n0) AS runs, total(n0) AS s0, total(n13) AS s1, total(n14) AS s2, count(n2) AS vn, total(n2) AS vsum, total(n2 * n2) AS vsq, min(n2) AS vmin, max(n2) AS vmax
           FROM records r WHERE ${counted('r')}
           GROUP BY account, kind, check_id, start, b)
     GROUP BY account, kind, check_id, start;`,
  ).join('\n');
  return `CREATE TABLE rollups (
     account TEXT NOT NULL, kind TEXT NOT NULL, check_id TEXT NOT NULL, span INTEGER NOT NULL, start INTEGER NOT NULL,
     runs INTEGER NOT NULL, s0 REAL NOT NULL, s1 REAL NOT NULL, s2 REAL NOT NULL,
     vn INTEGER NOT NULL, vsum REAL NOT NULL, vsq REAL NOT NULL, vmin REAL, vmax REAL, hist BLOB NOT NULL,
     PRIMARY KEY (account, kind, check_id, span, start)
   ) WITHOUT ROWID;
   CREATE TABLE rollup_bounds (i INTEGER PRIMARY KEY, t REAL NOT NULL);
   CREATE INDEX rollup_bounds_t ON rollup_bounds (t, i);
   INSERT INTO rollup_bounds (i, t) VALUES ${HISTOGRAM_THRESHOLDS.map((t, i) => `(${i + 1}, ${t})`).join(', ')};
   ${fill}
   CREATE TRIGGER records_rollup_insert AFTER INSERT ON records WHEN NEW.kind = '${ROLLUP_KIND}' BEGIN
     ${add('NEW')}
   END;
   CREATE TRIGGER records_rollup_delete AFTER DELETE ON records WHEN OLD.kind = '${ROLLUP_KIND}' BEGIN
     ${sub('OLD')}
   END;
   CREATE TRIGGER records_rollup_update AFTER UPDATE ON records WHEN OLD.kind = '${ROLLUP_KIND}' OR NEW.kind = '${ROLLUP_KIND}' BEGIN
     ${sub('OLD')}
     ${add('NEW')}
   END;`;
}

/** The statements the writer thread runs (the same text as the main connection's `put`, `del`, `counter`). */
const WRITER_SQL: Record<string, string> = {
  put: `INSERT INTO records (account, kind, id, check_id, at, data, ${FIGURE_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?${', ?'.repeat(FIGURE_COLUMNS.length)})
         ON CONFLICT (account, kind, id) DO UPDATE SET check_id = excluded.check_id, at = excluded.at, data = excluded.data, summary = NULL${FIGURE_COLUMNS.map((c) => `, ${c} = excluded.${c}`).join('')}`,
  del: 'DELETE FROM records WHERE account = ? AND kind = ? AND id = ?',
  counter: 'INSERT INTO counters (kind, value) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET value = max(value, excluded.value)',
};

/** How long a batch may wait for the writer thread before it counts as failed (and is written again). */
const WRITE_TIMEOUT_MS = 30_000;

/**
 * The writer thread (sqlite-writer.ts) seen from the main thread: batches sent without waiting,
 * answered in order on a port (its listener, or `settle` blocking on the shared flag until the
 * last batch sent is answered).
 */
class SqliteWriter {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done: Int32Array;
  private nextId = 1;
  private readonly sent = new Map<number, { answer: (err?: Error) => void; timer: NodeJS.Timeout }>();
  /** The thread failed (or ended): the batches under way failed, the next one starts another thread. */
  broken = false;
  /** Resolves once the thread is ready for batches (or ended before). */
  readonly started: Promise<void>;
  private onStarted!: () => void;

  constructor(url: URL, file: string, sql: Record<string, string>) {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(8);
    this.done = new Int32Array(flag);
    this.port = port1;
    this.started = new Promise<void>((resolve) => (this.onStarted = resolve));
    this.worker = new Worker(url, { workerData: { file, sql, flag, port: port2 }, transferList: [port2] });
    this.worker.unref();
    this.port.on('message', (a: WriterAnswer) => this.answered(a));
    // Ref'd until the thread tells it started: `started` may be all a start awaits.
    const lost = (err: Error) => {
      this.broken = true;
      this.onStarted();
      for (const id of [...this.sent.keys()]) this.answered({ id, error: err.message });
      this.port.unref();
    };
    this.worker.on('error', lost);
    this.worker.on('exit', (code) => lost(new Error(`the SQLite writer thread ended (exit code ${code})`)));
  }

  send(rows: WriterRow[], answer: (err?: Error) => void): void {
    const id = this.nextId++;
    const timer = setTimeout(() => this.answered({ id, error: `the SQLite writer thread did not answer within ${WRITE_TIMEOUT_MS / 1000} s` }), WRITE_TIMEOUT_MS).unref();
    this.sent.set(id, { answer, timer });
    // Ref'd while a batch is under way: its answer may be all that a stop awaits (as PostgreSQL's).
    this.port.ref();
    this.port.postMessage({ id, rows } satisfies WriterRequest);
  }

  /**
   * Whether the thread is ready for batches: before, a batch sent would wait for the thread's
   * start (a worker and its modules loaded, the connection opened: seconds on a loaded machine),
   * and a synchronous write after it would hold the event loop that long.
   */
  get ready(): boolean {
    return !this.broken && Atomics.load(this.done, 1) === 1;
  }

  /** Blocks until every batch sent is answered (bounded by WRITE_TIMEOUT_MS), and takes their answers. */
  settle(): void {
    if (this.sent.size === 0 || this.broken) return;
    takeAnswersUpTo<WriterAnswer>(this.done, Math.max(...this.sent.keys()), WRITE_TIMEOUT_MS, this.port, (a) => this.answered(a));
  }

  /** Ends the thread after the batches under way (waited for); those that never answer fail. */
  close(): void {
    this.settle();
    this.broken = true;
    for (const id of [...this.sent.keys()]) this.answered({ id, error: 'the SQLite store is closed' });
    this.port.close();
    void this.worker.terminate();
  }

  private answered(a: WriterAnswer): void {
    if ('ready' in a) {
      if (this.sent.size === 0) this.port.unref();
      this.onStarted();
      return;
    }
    const waiting = this.sent.get(a.id);
    if (!waiting) return;
    this.sent.delete(a.id);
    if (this.sent.size === 0 && Atomics.load(this.done, 1) === 1) this.port.unref();
    clearTimeout(waiting.timer);
    waiting.answer('error' in a ? Object.assign(new Error(a.error), { code: a.code }) : undefined);
  }
}
