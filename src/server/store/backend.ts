/**
 * What a place that keeps the service's records must do: the memory maps (memory.ts) and the
 * SQLite database (sqlite.ts) implement it alike, and `Store` (store.ts) talks only to this.
 */

import type { AggregateQuery, AggregateRow, FigureFilter } from './aggregate.js';
import type { RollupCell, RollupQuery } from './rollup.js';

/** A stored record: a plain JSON object, never mutated once stored (writers put a new object). */
export type StoredRecord = Record<string, unknown>;

/** A put or a delete of one record, or the delete of every record of a kind that names a check. */
export type StoreOp = ['p', string, string, unknown] | ['d', string, string] | ['x', string, string];

/** One committed write: the account it touched, counter values after it, and its operations. */
export interface StoreCommit {
  /** Account of the operations (absent on a counters-only commit). */
  a?: string;
  /** Id counters per kind after this write. */
  c?: Record<string, number>;
  /** Operations in order. */
  o?: StoreOp[];
  /**
   * Service-wide uniqueness rules the commit re-checks inside the database transaction (shared
   * databases; one instance checks them in the same tick before committing).
   */
  u?: UniqueKey[];
  /**
   * Claims of due runs taken again with this commit (shared databases): the claims of sessions
   * started under a claim whose transaction rolled back (see Store.claimRuns).
   */
  r?: RunClaim[];
  /**
   * Compare-and-set expectations: `[kind, id, rev]`, each a record of the commit's account that
   * must still have revision `rev` (its `rev` field; 0 for a record absent or without one). The
   * commit checks them inside its transaction, before any write, and throws StaleWrite (nothing
   * applied) when one fails. On a shared database the check holds a lock of the record's key until
   * the commit ends, so two instances' writes of one record are serialised.
   */
  e?: ExpectedRevision[];
}

/** `[kind, id, rev]`: a record expected at revision `rev` by a commit (StoreCommit.e). */
export type ExpectedRevision = [string, string, number];

/** The revision of a record as compare-and-set reads it: its `rev` field, 0 when absent or missing. */
export function revisionOf(rec: object | null | undefined): number {
  const rev = rec ? (rec as { rev?: unknown }).rev : undefined;
  return typeof rev === 'number' && Number.isSafeInteger(rev) ? rev : 0;
}

/** The run of a check due at `dueMs` (epoch ms), as claimed by one instance of several. */
export interface RunClaim {
  account: string;
  checkId: string;
  dueMs: number;
}

/** Claims held in an open transaction (Backend.holdClaims). */
export interface ClaimHold {
  /** Per claim asked, in order: whether this instance took it. */
  readonly granted: boolean[];
  /** Writes `entries` (as commitMany) in the transaction and commits it with the claims; on failure nothing of either is written, and it throws. */
  commit(entries: readonly StoreCommit[]): void;
  /** Rolls the claims back (nothing written); a no-op once committed. */
  rollback(): void;
}

/** Claims held in an open transaction, released without waiting (Backend.holdClaimsAsync). */
export interface AsyncClaimHold {
  readonly granted: boolean[];
  commit(entries: readonly StoreCommit[], done: (error?: unknown) => void): void;
  rollback(): void;
}

/**
 * `[kind, field, value, except]`: no record of `kind` in any account but `except` (an id in the
 * commit's account) may hold the string `value` in its top-level `field`.
 */
export type UniqueKey = [string, string, string, string | null];

/**
 * Kinds indexed by check and time: run data, read by queries instead of being held whole. `check`
 * and `time` name the record fields (time: an ISO timestamp); `expires` kinds are deleted by the
 * retention once their time is older than the retention period. `figures` are kept in typed
 * columns beside the record, for reductions in the database.
 */
export type IndexedKinds = Readonly<Record<string, IndexedKind>>;

/** How one kind of run data is indexed. */
export interface IndexedKind {
  check: string;
  time: string;
  expires: boolean;
  /**
   * Records of this kind are also changed by API writes (an error group's archive), so on a
   * database shared by several instances they are read from it once written, never from this
   * instance's memory of what it recorded.
   */
  editable?: boolean;
  /**
   * Values also kept in typed columns, for reductions in the database (aggregate.ts): `numbers`
   * (numbers, booleans as 1 and 0; at most FIGURE_NUMBERS) and `keys` (compared and grouped by
   * their JSON text; at most FIGURE_KEYS). Dot paths, or names of `derived`.
   */
  figures?: {
    numbers: readonly string[];
    keys: readonly string[];
    /**
     * Figures read by a function of the record instead of a path (a value kept inside a JSON
     * text of the record, such as an ICMP result's packet loss): named in `numbers` or `keys`
     * by their key here. A migration that adds one fills its column the same way in SQL.
     */
    derived?: Readonly<Record<string, (record: StoredRecord) => unknown>>;
  };
  /**
   * Records whose top-level `field` holds one of `values` are never expired (an alert
   * notification not yet delivered outlives the retention period).
   */
  keepWhile?: { field: string; values: readonly string[] };
}

/**
 * Kinds leased by check value (`Backend.lease` with `only`: one private location's queued runs):
 * the database stores keep a partial index of them by (check, time), so that a lease reads the
 * rows it takes, not the queue of every other value. The kind is named in the index's condition
 * and, as a literal, in the lease's query (a partial index serves only a query naming its condition).
 */
export const QUEUE_KINDS: readonly string[] = ['privateLocationRuns'];

/** A record taken by `Backend.lease`. */
export interface LeasedRecord {
  account: string;
  id: string;
  record: StoredRecord;
}

/** A query of an indexed kind in one account. Times are inclusive epoch ms. */
export interface RecordQuery {
  checkId?: string;
  fromMs?: number;
  toMs?: number;
  /**
   * `time-desc`: newest time first, equal times newest created first; `created-desc`: newest
   * created first; `created` (default): creation order.
   */
  order?: 'time-desc' | 'created-desc' | 'created';
  /**
   * Only records whose figures (IndexedKind.figures) pass these filters, compared in the database
   * on the figure columns (e.g. FINAL results of one location that failed).
   */
  where?: readonly FigureFilter[];
  /** At most this many records. Required on run data: Store refuses a read without it (MAX_RUN_READ). */
  limit?: number;
  offset?: number;
  /**
   * Only these fields of each record (dot paths, e.g. `apiCheckResult.response.status`), for
   * reads that need a few fields of many records; missing and null fields are left out.
   */
  fields?: readonly string[];
}

/** The storage under a `Store`. Every method is synchronous; `commit` is durable when it returns. */
export interface Backend {
  get(account: string, kind: string, id: string): StoredRecord | undefined;
  /** `[id, record]` of a kind in an account, creation order. */
  entries(account: string, kind: string): Array<[string, StoredRecord]>;
  count(account: string, kind: string): number;
  everywhere(kind: string): Iterable<{ account: string; record: StoredRecord }>;
  /** Accounts holding configuration (every account that has any check does). */
  accountIds(): string[];
  counter(kind: string): number;
  /** `[id, record]` of an indexed kind matching the query. */
  query(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]>;
  /** How many records of an indexed kind match the query (limit and offset ignored). */
  countQuery(account: string, kind: string, q: RecordQuery): number;
  /** The reduction of one check's records of an indexed kind by group and time bucket (aggregate.ts). */
  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[];
  /**
   * `query` and `aggregate` answered off the main thread (database backends: reader.ts), for the
   * heavy reads of run data (public pages, their data, badges): the caller awaits, the event loop
   * goes on. They read what is committed (not a transaction open on this thread). Absent: the
   * store answers them with the synchronous reads (the memory maps answer at once).
   */
  queryAsync?(account: string, kind: string, q: RecordQuery): Promise<Array<[string, StoredRecord]>>;
  aggregateAsync?(account: string, kind: string, q: AggregateQuery): Promise<AggregateRow[]>;
  /** Starts what answers the asynchronous reads (a thread and its connections) ahead of the first read; never rejects. */
  warmReads?(): Promise<void>;
  /**
   * The cells of one check's results per hour and day (rollup.ts), kept in the transaction of
   * every write of a result. Absent: the figures are reduced from the results themselves.
   */
  rollups?(account: string, kind: string, q: RollupQuery): RollupCell[];
  rollupsAsync?(account: string, kind: string, q: RollupQuery): Promise<RollupCell[]>;
  /** Applies a commit atomically and durably, or throws with nothing applied. */
  commit(entry: StoreCommit): void;
  /** Applies several commits, in order, as one atomic and durable transaction (the store's group commit). */
  commitMany(entries: readonly StoreCommit[]): void;
  /**
   * `commitMany` without holding the caller (a database in another thread): `done()` once the
   * transaction committed, `done(error)` with nothing of it written; called as soon as the answer
   * is in, possibly inside a later synchronous call of the backend. Every synchronous call made
   * after it is answered after it (reads see it). `settleSent` blocks until every request sent
   * so is answered (their `done` called).
   */
  commitManyAsync?(entries: readonly StoreCommit[], done: (error?: unknown) => void): void;
  settleSent?(): void;
  /**
   * Starts what `commitManyAsync` sends to (SQLite's writer thread) and resolves once it is ready;
   * until then `commitManyAsync` writes at once, as `commitMany`.
   */
  writerStarted?(): Promise<void>;
  /**
   * Whether a synchronous read made after `commitManyAsync` sees the batch even before it is
   * answered (true: one connection answering in order, PostgreSQL's; false: another connection,
   * SQLite's writer thread, so a read of a kind under way waits for the batch first).
   */
  readonly readsSeeSent?: boolean;
  /**
   * Takes at most `limit` records of an indexed kind (any account) whose time is at or before
   * `nowMs`, the longest due first, and moves their time to `untilMs` in the same atomic statement
   * (the record's time field too): a lease. Another caller, on this instance or another one on the
   * same database, cannot take them until `untilMs`, when they are due again unless the holder
   * wrote or deleted them meanwhile. The persisted queues (alert notifications, mails) use it.
   * With `only`, just the records whose check field holds that value (one private location's runs).
   */
  lease(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): LeasedRecord[];
  /** `lease` without holding the caller (a database in another thread); absent: `lease` answers. */
  leaseAsync?(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): Promise<LeasedRecord[]>;
  /** Deletes at most `limit` records of `kind` (any account) whose time is before `beforeMs` (but those `keepWhile` keeps); returns how many. */
  expire(kind: string, beforeMs: number, limit: number): number;
  /** Closes the database (and ends the reader thread of the asynchronous reads, without waiting). */
  close(): void;
  /**
   * Shared backends (PostgreSQL, several instances on one database) also implement these: ids
   * taken from the database, versions read from it, due runs claimed in it.
   */
  /** Takes `count` (default 1) consecutive ids of a kind; returns the last of them. */
  allocate?(kind: string, count?: number): number;
  version?(kind: string): number;
  /**
   * Shared backends: the versions read off the main thread (`followVersions`, resolved when the
   * read is in), and reads of configuration as of them (`followedVersion`, `getFollowed`,
   * `entriesFollowed`: no database read while unchanged, this instance's own commits always
   * seen), for what may lag other instances' writes by a moment (the public pages).
   */
  followVersions?(): Promise<void>;
  followedVersion?(kind: string): number;
  getFollowed?(account: string, kind: string, id: string): StoredRecord | undefined;
  entriesFollowed?(account: string, kind: string): Array<[string, StoredRecord]>;
  /** Every record of a configuration kind in every account, read off the main thread. */
  everywhereAsync?(kind: string): Promise<Array<{ account: string; record: StoredRecord }>>;
  runAnchor?(account: string, checkId: string, plan: string, proposedMs: number, periodMs: number, nowMs: number): number;
  /**
   * Claims due runs (each for one instance of those on the database) in a transaction left open
   * until the hold's `commit` (with the writes of the sessions started for them) or `rollback`.
   */
  holdClaims?(claims: readonly RunClaim[]): ClaimHold;
  /**
   * `holdClaims` without holding the caller: resolves once the claims are inserted in a
   * transaction left open; its `commit(entries, done)` sends the writes of the sessions started
   * for them and commits all together (`done` called with the outcome, as commitManyAsync's),
   * `rollback()` ends it with nothing written. The next hold must be asked only after the last
   * one's commit or rollback was sent (one held transaction at a time).
   */
  holdClaimsAsync?(claims: readonly RunClaim[]): Promise<AsyncClaimHold>;
}

/** Epoch ms of an indexed record's time field, or null when it has none. */
export function timeOf(record: StoredRecord, field: string): number | null {
  const v = record[field];
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

/** The check id of an indexed record, or null. */
export function checkOf(record: StoredRecord, field: string): string | null {
  const v = record[field];
  return v === undefined || v === null ? null : String(v);
}

/** The `fields` (dot paths) of a record, nested as in the record; missing and null ones left out. */
export function pickFields(record: StoredRecord, fields: readonly string[]): StoredRecord {
  const out: StoredRecord = {};
  for (const path of fields) {
    const v = getPath(record, path);
    if (v !== undefined && v !== null) setPath(out, path, v);
  }
  return out;
}

/** The value at a dot path, or undefined. */
export function getPath(record: StoredRecord, path: string): unknown {
  let v: unknown = record;
  for (const key of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** Sets a dot path in `target`, creating the objects on the way. */
export function setPath(target: StoredRecord, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = {};
    at = at[key] as StoredRecord;
  }
  at[keys[keys.length - 1]] = value;
}

