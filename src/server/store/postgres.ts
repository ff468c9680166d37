import { workerModule } from '../../runner/worker-module.js';
import { randomUUID } from 'node:crypto';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { takeAnswersUpTo } from './answers.js';
import { QUEUE_KINDS, checkOf, setPath, timeOf, type AsyncClaimHold, type Backend, type ClaimHold, type IndexedKinds, type LeasedRecord, type RecordQuery, type RunClaim, type StoreCommit, type StoredRecord } from './backend.js';
import { DatabaseUnavailable, StaleWrite, StateError, UniqueTaken } from './errors.js';
import { FIGURE_COLUMNS, aggregateRows, figureConditions, aggregateSql, figureValues, type AggregateDialect, type AggregateQuery, type AggregateRow } from './aggregate.js';
import type { PgAnswer, PgRequest } from './postgres-worker.js';
import { AsyncReader } from './reader.js';
import { HISTOGRAM_THRESHOLDS, ROLLUP_KIND, ROLLUP_SPANS, cellOfRow, rollupSelect, type RollupCell, type RollupQuery } from './rollup.js';

type Row = unknown[];
type Request = PgRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Versioned migrations of the PostgreSQL schema: entry i upgrades version i to i+1 (the row of
 * `mac_schema`). Append new entries; never edit a released one.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE records (
     seq bigserial PRIMARY KEY,
     account text NOT NULL,
     kind text NOT NULL,
     id text NOT NULL,
     check_id text,
     at bigint,
     data text NOT NULL,
     summary text,
     UNIQUE (account, kind, id)
   );
   CREATE INDEX records_order ON records (account, kind, seq);
   CREATE INDEX records_check ON records (account, kind, check_id, at, seq) INCLUDE (id, summary) WHERE check_id IS NOT NULL;
   CREATE INDEX records_time ON records (kind, at) WHERE at IS NOT NULL;
   CREATE INDEX records_config ON records (account, seq) WHERE at IS NULL;
   CREATE TABLE counters (kind text PRIMARY KEY, value bigint NOT NULL);
   CREATE TABLE versions (kind text PRIMARY KEY, value bigint NOT NULL);
   CREATE TABLE run_plans (account text NOT NULL, check_id text NOT NULL, plan text NOT NULL, anchor_ms double precision NOT NULL, PRIMARY KEY (account, check_id, plan));
   CREATE TABLE run_claims (account text NOT NULL, check_id text NOT NULL, due_ms bigint NOT NULL, instance text NOT NULL, PRIMARY KEY (account, check_id, due_ms));
   CREATE INDEX run_claims_due ON run_claims (due_ms);`,
  // Figures (aggregate.ts): typed columns reduced by analytics, filled from the summary of the
  // results already stored (its order: analytics.ts SUMMARY_V1_FIELDS), which is no longer kept.
  `ALTER TABLE records ADD COLUMN n0 float8, ADD COLUMN n1 float8, ADD COLUMN n2 float8, ADD COLUMN n3 float8,
     ADD COLUMN n4 float8, ADD COLUMN n5 float8, ADD COLUMN n6 float8, ADD COLUMN n7 float8,
     ADD COLUMN k0 text, ADD COLUMN k1 text, ADD COLUMN k2 text;
   UPDATE records r SET (n0, n1, n2, n3, n4, n5, n6, n7, k0, k1, k2) = (
          SELECT CASE json_typeof((s -> 2)) WHEN 'number' THEN ((s -> 2) #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 2)::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 3)) WHEN 'number' THEN ((s -> 3) #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 3)::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 4)) WHEN 'number' THEN ((s -> 4) #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 4)::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 7 -> 'wait')) WHEN 'number' THEN ((s -> 7 -> 'wait') #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 7 -> 'wait')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 7 -> 'dns')) WHEN 'number' THEN ((s -> 7 -> 'dns') #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 7 -> 'dns')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 7 -> 'tcp')) WHEN 'number' THEN ((s -> 7 -> 'tcp') #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 7 -> 'tcp')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 7 -> 'firstByte')) WHEN 'number' THEN ((s -> 7 -> 'firstByte') #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 7 -> 'firstByte')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof((s -> 7 -> 'download')) WHEN 'number' THEN ((s -> 7 -> 'download') #>> '{}')::float8 WHEN 'boolean' THEN CASE (s -> 7 -> 'download')::text WHEN 'true' THEN 1 ELSE 0 END END,
            coalesce((s -> 0)::text, 'null'),
            coalesce((s -> 5)::text, 'null'),
            coalesce((s -> 6)::text, 'null')
          FROM (SELECT r.summary::json AS s) j)
     WHERE kind = 'checkResults' AND summary IS NOT NULL;
   CREATE INDEX records_figures ON records (account, kind, check_id, at) INCLUDE (n0, n1, n2, n3, n4, n5, n6, n7, k0, k1, k2) WHERE check_id IS NOT NULL;
   -- The summary is no longer written (nor read): the index by check stops carrying it.
   DROP INDEX records_check;
   CREATE INDEX records_check ON records (account, kind, check_id, at, seq) WHERE check_id IS NOT NULL;
   -- The retention deletes run data all the time: vacuum once 1% of the rows are dead (not the
   -- default 20%), so the space of expired runs is reused and the database stops growing.
   ALTER TABLE records SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_insert_scale_factor = 0.05)`,
  // ICMP figures (analytics.ts ICMP_FIGURES): packet loss and min, average, max and standard
  // deviation of latency, filled from the JSON document of the ICMP results already stored (a document that
  // is not a JSON object of at most 256 KiB gives none, as when written). A record that does not
  // parse gives none either, instead of failing the upgrade.
  `ALTER TABLE records ADD COLUMN n8 float8, ADD COLUMN n9 float8, ADD COLUMN n10 float8, ADD COLUMN n11 float8, ADD COLUMN n12 float8;
   CREATE FUNCTION pg_temp.mac_icmp_document(data text) RETURNS json LANGUAGE plpgsql IMMUTABLE AS $$
   DECLARE r json; body text; d json;
   BEGIN
     r := data::json -> 'apiCheckResult';
     IF json_typeof(r -> 'request' -> 'method') IS DISTINCT FROM 'string' OR (r -> 'request' ->> 'method') <> 'ICMP' THEN RETURN NULL; END IF;
     IF json_typeof(r -> 'response' -> 'body') IS DISTINCT FROM 'string' THEN RETURN NULL; END IF;
     body := r -> 'response' ->> 'body';
     IF length(body) > 262144 THEN RETURN NULL; END IF;
     d := body::json;
     RETURN CASE WHEN json_typeof(d) = 'object' THEN d END;
   EXCEPTION WHEN others THEN RETURN NULL;
   END $$;
   UPDATE records r SET (n8, n9, n10, n11, n12) = (
          SELECT CASE json_typeof(d -> 'packetLoss') WHEN 'number' THEN ((d -> 'packetLoss') #>> '{}')::float8 WHEN 'boolean' THEN CASE (d -> 'packetLoss')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof(d -> 'latency' -> 'min') WHEN 'number' THEN ((d -> 'latency' -> 'min') #>> '{}')::float8 WHEN 'boolean' THEN CASE (d -> 'latency' -> 'min')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof(d -> 'latency' -> 'avg') WHEN 'number' THEN ((d -> 'latency' -> 'avg') #>> '{}')::float8 WHEN 'boolean' THEN CASE (d -> 'latency' -> 'avg')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof(d -> 'latency' -> 'max') WHEN 'number' THEN ((d -> 'latency' -> 'max') #>> '{}')::float8 WHEN 'boolean' THEN CASE (d -> 'latency' -> 'max')::text WHEN 'true' THEN 1 ELSE 0 END END,
            CASE json_typeof(d -> 'latency' -> 'stdDev') WHEN 'number' THEN ((d -> 'latency' -> 'stdDev') #>> '{}')::float8 WHEN 'boolean' THEN CASE (d -> 'latency' -> 'stdDev')::text WHEN 'true' THEN 1 ELSE 0 END END
          FROM (SELECT pg_temp.mac_icmp_document(r.data) AS d) j)
     WHERE kind = 'checkResults' AND data LIKE '%"method":"ICMP"%';
   DROP FUNCTION pg_temp.mac_icmp_document(text);
   DROP INDEX records_figures;
   CREATE INDEX records_figures ON records (account, kind, check_id, at) INCLUDE (n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, k0, k1, k2) WHERE check_id IS NOT NULL`,
  // Figures n13 (hasErrors) and n14 (isDegraded) of results: the public pages reduce a check's
  // failures (a failed assertion or an error of the run) and degraded runs in the database.
  `ALTER TABLE records ADD COLUMN n13 float8, ADD COLUMN n14 float8;
   CREATE FUNCTION pg_temp.mac_json(data text) RETURNS json LANGUAGE plpgsql IMMUTABLE AS $$
   BEGIN RETURN data::json; EXCEPTION WHEN others THEN RETURN NULL; END $$;
   UPDATE records r SET (n13, n14) = (SELECT CASE json_typeof(d -> 'hasErrors') WHEN 'number' THEN (d ->> 'hasErrors')::float8 WHEN 'boolean' THEN CASE d ->> 'hasErrors' WHEN 'true' THEN 1 ELSE 0 END END, CASE json_typeof(d -> 'isDegraded') WHEN 'number' THEN (d ->> 'isDegraded')::float8 WHEN 'boolean' THEN CASE d ->> 'isDegraded' WHEN 'true' THEN 1 ELSE 0 END END FROM (SELECT pg_temp.mac_json(r.data) AS d) j)
     WHERE kind = 'checkResults';
   DROP FUNCTION pg_temp.mac_json(text);
   DROP INDEX records_figures;
   CREATE INDEX records_figures ON records (account, kind, check_id, at) INCLUDE (n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14, k0, k1, k2) WHERE check_id IS NOT NULL`,
  // The queue of private locations by location and time (backend.ts QUEUE_KINDS): a claim reads
  // the rows it takes, in order, and stops at its LIMIT.
  `CREATE INDEX records_queue ON records (check_id, at, seq) WHERE kind = 'privateLocationRuns'`,
  // Results reduced per check and hour and per check and day (rollup.ts), kept by statement
  // triggers in the transaction of every write of results, and filled here from those stored.
  pgRollupMigration(),
];

/** Connections of the asynchronous reads (public pages, their data): on top of the store's one and the claims' one. */
const READ_CONNECTIONS = 3;
/** How long a call waits for PostgreSQL before it fails (the statements time out before this). */
const CALL_TIMEOUT_MS = 30_000;
/** How long opening may take: migrations run without a statement time limit (migration 2 fills a column of every result). */
const OPEN_TIMEOUT_MS = 60 * 60_000;

/** Query parameters of a connection URL that hold a secret (libpq's `password`, `sslpassword`, and the like). */
const SECRET_PARAM = /pass|secret|token|pwd/i;

/**
 * `postgres://user:secret@host/db?sslpassword=x` -> `postgres://user:***@host/db?sslpassword=***`
 * (for messages, the start line and logs): the user info's password and every query parameter
 * that holds a secret are hidden.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...new Set(u.searchParams.keys())]) if (SECRET_PARAM.test(key)) u.searchParams.set(key, '***');
    return u.toString().replaceAll('%2A%2A%2A', '***');
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** The secrets a connection URL holds, as written and decoded (to scrub them from any message). */
export function urlSecrets(url: string): string[] {
  const out = new Set<string>();
  try {
    const u = new URL(url);
    if (u.password) {
      out.add(u.password);
      out.add(safeDecode(u.password));
    }
    for (const [key, value] of u.searchParams) if (SECRET_PARAM.test(key) && value !== '') out.add(value);
  } catch {
    // An unparsable URL is never shown (redactUrl).
  }
  return [...out].filter((s) => s.length > 0);
}

/** `text` with every secret of `url` replaced by `***`. */
export function scrubSecrets(text: string, url: string): string {
  return urlSecrets(url)
    .sort((a, b) => b.length - a.length)
    .reduce((t, secret) => t.replaceAll(secret, '***'), text);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Records in a PostgreSQL database, shared by every `mac serve` pointed at it. `pg` is asynchronous
 * and the store is not: the connection lives in a worker thread, and each call blocks this thread
 * on a SharedArrayBuffer until the worker answers (the pattern of `synckit`). Nothing is cached
 * across instances' writes: configuration read from memory is checked against the `versions`
 * table (bumped by every commit, read once per event-loop turn), counters are allocated by the
 * database, and each due run is claimed in `run_claims` so that one instance runs it.
 */
export class PostgresBackend implements Backend {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done: Int32Array;
  private nextId = 1;
  private closed = false;
  /** `kind -> value` of the versions table, read at most once per event-loop turn. */
  private versionMemo: Map<string, number> | undefined;
  /** Configuration entries per `account\0kind`, valid while their kind's version is unchanged. */
  private readonly config = new Map<string, { version: number; entries: Array<[string, StoredRecord]>; byId: Map<string, StoredRecord> }>();
  private accounts: { key: string; ids: string[] } | undefined;
  /** Set while PostgreSQL does not answer (reported once, see `failed`). */
  private down = false;
  /** A call made after a batch sent without waiting is answered after it (one connection, in order). */
  readonly readsSeeSent = true;
  /** Identifies this process in `run_claims`. */
  readonly instance = `${process.pid}-${randomUUID().slice(0, 8)}`;
  /** The asynchronous reads: a pool of connections in a thread of its own (started at the first). */
  private reader: AsyncReader | undefined;
  /**
   * The versions table as last read off the main thread (`followVersions`), and the number of
   * this instance's commits made before that read was sent: a kind this instance committed
   * since is not taken from it (see followedVersion).
   */
  private followed: { versions: Map<string, number>; afterCommit: number } | undefined;
  /** The read of `followed` under way, shared by every caller meanwhile. */
  private following: Promise<void> | undefined;
  /** Commits of this instance so far, and per kind the number of the last one that wrote it. */
  private commitCount = 0;
  private readonly lastCommitOf = new Map<string, number>();
  /**
   * Requests sent without waiting (`send`), by id: settled when their answer is taken from the
   * port, by the port's listener or by a synchronous call that finds it before its own.
   */
  private readonly sent = new Map<number, { req: Request; settle: (answer: PgAnswer | Error) => void }>();

  private constructor(private readonly indexed: IndexedKinds) {
    const { port1, port2 } = new MessageChannel();
    // Slot 0: the id of the last answer of the worker's queue; slot 1: of the last `peek`.
    const flag = new SharedArrayBuffer(8);
    this.done = new Int32Array(flag);
    this.port = port1;
    this.worker = new Worker(workerUrl(), { workerData: { flag, port: port2 }, transferList: [port2] });
    this.worker.unref();
    // Answers of requests sent without waiting arrive here (a synchronous call takes its own, and
    // any before it, with receiveMessageOnPort while this thread is blocked). Unref'd while none is
    // under way; ref'd while one is (see `track`).
    this.port.on('message', (msg: PgAnswer) => this.answered(msg));
    this.port.unref();
  }

  /** Connects (creating the database when it does not exist) and migrates; StateError when it cannot. */
  static open(url: string, indexed: IndexedKinds): PostgresBackend {
    const shown = redactUrl(url);
    const backend = new PostgresBackend(indexed);
    try {
      backend.call({ op: 'open', url, shown, migrations: PG_MIGRATIONS }, OPEN_TIMEOUT_MS);
    } catch (err) {
      backend.close();
      const e = err as Error & { code?: string; version?: number };
      if (e.code === 'MAC_NEWER') {
        throw new StateError(
          `${shown}: database schema version ${e.version} is newer than this mac serve knows (${PG_MIGRATIONS.length})`,
          'it was written by a newer mac; run that version, or point --database at another database',
        );
      }
      if (e.code === 'MAC_FOREIGN') {
        throw new StateError(`${shown}: a PostgreSQL database that mac serve did not create (it has tables but no mac schema version)`, 'point --database at a mac serve database or a new one');
      }
      // A driver's message could quote what it was given: no secret of the URL leaves.
      throw new StateError(`${shown}: cannot open the database: ${scrubSecrets(e.message, url)}`, 'check that PostgreSQL runs, and the URL, user and password');
    }
    // Reads that fail say why without the URL's secrets; an outage is reported as by the synchronous calls.
    backend.reader = new AsyncReader({ driver: 'postgres', target: url, connections: READ_CONNECTIONS }, (err) => {
      const scrubbed = Object.assign(new Error(scrubSecrets(err.message, url)), { code: err.code });
      return backend.failed({ op: 'query', sql: '', params: [] }, scrubbed);
    });
    return backend;
  }

  get(account: string, kind: string, id: string): StoredRecord | undefined {
    if (!this.indexed[kind]) return this.configOf(account, kind).byId.get(id);
    const row = this.query1('SELECT data FROM records WHERE account = $1 AND kind = $2 AND id = $3', [enc(account), kind, enc(id)])[0];
    return row ? (JSON.parse(row[0] as string) as StoredRecord) : undefined;
  }

  entries(account: string, kind: string): Array<[string, StoredRecord]> {
    if (!this.indexed[kind]) return [...this.configOf(account, kind).entries];
    return this.query1('SELECT id, data FROM records WHERE account = $1 AND kind = $2 ORDER BY seq', [enc(account), kind]).map((r) => [
      dec(r[0] as string),
      JSON.parse(r[1] as string) as StoredRecord,
    ]);
  }

  count(account: string, kind: string): number {
    if (!this.indexed[kind]) return this.configOf(account, kind).entries.length;
    return Number(this.query1('SELECT count(*) FROM records WHERE account = $1 AND kind = $2', [enc(account), kind])[0][0]);
  }

  *everywhere(kind: string): Iterable<{ account: string; record: StoredRecord }> {
    for (const r of this.query1('SELECT account, data FROM records WHERE kind = $1 ORDER BY seq', [kind])) {
      yield { account: dec(r[0] as string), record: JSON.parse(r[1] as string) as StoredRecord };
    }
  }

  accountIds(): string[] {
    // Accounts come from configuration only: keyed on the versions of configuration kinds, not on
    // those of run data, which change at every group commit (the scheduler asks at every scan).
    const versions = this.versions();
    const key = [...versions].filter(([kind]) => !this.indexed[kind]).map(([kind, v]) => `${kind}=${v}`).join(',');
    if (this.accounts?.key === key) return this.accounts.ids;
    const runKinds = Object.keys(this.indexed);
    const ids = this.query1('SELECT account FROM records WHERE at IS NULL AND NOT (kind = ANY($1)) GROUP BY account ORDER BY min(seq)', [runKinds]).map((r) => dec(r[0] as string));
    this.accounts = { key, ids };
    return ids;
  }

  counter(kind: string): number {
    return Number(this.query1('SELECT value FROM counters WHERE kind = $1', [kind])[0]?.[0] ?? 0);
  }

  /** Takes the next `count` ids of a kind (returns the last): atomic across every instance on the database, durable at once. */
  allocate(kind: string, count = 1): number {
    return Number(
      this.query1('INSERT INTO counters (kind, value) VALUES ($1, $2) ON CONFLICT (kind) DO UPDATE SET value = counters.value + $2 RETURNING value', [kind, count])[0][0],
    );
  }

  /** The version of a kind in the database (bumped by every commit that writes it, on any instance). */
  version(kind: string): number {
    return this.versions().get(kind) ?? 0;
  }

  /**
   * Reads the versions table off the main thread (the reader thread) for `followedVersion`. A
   * call while one read is under way shares it. Resolves when the read is in (or failed: the
   * followed versions are then those of the read before).
   */
  followVersions(): Promise<void> {
    if (this.following) return this.following;
    if (!this.reader) return Promise.resolve();
    const afterCommit = this.commitCount;
    this.following = this.reader
      .run<Record<string, string | number> | null>("SELECT json_object_agg(kind, value)::text FROM versions", [], { kind: 'json' })
      .then((obj) => {
        const versions = new Map(Object.entries(obj ?? {}).map(([k, v]) => [k, Number(v)]));
        if (!this.followed || afterCommit >= this.followed.afterCommit) this.followed = { versions, afterCommit };
      })
      .catch(() => undefined)
      .finally(() => (this.following = undefined));
    return this.following;
  }

  /**
   * The version of a kind as of the last `followVersions` read, without a read: what another
   * instance committed since is seen at the next read. A kind that this instance committed after
   * that read was sent (or before any read) is read as `version` does: this instance's own writes
   * are always seen.
   */
  followedVersion(kind: string): number {
    const f = this.followed;
    if (f && (this.lastCommitOf.get(kind) ?? 0) <= f.afterCommit) return f.versions.get(kind) ?? 0;
    return this.version(kind);
  }

  /** A configuration record as of the followed versions (see followedVersion). */
  getFollowed(account: string, kind: string, id: string): StoredRecord | undefined {
    if (this.indexed[kind]) return this.get(account, kind, id);
    return this.configAt(account, kind, this.followedVersion(kind)).byId.get(id);
  }

  /** A kind's configuration records of an account as of the followed versions (see followedVersion). */
  entriesFollowed(account: string, kind: string): Array<[string, StoredRecord]> {
    if (this.indexed[kind]) return this.entries(account, kind);
    return [...this.configAt(account, kind, this.followedVersion(kind)).entries];
  }

  /** Every record of a configuration kind in every account, read off the main thread (the public pages' lookup by URL). */
  async everywhereAsync(kind: string): Promise<Array<{ account: string; record: StoredRecord }>> {
    if (!this.reader) return [...this.everywhere(kind)];
    const rows = await this.reader.run<Array<[string, StoredRecord]> | null>(
      `SELECT '[' || coalesce(string_agg('[' || to_json(account)::text || ',' || data || ']', ',' ORDER BY seq), '') || ']' FROM records WHERE kind = $1`,
      [kind],
      { kind: 'json' },
    );
    return (rows ?? []).map(([account, record]) => ({ account: dec(account), record }));
  }

  /** Counts a commit of these kinds by this instance (see followedVersion). */
  private committed(kinds: Iterable<string>): void {
    this.commitCount++;
    for (const kind of kinds) this.lastCommitOf.set(kind, this.commitCount);
  }

  query(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    if (!this.indexed[kind]) return this.configQuery(account, kind, q);
    const { sql, args, finish } = this.queryPlan(account, kind, q);
    return finish(JSON.parse(this.query1(sql, args)[0][0] as string) as Array<[string, unknown]>);
  }

  async queryAsync(account: string, kind: string, q: RecordQuery): Promise<Array<[string, StoredRecord]>> {
    if (!this.indexed[kind] || !this.reader) return this.query(account, kind, q);
    const { sql, args, finish } = this.queryPlan(account, kind, q);
    return finish(await this.reader.run<Array<[string, unknown]>>(sql, args, { kind: 'json' }));
  }

  warmReads(): Promise<void> {
    return this.reader ? this.reader.warm() : Promise.resolve();
  }

  async aggregateAsync(account: string, kind: string, q: AggregateQuery): Promise<AggregateRow[]> {
    if (!this.reader) return this.aggregate(account, kind, q);
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    const { sql, args } = aggregateSql(PG_AGGREGATE, spec, q, { account: enc(account), kind, checkId: enc(q.checkId), checkIds: q.checkIds?.map((id) => enc(id)) });
    return namedRows(await this.reader.run<AggregateRow[]>(sql, args, { kind: 'aggregate', q }));
  }

  rollups(account: string, kind: string, q: RollupQuery): RollupCell[] {
    if (q.ranges.length === 0) return [];
    const { sql, args } = pgRollupSql(account, kind, q);
    return named(this.query1(sql, args).map(cellOfRow));
  }

  async rollupsAsync(account: string, kind: string, q: RollupQuery): Promise<RollupCell[]> {
    if (!this.reader || q.ranges.length === 0) return this.rollups(account, kind, q);
    const { sql, args } = pgRollupSql(account, kind, q);
    // The histograms are parsed in the reader thread too.
    return named(await this.reader.run<RollupCell[]>(sql, args, { kind: 'cells' }));
  }

  /** The statement of a query of run data (one JSON text of `[id, record]` pairs), and how its pairs become records. */
  private queryPlan(account: string, kind: string, q: RecordQuery): { sql: string; args: unknown[]; finish: (rows: Array<[string, unknown]>) => Array<[string, StoredRecord]> } {
    const { where, args } = this.where(account, kind, q);
    const order = q.order === 'time-desc' ? 'at DESC, seq DESC' : q.order === 'created-desc' ? 'seq DESC' : 'seq';
    const fields = q.fields;
    // Whole records are JSON text already: concatenated, not parsed by PostgreSQL.
    const what = fields ? `json_build_array(${fields.map((f) => `data::json #> ${pgPath(f.split('.'))}`).join(', ')})` : 'data';
    let page = '';
    if (q.limit !== undefined) page += ` LIMIT ${Math.max(0, Math.floor(q.limit))}`;
    if (q.offset !== undefined) page += ` OFFSET ${Math.max(0, Math.floor(q.offset))}`;
    // One JSON text for all rows: one value to hand from the worker and one parse, instead of a
    // row object per record (a month of one check's results is 40,000 rows).
    const item = `'[' || to_json(id)::text || ',' || coalesce((${what})::text, 'null') || ']'`;
    const sql = page
      ? `SELECT '[' || coalesce(string_agg(x, ',' ORDER BY n), '') || ']' FROM (SELECT ${item} AS x, row_number() OVER (ORDER BY ${order}) AS n FROM records WHERE ${where} ORDER BY ${order}${page}) q`
      : `SELECT '[' || coalesce(string_agg(${item}, ',' ORDER BY ${order}), '') || ']' FROM records WHERE ${where}`;
    const finish = (rows: Array<[string, unknown]>): Array<[string, StoredRecord]> => {
      if (!fields) return rows.map((r) => [dec(r[0]), r[1] as StoredRecord]);
      return rows.map((r) => {
        const values = (r[1] ?? []) as unknown[];
        const rec: StoredRecord = {};
        fields.forEach((f, i) => {
          if (values[i] !== null && values[i] !== undefined) setPath(rec, f, values[i]);
        });
        return [dec(r[0]), rec];
      });
    };
    return { sql, args, finish };
  }

  countQuery(account: string, kind: string, q: RecordQuery): number {
    if (!this.indexed[kind]) return this.configQuery(account, kind, {}).length;
    const { where, args } = this.where(account, kind, q);
    return Number(this.query1(`SELECT count(*) FROM records WHERE ${where}`, args)[0][0]);
  }

  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    const { sql, args } = aggregateSql(PG_AGGREGATE, spec, q, { account: enc(account), kind, checkId: enc(q.checkId), checkIds: q.checkIds?.map((id) => enc(id)) });
    return namedRows(aggregateRows(this.query1(sql, args), q));
  }

  commit(entry: StoreCommit): void {
    this.commitMany([entry]);
  }

  /**
   * Several commits as one transaction (the store's group commit): counters first (the highest
   * value per kind), then the operations in order, each run of puts as multi-row inserts (a record
   * put twice keeps the place of its first put and the value of its last), then one version bump
   * per kind written.
   */
  commitMany(entries: readonly StoreCommit[]): void {
    const { statements, reclaimed, kinds } = this.batch(entries);
    if (statements.length === 0) return;
    let r: { rows: Row[][]; counts: number[] };
    try {
      r = this.call({ op: 'tx', statements });
    } finally {
      // Counted even when it failed: a commit that timed out here may have landed, and a writer
      // that lost a compare-and-set reads again what others wrote.
      this.versionMemo = undefined;
      this.committed(kinds);
    }
    this.reportTakenClaims(reclaimed.flatMap((i) => r.rows[i]));
  }

  /**
   * `commitMany` without waiting: the batch is sent to the worker, and `done` is called when it
   * committed (no argument) or failed (the error; nothing of it written), as soon as the answer
   * is taken (see dispatch). Every call made after this one is answered after the batch (the
   * worker keeps the order): the versions read from now on count it.
   */
  commitManyAsync(entries: readonly StoreCommit[], done: (error?: unknown) => void): void {
    const { statements, reclaimed, kinds } = this.batch(entries);
    if (statements.length === 0) {
      done();
      return;
    }
    this.dispatch({ op: 'tx', statements }, (r) => {
      if (r instanceof Error) return done(r);
      this.reportTakenClaims(reclaimed.flatMap((i) => r.rows[i]));
      done();
    });
    // Counted when sent, as a synchronous commit is (see commitMany).
    this.versionMemo = undefined;
    this.committed(kinds);
  }

  /**
   * `holdClaims` without waiting: the claims are inserted in a transaction left open on the
   * holding connection (the worker's `hold`), and the promise resolves with the hold once they
   * are. Its `commit` sends the sessions' writes and the commit (`release`) without waiting;
   * `rollback` sends the rollback. The worker answers in order, so a hold asked after the last
   * one's release was sent runs after it.
   */
  async holdClaimsAsync(claims: readonly RunClaim[]): Promise<AsyncClaimHold> {
    const statements = claimStatements(claims, this.instance);
    let answer: { rows: Row[][] };
    try {
      answer = await this.send({ op: 'hold', statements });
    } catch (err) {
      // A hold that timed out may still be open in the worker: released after it.
      this.abandonHold();
      throw err;
    }
    const granted = grantedClaims(claims, answer.rows);
    let open = true;
    return {
      granted,
      commit: (entries, done) => {
        if (!open) return done(new Error('the claims were released already'));
        open = false;
        const { statements: batch, reclaimed, kinds } = this.batch(entries);
        this.dispatch({ op: 'release', statements: batch, commit: true }, (r) => {
          if (r instanceof Error) {
            this.abandonHold();
            return done(r);
          }
          this.reportTakenClaims(reclaimed.flatMap((i) => r.rows[i]));
          done();
        });
        this.versionMemo = undefined;
        this.committed(kinds);
      },
      rollback: () => {
        if (!open) return;
        open = false;
        this.abandonHold();
      },
    };
  }

  /**
   * The statements of `commitMany` (and of a held claim's commit), and the indexes of those that
   * take claims again (`StoreCommit.r`).
   */
  private batch(entries: readonly StoreCommit[]): { statements: Array<[string, unknown[]]>; reclaimed: number[]; kinds: Set<string> } {
    const counters = new Map<string, number>();
    for (const e of entries) for (const [kind, value] of Object.entries(e.c ?? {})) counters.set(kind, Math.max(counters.get(kind) ?? value, value));
    // Uniqueness rules first: their advisory locks come before any row lock.
    const statements: Array<[string, unknown[]]> = entries.flatMap(uniqueChecks);
    // Then the compare-and-set expectations (their own advisory locks, after those of uniqueness).
    statements.push(...entries.flatMap(revisionChecks));
    // Claims taken again, with the sessions started under them (see Store.claimRuns), in one
    // order. A claim another instance holds now is kept by it and reported (reportTakenClaims).
    const reclaimed: number[] = [];
    const again = new Map(entries.flatMap((e) => e.r ?? []).map((c) => [`${c.account}\u0000${c.checkId}\u0000${Math.round(c.dueMs)}`, c]));
    for (const chunk of chunks(sortClaims([...again.values()]), 1000)) {
      reclaimed.push(statements.length);
      const { sql, params } = claimInsert(chunk, this.instance, 'ON CONFLICT (account, check_id, due_ms) DO UPDATE SET instance = run_claims.instance RETURNING account, check_id, due_ms, instance');
      statements.push([sql, params]);
    }
    // Rows locked in one order by every instance (no deadlock between two commits).
    for (const kind of [...counters.keys()].sort()) {
      statements.push(['INSERT INTO counters (kind, value) VALUES ($1, $2) ON CONFLICT (kind) DO UPDATE SET value = GREATEST(counters.value, excluded.value)', [kind, counters.get(kind)]]);
    }
    let puts = new Map<string, [string, string, string, StoredRecord]>();
    const putRows = () => {
      const rows = [...puts.values()].map(([account, kind, id, rec]) => {
        const spec = this.indexed[kind];
        return [enc(account), kind, enc(id), spec ? enc(checkOf(rec, spec.check)) : null, spec ? timeOf(rec, spec.time) : null, JSON.stringify(rec), ...figureValues(spec, rec)];
      });
      puts = new Map();
      // PUT_COLUMNS parameters a row, at most 65,535 a statement.
      for (let i = 0; i < rows.length; i += 1000) {
        const chunk = rows.slice(i, i + 1000);
        const values = chunk.map((_, r) => `(${PUT_COLUMNS.map((_c, c) => `$${r * PUT_COLUMNS.length + c + 1}`).join(', ')})`).join(', ');
        statements.push([`INSERT INTO records (${PUT_COLUMNS.join(', ')}) VALUES ${values} ${ON_PUT_CONFLICT}`, chunk.flat()]);
      }
    };
    const kinds = new Set<string>();
    for (const e of entries) {
      if (e.a === undefined) continue;
      for (const op of e.o ?? []) {
        kinds.add(op[1]);
        if (op[0] === 'p') {
          puts.set(`${e.a}\u0000${op[1]}\u0000${op[2]}`, [e.a, op[1], op[2], op[3] as StoredRecord]);
          continue;
        }
        putRows();
        if (op[0] === 'd') statements.push(['DELETE FROM records WHERE account = $1 AND kind = $2 AND id = $3', [enc(e.a), op[1], enc(op[2])]]);
        else statements.push(['DELETE FROM records WHERE account = $1 AND kind = $2 AND check_id = $3', [enc(e.a), op[1], enc(op[2])]]);
      }
    }
    putRows();
    for (const kind of [...kinds].sort()) statements.push(bumpVersion(kind));
    return { statements, reclaimed, kinds };
  }

  /** Claims taken again by a batch that another instance took meanwhile: their due times ran there and here. */
  private reportTakenClaims(rows: Row[]): void {
    const taken = rows.filter((r) => r[3] !== this.instance);
    if (taken.length === 0) return;
    const which = taken.map((r) => `check ${dec(r[1] as string)} due at ${new Date(Number(r[2])).toISOString()}`).join(', ');
    process.stderr.write(`mac serve: ${taken.length} run(s) whose claim was rolled back were claimed by another instance before this one wrote them again, and ran on both: ${which}\n`);
  }

  lease(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): LeasedRecord[] {
    const { sql, params, finish } = this.leaseSql(kind, nowMs, untilMs, limit, only);
    return finish(this.query1(sql, params));
  }

  /** `lease` without holding the event loop: sent to the worker, answered after what was sent before it. */
  async leaseAsync(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): Promise<LeasedRecord[]> {
    const { sql, params, finish } = this.leaseSql(kind, nowMs, untilMs, limit, only);
    return finish((await this.send({ op: 'query', sql, params })).rows[0]);
  }

  private leaseSql(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): { sql: string; params: unknown[]; finish: (rows: Row[]) => LeasedRecord[] } {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    // Rows another instance is taking are skipped, not waited for: each row goes to one taker.
    // A queue kind by check value: its partial index (records_queue) serves a query naming its condition.
    const queue = only !== undefined && QUEUE_KINDS.includes(kind);
    const of = only === undefined ? '' : ' AND check_id = $7';
    const sql = `WITH due AS (SELECT seq, at FROM records WHERE kind = $4${queue ? ` AND kind = '${kind}'` : ''} AND at IS NOT NULL AND at <= $5${of} ORDER BY at, seq LIMIT $6 FOR UPDATE SKIP LOCKED)
                 UPDATE records r SET at = $1, data = jsonb_set(r.data::jsonb, $2::text[], to_jsonb($3::text))::text
                 FROM due WHERE r.seq = due.seq
                 RETURNING r.account, r.id, r.data, due.at::float8, due.seq::float8`;
    const params: unknown[] = [untilMs, [spec.time], new Date(untilMs).toISOString(), kind, nowMs, limit];
    if (only !== undefined) params.push(enc(only));
    const finish = (rows: Row[]): LeasedRecord[] => {
      // RETURNING has no order: the longest due first, as taken.
      rows.sort((x, y) => Number(x[3]) - Number(y[3]) || Number(x[4]) - Number(y[4]));
      return rows.map((r) => ({ account: dec(r[0] as string), id: dec(r[1] as string), record: JSON.parse(r[2] as string) as StoredRecord }));
    };
    return { sql, params, finish };
  }

  expire(kind: string, beforeMs: number, limit: number): number {
    const spec = this.indexed[kind];
    if (!spec) return 0;
    const keep = spec.keepWhile;
    const kept = keep ? ' AND coalesce(data::json ->> $4, \'\') <> ALL($5::text[])' : '';
    const r = this.call({
      op: 'tx',
      statements: [
        [`DELETE FROM records WHERE seq IN (SELECT seq FROM records WHERE kind = $1 AND at < $2${kept} LIMIT $3)`, keep ? [kind, beforeMs, limit, keep.field, keep.values] : [kind, beforeMs, limit]],
        // Claims of runs due before the cutoff are no longer needed to keep a run single.
        ['DELETE FROM run_claims WHERE ctid IN (SELECT ctid FROM run_claims WHERE due_ms < $1 LIMIT $2)', [beforeMs, limit]],
      ],
    });
    const n = r.counts[0];
    if (n > 0) {
      this.call({ op: 'tx', statements: [bumpVersion(kind)] });
      this.versionMemo = undefined;
      this.committed([kind]);
    }
    return n;
  }

  /**
   * Where the runs of a scheduling plan (`plan`: period and offset) of a check fall: the first
   * instance to see it sets the anchor (`proposedMs`), the others take it; returns the first due
   * time at or after `nowMs` on that grid.
   */
  runAnchor(account: string, checkId: string, plan: string, proposedMs: number, periodMs: number, nowMs: number): number {
    const select: [string, unknown[]] = ['SELECT anchor_ms FROM run_plans WHERE account = $1 AND check_id = $2 AND plan = $3', [enc(account), enc(checkId), plan]];
    // Read first: a plan already set (every restart, every other instance) costs no write.
    let rows = this.query1(...select);
    if (rows.length === 0) {
      rows = this.call({
        op: 'tx',
        statements: [['INSERT INTO run_plans (account, check_id, plan, anchor_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [enc(account), enc(checkId), plan, proposedMs]], select],
      }).rows[1];
    }
    const anchor = Number(rows[0][0]);
    if (nowMs <= anchor || periodMs <= 0) return Math.max(anchor, periodMs <= 0 ? nowMs : anchor);
    return anchor + Math.ceil((nowMs - anchor) / periodMs) * periodMs;
  }

  /**
   * Claims due runs in a transaction left open (the worker's `hold`), in one order (no deadlock
   * between instances claiming overlapping sets); `granted` tells, in the order asked, which
   * this instance inserted. The hold's `commit(entries)` writes a batch (commitMany's statements)
   * in that transaction and commits it with the claims; `rollback()` ends it with nothing written.
   * Until then another instance's claim of the same due time waits for the outcome (the row is
   * locked), and gets it when the claim rolls back or this process dies. Nothing asynchronous
   * may run in between: the rows stay locked until the hold is released.
   */
  holdClaims(claims: readonly RunClaim[]): ClaimHold {
    const statements = claimStatements(claims, this.instance);
    let answer: { rows: Row[][] };
    try {
      answer = this.call({ op: 'hold', statements });
    } catch (err) {
      // A call that timed out may still be held by the worker: released after it.
      this.abandonHold();
      throw err;
    }
    const granted = grantedClaims(claims, answer.rows);
    let open = true;
    return {
      granted,
      commit: (entries) => {
        if (!open) throw new Error('the claims were released already');
        open = false;
        const { statements: batch, reclaimed, kinds } = this.batch(entries);
        let r: { rows: Row[][] };
        try {
          r = this.call({ op: 'release', statements: batch, commit: true });
        } catch (err) {
          this.abandonHold();
          throw err;
        }
        this.versionMemo = undefined;
        this.committed(kinds);
        this.reportTakenClaims(reclaimed.flatMap((i) => r.rows[i]));
      },
      rollback: () => {
        if (!open) return;
        open = false;
        this.abandonHold();
      },
    };
  }

  /**
   * Asks the worker to roll back the held transaction, without waiting: it answers requests in
   * order, so whatever this thread asks next runs after the rollback (and `call` skips the answer).
   */
  private abandonHold(): void {
    if (this.closed) return;
    this.port.postMessage({ op: 'release', statements: [], commit: false, id: this.nextId++ } satisfies PgRequest);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.reader?.close();
    try {
      this.call({ op: 'close' }, 5_000);
    } catch {
      // The worker ends with the process anyway.
    }
    // Requests still unanswered (the worker did not answer the close either) will never be.
    for (const [id, waiting] of this.sent) {
      this.sent.delete(id);
      waiting.settle(new Error('the PostgreSQL store is closed'));
    }
    void this.worker.terminate();
    this.port.close();
  }

  /** Runs one statement; its rows as arrays. */
  private query1(sql: string, params: unknown[]): Row[] {
    return this.call({ op: 'query', sql, params }).rows[0];
  }

  /** Sends a request to the worker and blocks until it answers. */
  private call(req: Request, timeoutMs = CALL_TIMEOUT_MS): { rows: Row[][]; counts: number[] } {
    if (this.closed && req.op !== 'close') throw new Error('the PostgreSQL store is closed');
    const id = this.nextId++;
    this.port.postMessage({ ...req, id });
    const deadline = Date.now() + timeoutMs;
    const slot = req.op === 'peek' ? 1 : 0;
    for (;;) {
      const seen = Atomics.load(this.done, slot);
      if (seen !== id) {
        const left = deadline - Date.now();
        if (left <= 0) throw this.failed(req, new Error(`PostgreSQL did not answer within ${timeoutMs / 1000} s`));
        Atomics.wait(this.done, slot, seen, left);
        continue;
      }
      // Answers of requests sent without waiting, and of calls that timed out earlier, come
      // first: the former are settled, the latter skipped.
      for (;;) {
        const msg = receiveMessageOnPort(this.port)?.message as PgAnswer | undefined;
        if (!msg) throw new Error('PostgreSQL worker answered nothing');
        if (msg.id !== id) {
          this.answered(msg);
          continue;
        }
        if ('error' in msg) throw this.failed(req, Object.assign(new Error(msg.error), { code: msg.code, version: msg.version }));
        this.available();
        return msg as { rows: Row[][]; counts: number[] };
      }
    }
  }

  /**
   * Sends a request to the worker without waiting: the promise settles when the answer is in
   * (or after `timeoutMs`, as a call times out). The worker answers requests in order on one
   * connection, so a synchronous call made after this one runs after it in the database.
   */
  private send(req: Request, timeoutMs = CALL_TIMEOUT_MS): Promise<{ rows: Row[][]; counts: number[] }> {
    return new Promise((resolve, reject) => this.dispatch(req, (r) => (r instanceof Error ? reject(r) : resolve(r)), timeoutMs));
  }

  /**
   * `send` with a callback instead of a promise: `onAnswer` runs as soon as the answer is taken
   * from the port (by the listener, or synchronously inside a later call or `settleSent`), with
   * the rows or the error (mapped as a call's).
   */
  private dispatch(req: Request, onAnswer: (r: { rows: Row[][]; counts: number[] } | Error) => void, timeoutMs = CALL_TIMEOUT_MS): void {
    if (this.closed) {
      onAnswer(new Error('the PostgreSQL store is closed'));
      return;
    }
    const id = this.nextId++;
    const timer = setTimeout(() => {
      if (!this.sent.delete(id)) return;
      this.track();
      onAnswer(this.failed(req, new Error(`PostgreSQL did not answer within ${timeoutMs / 1000} s`)));
    }, timeoutMs).unref();
    this.sent.set(id, {
      req,
      settle: (answer) => {
        clearTimeout(timer);
        if (answer instanceof Error) return onAnswer(answer);
        if ('error' in answer) return onAnswer(this.failed(req, Object.assign(new Error(answer.error), { code: answer.code, version: answer.version })));
        this.available();
        onAnswer(answer as { rows: Row[][]; counts: number[] });
      },
    });
    this.track();
    this.port.postMessage({ ...req, id });
  }

  /** An answer of a request sent without waiting settles it; answers of calls that timed out are dropped. */
  private answered(msg: PgAnswer): void {
    const waiting = this.sent.get(msg.id);
    if (!waiting) return;
    this.sent.delete(msg.id);
    this.track();
    waiting.settle(msg);
  }

  /**
   * The port keeps the process alive while a request sent without waiting is under way, and only
   * then: its answer may be all that a stop awaits (the scheduler's claims under way, whose sessions
   * are then waited for and their writes flushed at close). Unref'd throughout, a stop that awaited
   * a claim's answer with nothing else pending let the process exit before it came, and before the
   * store closed: the sessions' ends still pending were lost, their openings (PROGRESS) stored.
   * Bounded: each request fails after its timeout.
   */
  private track(): void {
    if (this.closed) return;
    if (this.sent.size > 0) this.port.ref();
    else this.port.unref();
  }

  /**
   * Blocks until every request sent without waiting is answered (their promises then settle in
   * the next microtasks): one synchronous call, answered after them (the worker keeps the order).
   */
  settleSent(): void {
    if (this.sent.size === 0 || this.closed) return;
    takeAnswersUpTo<PgAnswer>(this.done, Math.max(...this.sent.keys()), CALL_TIMEOUT_MS, this.port, (a) => this.answered(a));
  }

  /**
   * The error a failed call throws: DatabaseUnavailable when PostgreSQL could not answer (no
   * connection, shutting down or starting, a statement or call timeout), reported once per outage
   * on stderr; any other error as it is. The open keeps its errors (StateError at start).
   */
  private failed(req: Request, err: Error & { code?: string }): Error {
    const taken = err.code === '22P02' ? new RegExp(`"${UNIQUE_TAKEN}(\\d+):`).exec(err.message) : null;
    if (taken) return new UniqueTaken(Number(taken[1]));
    const stale = err.code === '22P02' ? new RegExp(`"${STALE_WRITE}(\\d+):`).exec(err.message) : null;
    if (stale) return new StaleWrite(Number(stale[1]));
    if (req.op === 'open' || req.op === 'close' || !isUnavailable(err)) return err;
    if (!this.down) {
      this.down = true;
      process.stderr.write(`mac serve: PostgreSQL is unavailable (${err.message}); requests that need it answer 503, the scheduler and the retention wait until it is back\n`);
    }
    return new DatabaseUnavailable(err.message);
  }

  /** After an outage, the first answered call reports the recovery. */
  private available(): void {
    if (!this.down) return;
    this.down = false;
    process.stderr.write('mac serve: PostgreSQL is available again\n');
  }

  private versions(): Map<string, number> {
    if (this.versionMemo) return this.versionMemo;
    // Read at once, not after the batches sent without waiting (group commits of run data, claims):
    // every commit of configuration is synchronous, so this read sees all of this instance's;
    // the versions of run data under way may be the ones before them (a version read before a
    // write, as a cache keyed on it expects, never after).
    const rows = this.call({ op: 'peek', sql: 'SELECT kind, value FROM versions ORDER BY kind', params: [] }).rows[0];
    this.versionMemo = new Map(rows.map((r) => [r[0] as string, Number(r[1])]));
    // Valid for the rest of this turn of the event loop: what other instances commit meanwhile is
    // read by the next request, the next tick of the scheduler.
    setImmediate(() => (this.versionMemo = undefined)).unref();
    return this.versionMemo;
  }

  private configOf(account: string, kind: string): { entries: Array<[string, StoredRecord]>; byId: Map<string, StoredRecord> } {
    return this.configAt(account, kind, this.version(kind));
  }

  /** The configuration entries of a kind, read again unless those held were read at `version`. */
  private configAt(account: string, kind: string, version: number): { entries: Array<[string, StoredRecord]>; byId: Map<string, StoredRecord> } {
    const key = `${account}\u0000${kind}`;
    const hit = this.config.get(key);
    // Entries read at a later version serve a read as of an earlier one (a followed version lags).
    if (hit && hit.version >= version) return hit;
    const entries = this.query1('SELECT id, data FROM records WHERE account = $1 AND kind = $2 ORDER BY seq', [enc(account), kind]).map(
      (r) => [dec(r[0] as string), JSON.parse(r[1] as string) as StoredRecord] as [string, StoredRecord],
    );
    const entry = { version, entries, byId: new Map(entries) };
    this.config.set(key, entry);
    return entry;
  }

  private configQuery(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    const all = q.order === 'created-desc' ? [...this.configOf(account, kind).entries].reverse() : this.configOf(account, kind).entries;
    const start = q.offset ?? 0;
    return all.slice(start, q.limit === undefined ? undefined : start + q.limit);
  }

  private where(account: string, kind: string, q: RecordQuery): { where: string; args: unknown[] } {
    const parts = ['account = $1', 'kind = $2'];
    const args: unknown[] = [enc(account), kind];
    const add = (sql: string, v: unknown) => {
      args.push(v);
      parts.push(sql.replace('?', `$${args.length}`));
    };
    if (q.checkId !== undefined) add('check_id = ?', enc(q.checkId));
    if (q.fromMs !== undefined) add('at >= ?', q.fromMs);
    if (q.toMs !== undefined) add('at <= ?', q.toMs);
    const spec = this.indexed[kind];
    if (spec && q.where && q.where.length > 0) {
      parts.push(
        ...figureConditions(spec, q.where, (v) => {
          args.push(v);
          return `$${args.length}`;
        }),
      );
    }
    return { where: parts.join(' AND '), args };
  }
}

/** The statements of a hold of claims: inserts in one order (no deadlock between instances claiming overlapping sets), answering the rows this instance inserted. */
function claimStatements(claims: readonly RunClaim[], instance: string): Array<[string, unknown[]]> {
  return chunks(sortClaims(claims), 1000).map((chunk): [string, unknown[]] => {
    const { sql, params } = claimInsert(chunk, instance, 'ON CONFLICT DO NOTHING RETURNING account, check_id, due_ms');
    return [sql, params];
  });
}

/** Which of `claims`, in the order asked, the hold's answer says this instance inserted. */
function grantedClaims(claims: readonly RunClaim[], rows: Row[][]): boolean[] {
  const keyOf = (account: string, checkId: string, dueMs: number) => `${account}\u0000${checkId}\u0000${dueMs}`;
  const inserted = new Set(rows.flat().map((r) => keyOf(r[0] as string, r[1] as string, Number(r[2]))));
  return claims.map((c) => inserted.has(keyOf(enc(c.account), enc(c.checkId), Math.round(c.dueMs))));
}

/**
 * Text columns cannot hold U+0000, which ids may contain (a variable's key): `\` and U+0000 are
 * escaped in account, id and check id, and unescaped when ids are read back.
 */
export function enc(s: string): string;
export function enc(s: string | null): string | null;
export function enc(s: string | null): string | null {
  return s === null || !/[\\\u0000]/.test(s) ? s : s.replace(/[\\\u0000]/g, (c) => (c === '\\' ? '\\\\' : '\\0'));
}

export function dec(s: string): string {
  return s.includes('\\') ? s.replace(/\\([\\0])/g, (_, c: string) => (c === '0' ? '\u0000' : '\\')) : s;
}

/**
 * Errors of PostgreSQL being out of reach rather than of the statement: connection errors (no
 * code: connection ended or timed out; 08xxx; node's ECONNREFUSED and the like), the server
 * shutting down or starting (57P0x), a statement timeout (57014), too many connections (53300).
 */
function isUnavailable(err: { code?: string; message?: string }): boolean {
  const code = err.code;
  return code === undefined || code.startsWith('08') || code.startsWith('57P') || code === '57014' || code === '53300' || /^E[A-Z]+$/.test(code);
}

/** Advisory locks of uniqueness rules: `pg_advisory_xact_lock(UNIQUE_LOCK_CLASS, hashtext(key))`. */
const UNIQUE_LOCK_CLASS = 7263;
/** Marks the error of a uniqueness rule found broken inside a commit (see uniqueChecks). */
const UNIQUE_TAKEN = 'mac_unique_taken:';

/**
 * Statements that re-check a commit's uniqueness rules (`entry.u`) first in its transaction: an
 * advisory lock per rule's key (taken in one order, before any row lock, so no deadlock), then
 * per rule a read of whether another record holds the value. Under READ COMMITTED that read sees
 * every commit of the same key made before the lock was granted (another instance's commit
 * holds the lock until it commits). A record found makes the statement fail, which rolls the
 * transaction back: casting `mac_unique_taken:INDEX:ID` to an integer fails (22P02) on a found row
 * only, and `failed` turns that error into UniqueTaken(INDEX).
 */
function uniqueChecks(entry: StoreCommit): Array<[string, unknown[]]> {
  const keys = (entry.u ?? []).map((key, index) => ({ key, index, lock: JSON.stringify(key.slice(0, 3)) }));
  if (keys.length === 0) return [];
  keys.sort((x, y) => (x.lock < y.lock ? -1 : x.lock > y.lock ? 1 : 0));
  const out: Array<[string, unknown[]]> = keys.map(({ lock }) => ['SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [UNIQUE_LOCK_CLASS, lock]]);
  for (const { key, index } of keys) {
    const [kind, field, value, except] = key;
    out.push([
      `SELECT ('${UNIQUE_TAKEN}' || $1::text || ':' || id)::int FROM records
       WHERE kind = $2 AND at IS NULL AND NOT (account = $5 AND id IS NOT DISTINCT FROM $6::text)
         AND CASE WHEN strpos(data, $7::text) = 0 THEN false WHEN strpos(data, '\\u0000') > 0 THEN true ELSE data::json ->> $3::text = $4::text END
       LIMIT 1`,
      // Records are JSON.stringify'd: only those holding the pair as written are parsed. PostgreSQL
      // cannot turn a JSON text with \u0000 into text, and one such record (a fuzzed dashboard)
      // made every later commit of the kind fail; such a record holding the pair counts as taken.
      [String(index), kind, field, value, enc(entry.a ?? ''), except === null ? null : enc(except), `${JSON.stringify(field)}:${JSON.stringify(value)}`],
    ]);
  }
  return out;
}

/** Advisory locks of compare-and-set expectations: `pg_advisory_xact_lock(REVISION_LOCK_CLASS, hashtext(key))`. */
const REVISION_LOCK_CLASS = 7264;
/** Marks the error of a compare-and-set expectation found broken inside a commit (see revisionChecks). */
const STALE_WRITE = 'mac_stale_write:';

/**
 * Statements that check a commit's compare-and-set expectations (`entry.e`) in its transaction:
 * an advisory lock per record's key (in one order, after the uniqueness locks and before any row
 * lock: no deadlock), then per expectation a read of the record's revision. The lock is held to
 * the end of the transaction, and another instance's commit of the same record holds it until that
 * commit ends: under READ COMMITTED the read after the lock sees every such commit, including the
 * insert of a record that was absent (which a row lock could not cover). A revision other than the
 * expected one makes the statement fail, which rolls the transaction back: casting
 * `mac_stale_write:INDEX:REV` to an integer fails (22P02), and `failed` turns that into
 * StaleWrite(INDEX).
 */
function revisionChecks(entry: StoreCommit): Array<[string, unknown[]]> {
  const account = enc(entry.a ?? '');
  const keys = (entry.e ?? []).map(([kind, id, rev], index) => ({ kind, id: enc(id), rev, index, lock: JSON.stringify([account, kind, enc(id)]) }));
  if (keys.length === 0) return [];
  keys.sort((x, y) => (x.lock < y.lock ? -1 : x.lock > y.lock ? 1 : 0));
  const out: Array<[string, unknown[]]> = [];
  for (const { lock } of keys) if (out.at(-1)?.[1][1] !== lock) out.push(['SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [REVISION_LOCK_CLASS, lock]]);
  for (const { kind, id, rev, index } of keys) {
    out.push([
      `SELECT ('${STALE_WRITE}' || $1::text || ':' || found.rev)::int
         FROM (SELECT COALESCE((SELECT CASE WHEN json_typeof(data::json -> 'rev') = 'number' THEN (data::json ->> 'rev')::numeric END
                                  FROM records WHERE account = $2 AND kind = $3 AND id = $4), 0) AS rev) found
        WHERE found.rev <> $5::numeric`,
      [String(index), account, kind, id, rev],
    ]);
  }
  return out;
}

/** Claims in one order (account, check, due time): every instance locks their rows in that order. */
function sortClaims(claims: readonly RunClaim[]): RunClaim[] {
  const key = (c: RunClaim) => [c.account, c.checkId] as const;
  return [...claims].sort((x, y) => {
    const [xa, xc] = key(x);
    const [ya, yc] = key(y);
    return xa < ya ? -1 : xa > ya ? 1 : xc < yc ? -1 : xc > yc ? 1 : x.dueMs - y.dueMs;
  });
}

/** One multi-row INSERT of claims (4 parameters a row: at most 16,383 rows) followed by `tail`. */
function claimInsert(claims: readonly RunClaim[], instance: string, tail: string): { sql: string; params: unknown[] } {
  const values = claims.map((_, r) => `($${r * 4 + 1}, $${r * 4 + 2}, $${r * 4 + 3}, $${r * 4 + 4})`).join(', ');
  const params = claims.flatMap((c) => [enc(c.account), enc(c.checkId), Math.round(c.dueMs), instance]);
  return { sql: `INSERT INTO run_claims (account, check_id, due_ms, instance) VALUES ${values} ${tail}`, params };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function bumpVersion(kind: string): [string, unknown[]] {
  return ['INSERT INTO versions (kind, value) VALUES ($1, 1) ON CONFLICT (kind) DO UPDATE SET value = versions.value + 1', [kind]];
}

/** A dot path as a path of PostgreSQL's `#>`: `'{"a","b"}'`. */
function pgPath(keys: readonly string[]): string {
  return pgString(`{${keys.map((k) => `"${k.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`);
}

/** The columns a put writes, and what an existing record of the same key keeps (its `seq`). */
const PUT_COLUMNS = ['account', 'kind', 'id', 'check_id', 'at', 'data', ...FIGURE_COLUMNS];
const ON_PUT_CONFLICT = `ON CONFLICT (account, kind, id) DO UPDATE SET summary = NULL, ${PUT_COLUMNS.slice(3).map((c) => `${c} = excluded.${c}`).join(', ')}`;

/** The reduction of aggregate.ts spelled for PostgreSQL. */
const PG_AGGREGATE: AggregateDialect = {
  param: (i) => `$${i}`,
  bucket: (from, width) => `((at - ${from}::bigint) / ${width}::bigint)`,
  list: (column) => `string_agg(${column}::text, ',')`,
};

function pgString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The worker's built module (see workerModule). */
function workerUrl(): URL {
  const url = workerModule('server/store/postgres-worker.js');
  if (url) return url;
  throw new StateError('the PostgreSQL store needs its worker module (dist/server/store/postgres-worker.js)', 'run npm run build');
}

/** Rows of a reduction as the checks are named outside the database (a reduction of several checks answers their stored names). */
function namedRows(rows: AggregateRow[]): AggregateRow[] {
  for (const r of rows) if (r.checkId !== undefined) r.checkId = dec(r.checkId);
  return rows;
}

/** Cells as the checks are named outside the database (a query of several checks answers their stored names). */
function named(cells: RollupCell[]): RollupCell[] {
  for (const c of cells) if (c.checkId !== undefined) c.checkId = dec(c.checkId);
  return cells;
}

/** The cells of one check over ranges (rollup.ts); the histogram as JSON text. */
function pgRollupSql(account: string, kind: string, q: RollupQuery): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  const sql = rollupSelect(q, { account: enc(account), kind, checkId: enc(q.checkId), checkIds: q.checkIds?.map((id) => enc(id)) }, (v) => {
    args.push(v);
    return `$${args.length}`;
  }, 'hist::text');
  return { sql, args };
}

/**
 * The cells of rollup.ts on PostgreSQL: the table, functions of the histogram (its bucket, the sum
 * of two), the cells of the results already stored (one statement), and statement triggers with
 * transition tables that keep the cells in the transaction of every insert, update and delete of
 * results: one upsert per cell a statement touches, whatever its number of rows.
 */
function pgRollupMigration(): string {
  const spans = ROLLUP_SPANS.map((s) => `(${s}::bigint)`).join(', ');
  // Per cell (and bucket first) of a set of rows: what the cells add up.
  const cellsOf = (from: string) => `SELECT account, kind, check_id, span, start, sum(runs)::bigint AS runs, sum(s0) AS s0, sum(s1) AS s1, sum(s2) AS s2,
         sum(vn)::bigint AS vn, sum(vsum) AS vsum, sum(vsq) AS vsq, min(vmin) AS vmin, max(vmax) AS vmax,
         coalesce(jsonb_object_agg(b::text, vn) FILTER (WHERE b IS NOT NULL), '{}'::jsonb) AS hist
       FROM (SELECT r.account, r.kind, r.check_id, sp.span, (r.at / sp.span) * sp.span AS start, mac_rollup_bucket(r.n2) AS b,
                    count(r.n0) AS runs, coalesce(sum(r.n0), 0) AS s0, coalesce(sum(r.n13), 0) AS s1, coalesce(sum(r.n14), 0) AS s2,
                    count(r.n2) AS vn, coalesce(sum(r.n2), 0) AS vsum, coalesce(sum(r.n2 * r.n2), 0) AS vsq, min(r.n2) AS vmin, max(r.n2) AS vmax
             FROM ${from} r, (VALUES ${spans}) sp(span)
             WHERE r.kind = '${ROLLUP_KIND}' AND r.k0 = '"FINAL"' AND r.check_id IS NOT NULL AND r.at IS NOT NULL
             GROUP BY 1, 2, 3, 4, 5, 6) g
       GROUP BY account, kind, check_id, span, start`;
  const add = (from: string) => `INSERT INTO rollups (account, kind, check_id, span, start, runs, s0, s1, s2, vn, vsum, vsq, vmin, vmax, hist)
       ${cellsOf(from)}
       ON CONFLICT (account, kind, check_id, span, start) DO UPDATE SET
         runs = rollups.runs + excluded.runs, s0 = rollups.s0 + excluded.s0, s1 = rollups.s1 + excluded.s1, s2 = rollups.s2 + excluded.s2,
         vn = rollups.vn + excluded.vn, vsum = rollups.vsum + excluded.vsum, vsq = rollups.vsq + excluded.vsq,
         vmin = least(rollups.vmin, excluded.vmin), vmax = greatest(rollups.vmax, excluded.vmax), hist = mac_hist_add(rollups.hist, excluded.hist, 1)`;
  // Rows taken out: subtracted, empty cells go. A cell whose minimum's (maximum's) bucket is now
  // empty takes the lower (upper) bound of its lowest (highest) bucket left, as on SQLite
  // (rollup.ts takenOut): within one bucket of the exact value, without reading its results.
  const bound = (i: string) => `(SELECT t FROM unnest('{${HISTOGRAM_THRESHOLDS.join(',')}}'::float8[]) WITH ORDINALITY AS b(t, i) WHERE b.i = ${i})`;
  const sub = (from: string) => `WITH d AS (${cellsOf(from)})
       UPDATE rollups c SET runs = c.runs - d.runs, s0 = c.s0 - d.s0, s1 = c.s1 - d.s1, s2 = c.s2 - d.s2,
         vn = c.vn - d.vn, vsum = c.vsum - d.vsum, vsq = c.vsq - d.vsq, hist = mac_hist_add(c.hist, d.hist, -1)
       FROM d WHERE c.account = d.account AND c.kind = d.kind AND c.check_id = d.check_id AND c.span = d.span AND c.start = d.start;
     WITH d AS (${cellsOf(from)})
       UPDATE rollups c SET
         vmin = CASE WHEN c.vmin IS NULL OR c.hist ? mac_rollup_bucket(c.vmin)::text THEN c.vmin ELSE coalesce(${bound('(SELECT min(k::int) FROM jsonb_object_keys(c.hist) k)')}, c.vmin) END,
         vmax = CASE WHEN c.vmax IS NULL OR c.hist ? mac_rollup_bucket(c.vmax)::text THEN c.vmax ELSE coalesce(${bound('(SELECT max(k::int) FROM jsonb_object_keys(c.hist) k) + 1')}, c.vmax) END
       FROM d WHERE c.account = d.account AND c.kind = d.kind AND c.check_id = d.check_id AND c.span = d.span AND c.start = d.start;
     DELETE FROM rollups c USING (SELECT DISTINCT r.account, r.kind, r.check_id FROM ${from} r WHERE r.kind = '${ROLLUP_KIND}') d
       WHERE c.account = d.account AND c.kind = d.kind AND c.check_id = d.check_id AND c.runs <= 0 AND c.vn <= 0`;
  return `CREATE TABLE rollups (
     account text NOT NULL, kind text NOT NULL, check_id text NOT NULL, span bigint NOT NULL, start bigint NOT NULL,
     runs bigint NOT NULL, s0 float8 NOT NULL, s1 float8 NOT NULL, s2 float8 NOT NULL,
     vn bigint NOT NULL, vsum float8 NOT NULL, vsq float8 NOT NULL, vmin float8, vmax float8, hist jsonb NOT NULL,
     PRIMARY KEY (account, kind, check_id, span, start)
   );
   CREATE FUNCTION mac_rollup_bucket(v float8) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
     $$ SELECT CASE WHEN v IS NULL THEN NULL ELSE width_bucket(v, '{${HISTOGRAM_THRESHOLDS.join(',')}}'::float8[]) END $$;
   CREATE FUNCTION mac_hist_add(a jsonb, b jsonb, sign integer) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
     $$ SELECT coalesce(jsonb_object_agg(k, c), '{}'::jsonb) FROM (
          SELECT k, sum(c) AS c FROM (SELECT key AS k, value::bigint AS c FROM jsonb_each_text(a) UNION ALL SELECT key, sign * value::bigint FROM jsonb_each_text(b)) x
          GROUP BY k) y WHERE c <> 0 $$;
   ${add('records')};
   CREATE FUNCTION mac_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     ${add('new_rows')};
     RETURN NULL; END $$;
   CREATE FUNCTION mac_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     ${sub('old_rows')};
     RETURN NULL; END $$;
   CREATE FUNCTION mac_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     ${sub('old_rows')};
     ${add('new_rows')};
     RETURN NULL; END $$;
   CREATE TRIGGER records_rollup_insert AFTER INSERT ON records REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mac_rollup_insert();
   CREATE TRIGGER records_rollup_delete AFTER DELETE ON records REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mac_rollup_delete();
   CREATE TRIGGER records_rollup_update AFTER UPDATE ON records REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mac_rollup_update()`;
}
