import { randomUUID } from 'node:crypto';
import { checkOf, type Backend, type IndexedKinds, type RecordQuery, type StoreCommit, type StoreOp, type StoredRecord } from './backend.js';
import type { UniqueKey } from './backend.js';
import { UniqueTaken } from './errors.js';
import { MemoryBackend } from './memory.js';
import type { AggregateQuery, AggregateRow } from './aggregate.js';
import { openSqliteState, type JournalImport } from './open.js';
import { PostgresBackend } from './postgres.js';
import { isPostgresUrl } from '../options.js';

export type { StoredRecord, IndexedKinds, RecordQuery } from './backend.js';

/** Reads of one account: the committed state (`store.view`) or a transaction's staged one. */
export interface AccountView {
  readonly account: string;
  get<T extends StoredRecord = StoredRecord>(kind: string, id: string | number): T | undefined;
  list<T extends StoredRecord = StoredRecord>(kind: string): T[];
}

/**
 * The service's state: per account, one collection per kind (creation order), and service-wide
 * integer id counters per kind, kept by a backend (memory maps, or a SQLite database). Reads are
 * direct; every write goes through a transaction, durable before `commit` returns. Kinds named in
 * `indexed` (run data) are read by `query` (by check and time) rather than listed whole.
 */
export class Store {
  private readonly versions = new Map<string, number>();

  private constructor(
    private readonly backend: Backend,
    readonly indexed: IndexedKinds,
    /** Set when a journal of an earlier version was imported at open. */
    readonly imported?: JournalImport,
  ) {}

  /** A store in memory only. */
  static memory(indexed: IndexedKinds = {}): Store {
    return new Store(new MemoryBackend(indexed), indexed);
  }

  /**
   * Opens the SQLite database at `path` (creating it, migrating its schema, or importing a journal
   * of an earlier version). Throws a StateError, with the file untouched, when it cannot.
   */
  static open(path: string, indexed: IndexedKinds = {}): Store {
    if (isPostgresUrl(path)) return new Store(PostgresBackend.open(path, indexed), indexed);
    const { backend, imported } = openSqliteState(path, indexed);
    return new Store(backend, indexed, imported);
  }

  /** One record of an account, or undefined. */
  get<T extends StoredRecord = StoredRecord>(account: string, kind: string, id: string | number): T | undefined {
    return this.backend.get(account, kind, String(id)) as T | undefined;
  }

  /** Every record of a kind in an account, oldest first. Do not mutate the records. */
  list<T extends StoredRecord = StoredRecord>(account: string, kind: string): T[] {
    return this.backend.entries(account, kind).map(([, r]) => r as T);
  }

  /** Every `[id, record]` of a kind in an account, oldest first. */
  entries<T extends StoredRecord = StoredRecord>(account: string, kind: string): Array<[string, T]> {
    return this.backend.entries(account, kind) as Array<[string, T]>;
  }

  /** Records of an indexed kind by check and time window (see RecordQuery for the orders). */
  query<T extends StoredRecord = StoredRecord>(account: string, kind: string, q: RecordQuery = {}): T[] {
    return this.backend.query(account, kind, q).map(([, r]) => r as T);
  }

  /** `query` with the ids: `[id, record]`. */
  queryEntries<T extends StoredRecord = StoredRecord>(account: string, kind: string, q: RecordQuery = {}): Array<[string, T]> {
    return this.backend.query(account, kind, q) as Array<[string, T]>;
  }

  /** The reduction of one check's records of an indexed kind by group and time bucket (store/aggregate.ts). */
  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[] {
    return this.backend.aggregate(account, kind, q);
  }

  /** How many records `query` would match without limit and offset. */
  countQuery(account: string, kind: string, q: RecordQuery = {}): number {
    return this.backend.countQuery(account, kind, q);
  }

  /** Number of records of a kind in an account. */
  count(account: string, kind: string): number {
    return this.backend.count(account, kind);
  }

  /** Every record of a kind across all accounts (for the service-wide uniqueness rules). */
  *everywhere<T extends StoredRecord = StoredRecord>(kind: string): Iterable<{ account: string; record: T }> {
    yield* this.backend.everywhere(kind) as Iterable<{ account: string; record: T }>;
  }

  /** Accounts that hold any configuration. */
  accountIds(): string[] {
    return this.backend.accountIds();
  }

  /** Committed reads of one account. */
  view(account: string): AccountView {
    return {
      account,
      get: (kind, id) => this.get(account, kind, id),
      list: (kind) => this.list(account, kind),
    };
  }

  /** Starts a write in one account; nothing is visible to readers until `commit`. */
  begin(account: string): Transaction {
    return new Transaction(this, account);
  }

  /** Current value of a kind's id counter (the last id handed out, 0 if none). */
  counter(kind: string): number {
    return this.backend.counter(kind);
  }

  /**
   * Takes the next id of a kind from a shared database (atomic across instances), or undefined
   * when the store is not shared and the transaction counts from `counter`.
   */
  allocate(kind: string): number | undefined {
    return this.backend.allocate?.(kind);
  }

  /** A number that changes whenever a record of `kind` is written in any account (cache keys), by any instance. */
  version(kind: string): number {
    return this.backend.version ? this.backend.version(kind) : (this.versions.get(kind) ?? 0);
  }

  /**
   * The first due time of a check's scheduling plan (`plan` names its period and offset). On one
   * instance that is `proposedMs`; on a shared database, the grid the first instance set.
   */
  runAnchor(account: string, checkId: string, plan: string, proposedMs: number, periodMs: number, nowMs: number): number {
    return this.backend.runAnchor ? this.backend.runAnchor(account, checkId, plan, proposedMs, periodMs, nowMs) : proposedMs;
  }

  /** Claims the run of a check due at `dueMs`: always true on one instance; on a shared database, for one instance only. */
  claimRun(account: string, checkId: string, dueMs: number): boolean {
    return this.backend.claimRun ? this.backend.claimRun(account, checkId, dueMs) : true;
  }

  /**
   * Deletes at most `limit` records of an indexed kind whose time is before `beforeMs`, in every
   * account (the retention); returns how many.
   */
  expire(kind: string, beforeMs: number, limit: number): number {
    const n = this.backend.expire(kind, beforeMs, limit);
    if (n > 0) this.bump(kind);
    return n;
  }

  /** Closes the database. */
  close(): void {
    this.backend.close();
  }

  /** Writes then publishes one commit: both happen or, when the write fails, neither. */
  commitEntry(entry: StoreCommit): void {
    this.backend.commit(entry);
    for (const op of entry.o ?? []) this.bump(op[1]);
  }

  private bump(kind: string): void {
    this.versions.set(kind, this.version(kind) + 1);
  }
}

/**
 * A staged write in one account. Reads through it see its own staged puts and deletes; `commit`
 * makes them durable and visible at once. Handlers stage synchronously and commit in the same
 * tick, so no other request interleaves between their reads and their commit.
 */
export class Transaction implements AccountView {
  private readonly ops: StoreOp[] = [];
  private readonly staged = new Map<string, StoredRecord | null>();
  /** `kind\0checkId` of the staged deletes by check. */
  private readonly purged = new Set<string>();
  private readonly counters = new Map<string, number>();
  /** Uniqueness rules re-checked by the commit, each with the error it throws when broken. */
  private readonly uniques: Array<{ key: UniqueKey; taken: () => Error }> = [];

  constructor(
    private readonly store: Store,
    readonly account: string,
  ) {}

  /** The next integer id of a kind (service-wide; a committed id is never handed out again). */
  nextInt(kind: string): number {
    const shared = this.store.allocate(kind);
    if (shared !== undefined) return shared;
    const next = (this.counters.get(kind) ?? this.store.counter(kind)) + 1;
    this.counters.set(kind, next);
    return next;
  }

  /** A new UUID v4 id. */
  uuid(): string {
    return randomUUID();
  }

  /** A record as this transaction sees it. */
  get<T extends StoredRecord = StoredRecord>(kind: string, id: string | number): T | undefined {
    const key = `${kind}\u0000${id}`;
    if (this.staged.has(key)) return (this.staged.get(key) ?? undefined) as T | undefined;
    const rec = this.store.get<T>(this.account, kind, id);
    return rec && !this.isPurged(kind, rec) ? rec : undefined;
  }

  /** Every record of a kind as this transaction sees it, oldest first. */
  list<T extends StoredRecord = StoredRecord>(kind: string): T[] {
    return this.overlay(kind, this.store.entries<T>(this.account, kind), () => true);
  }

  /** `store.query` as this transaction sees it (staged records follow the stored ones). */
  query<T extends StoredRecord = StoredRecord>(kind: string, q: Pick<RecordQuery, 'checkId'>): T[] {
    const field = this.store.indexed[kind]?.check ?? 'checkId';
    const stored = this.store.queryEntries<T>(this.account, kind, q);
    return this.overlay(kind, stored, (rec) => q.checkId === undefined || checkOf(rec, field) === q.checkId);
  }

  /** Stages a put of a whole record. */
  put(kind: string, id: string | number, record: StoredRecord): void {
    this.ops.push(['p', kind, String(id), record]);
    this.staged.set(`${kind}\u0000${id}`, record);
  }

  /** Stages a delete. */
  delete(kind: string, id: string | number): void {
    this.ops.push(['d', kind, String(id)]);
    this.staged.set(`${kind}\u0000${id}`, null);
  }

  /** Stages the delete of every record of an indexed kind that names `checkId` (a check's run data). */
  deleteByCheck(kind: string, checkId: string): void {
    this.ops.push(['x', kind, checkId]);
    this.purged.add(`${kind}\u0000${checkId}`);
    const field = this.store.indexed[kind]?.check ?? 'checkId';
    for (const [key, rec] of this.staged) if (rec && key.startsWith(`${kind}\u0000`) && checkOf(rec, field) === checkId) this.staged.set(key, null);
  }

  /**
   * A service-wide uniqueness rule the caller has checked (no record of `kind` in any account,
   * but `except` of this account, holds `value` in `field`): a shared database checks it again
   * inside the commit, which throws `taken()` when another instance took the value meanwhile.
   */
  unique(kind: string, field: string, value: string, except: string | undefined, taken: () => Error): void {
    this.uniques.push({ key: [kind, field, value, except ?? null], taken });
  }

  /** Makes the staged writes durable and visible; throws (with nothing applied) if the write fails. */
  commit(): void {
    if (this.ops.length === 0 && this.counters.size === 0) return;
    const entry: StoreCommit = { a: this.account, o: this.ops };
    if (this.counters.size > 0) entry.c = Object.fromEntries(this.counters);
    if (this.uniques.length > 0) entry.u = this.uniques.map((u) => u.key);
    try {
      this.store.commitEntry(entry);
    } catch (err) {
      if (err instanceof UniqueTaken && this.uniques[err.index]) throw this.uniques[err.index].taken();
      throw err;
    }
  }

  private isPurged(kind: string, rec: StoredRecord): boolean {
    if (this.purged.size === 0) return false;
    const field = this.store.indexed[kind]?.check ?? 'checkId';
    return this.purged.has(`${kind}\u0000${checkOf(rec, field)}`);
  }

  private overlay<T extends StoredRecord>(kind: string, stored: Array<[string, T]>, keep: (rec: StoredRecord) => boolean): T[] {
    const out: T[] = [];
    const seen = new Set<string>();
    for (const [id, rec] of stored) {
      const key = `${kind}\u0000${id}`;
      seen.add(key);
      if (!this.staged.has(key)) {
        if (!this.isPurged(kind, rec)) out.push(rec);
      } else if (this.staged.get(key)) out.push(this.staged.get(key) as T);
    }
    for (const [key, rec] of this.staged) {
      if (rec && key.startsWith(`${kind}\u0000`) && !seen.has(key) && keep(rec)) out.push(rec as T);
    }
    return out;
  }
}
