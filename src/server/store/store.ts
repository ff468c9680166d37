import { randomUUID } from 'node:crypto';
import { checkOf, timeOf, type Backend, type IndexedKinds, type RecordQuery, type RunClaim, type StoreCommit, type StoreOp, type StoredRecord } from './backend.js';
import type { ExpectedRevision, UniqueKey } from './backend.js';
import { DatabaseUnavailable, UnboundedRead, UniqueTaken } from './errors.js';
import { MemoryBackend } from './memory.js';
import type { AggregateQuery, AggregateRow } from './aggregate.js';
import type { RollupCell, RollupQuery } from './rollup.js';
import { HeldHistograms } from './cell-cache.js';
import { openSqliteState, type JournalImport } from './open.js';
import { PostgresBackend } from './postgres.js';
import { isPostgresUrl } from '../options.js';

export type { StoredRecord, IndexedKinds, RecordQuery, LeasedRecord } from './backend.js';
export { revisionOf } from './backend.js';
export { StaleWrite } from './errors.js';
import type { LeasedRecord } from './backend.js';

/** Real milliseconds a deferred commit (scheduled run data) waits at most before it is written. */
export const GROUP_COMMIT_MS = 25;
/** Pending operations of deferred commits that are written at once, without waiting for the timer. */
export const GROUP_COMMIT_MAX_OPS = 1000;
/** After a failed group commit, the pending ones are retried this often (real ms)... */
export const GROUP_COMMIT_RETRY_MS = 1000;
/** ...and dropped, with their count reported, once more than this many operations wait. */
export const GROUP_COMMIT_MAX_PENDING_OPS = 100_000;
/**
 * The most records of run data one read may ask for (`RecordQuery.limit`). Run data is read by
 * queries that name their bound, or reduced in the database (`aggregate`); a list of a kind whole
 * or a query without a limit is refused (UnboundedRead).
 */
export const MAX_RUN_READ = 50_000;
/** Records written by deferred commits kept in memory after they landed, for `get` (open sessions). */
const RECENT_RECORDS = 4096;

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
  private readonly localVersions = new Map<string, number>();
  /** The histograms of cells read (rollupsAsync), kept while their cells do not change. */
  private readonly histograms = new HeldHistograms();
  /** Deferred commits not written yet, in order (the group commit's queue). */
  private pending: StoreCommit[] = [];
  private pendingOps = 0;
  private readonly pendingKinds = new Set<string>();
  private readonly pendingCounters = new Map<string, number>();
  /**
   * `account\0kind\0id` -> record (null: deleted) of the records deferred commits wrote: the
   * pending ones (what `get` answers before the database has them) and the most recent that landed
   * (a session's own records, read back at each step of the session without a database read).
   */
  private readonly recent = new Map<string, StoredRecord | null>();
  /**
   * The batch of deferred commits sent to the database without waiting (`Backend.commitManyAsync`),
   * until its answer is handled (`reap`): its records stay visible through `recent` meanwhile. One
   * batch at a time; what is deferred meanwhile waits in `pending` for the next.
   */
  private inflight: Inflight | undefined;
  /**
   * The release of claims held asynchronously (holdAndStart), sent with the writes of the sessions
   * they started and not answered yet. No batch is sent meanwhile: should the release fail, its
   * writes go back to the queue before anything written after them, never after a later write of
   * the same records landed (a session's opening written over its end).
   */
  private releasing: Releasing | undefined;
  /** The last claims sent (claimRunsAsync): the next hold waits for its release to be sent. */
  private claimTail: Promise<void> = Promise.resolve();
  /** A flush was asked while a batch was under way: the next one is sent as soon as it answers. */
  private flushAgain = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private retryAtMs = 0;
  private closed = false;
  /** Set while claimRuns starts sessions under claims held in an open transaction. */
  private holding = false;
  /** Blocks of ids taken from a shared database, per kind (`nextInt(kind, block)`). */
  private readonly idBlocks = new Map<string, { next: number; last: number }>();
  /** Where a failed group commit is reported (the service's internal-error path). */
  onError: (err: unknown) => void = (err) => process.stderr.write(`mac serve: ${err instanceof Error ? err.message : String(err)}\n`);

  private constructor(
    private backend: Backend,
    readonly indexed: IndexedKinds,
    /** Set when a journal of an earlier version was imported at open. */
    readonly imported?: JournalImport,
  ) {}

  /** A store in memory only. */
  static memory(indexed: IndexedKinds = {}): Store {
    return new Store(new MemoryBackend(indexed), indexed);
  }

  /** A store over a given backend (tests wrap one to count its calls). */
  static over(backend: Backend, indexed: IndexedKinds = {}): Store {
    return new Store(backend, indexed);
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

  /**
   * Reports the time of every call of the backend (the database), named by its method, to
   * `observe` (the operator metrics). A generator (`everywhere`) is timed to its first record, an
   * asynchronous read (`queryAsync`, `aggregateAsync`) to its answer.
   */
  observeCalls(observe: (op: string, seconds: number) => void): void {
    const inner = this.backend;
    this.backend = new Proxy(inner, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) => {
          const t0 = performance.now();
          let async = false;
          try {
            const out = (value as (...a: unknown[]) => unknown).apply(target, args);
            // An asynchronous read is timed to its answer.
            if (out instanceof Promise) {
              async = true;
              return out.finally(() => observe(prop, (performance.now() - t0) / 1000));
            }
            return out;
          } finally {
            if (!async) observe(prop, (performance.now() - t0) / 1000);
          }
        };
      },
    });
  }

  /** One record of an account, or undefined. */
  get<T extends StoredRecord = StoredRecord>(account: string, kind: string, id: string | number): T | undefined {
    if (this.recent.size > 0) {
      const key = `${account}\u0000${kind}\u0000${id}`;
      if (this.recent.has(key)) return (this.recent.get(key) ?? undefined) as T | undefined;
    }
    return this.backend.get(account, kind, String(id)) as T | undefined;
  }

  /**
   * One record as the database holds it now: for records that `lease` changes under this store
   * (a lease writes the database directly), where `get` could answer what this instance wrote last.
   */
  getLatest<T extends StoredRecord = StoredRecord>(account: string, kind: string, id: string | number): T | undefined {
    this.settle(kind);
    if (this.pendingKinds.has(kind)) return this.get<T>(account, kind, id);
    this.recent.delete(`${account}\u0000${kind}\u0000${id}`);
    return this.backend.get(account, kind, String(id)) as T | undefined;
  }

  /**
   * Whether other service instances may write this store's database at the same time (PostgreSQL):
   * a record several writers change then needs a compare-and-set. Memory and SQLite have one
   * writer, this process, whose synchronous read-modify-writes cannot interleave.
   */
  get shared(): boolean {
    return this.backend.holdClaims !== undefined;
  }

  /**
   * Forgets what this store wrote last of one record (unless it is still pending): later `get`s
   * read it from the database. For records other instances write too (a joined session), where
   * what this instance wrote last may no longer be what the database holds.
   */
  uncache(account: string, kind: string, id: string | number): void {
    if (!this.pendingKinds.has(kind)) this.recent.delete(`${account}\u0000${kind}\u0000${id}`);
  }

  /** Every record of a kind (configuration, not run data) in an account, oldest first. Do not mutate the records. */
  list<T extends StoredRecord = StoredRecord>(account: string, kind: string): T[] {
    return this.entries<T>(account, kind).map(([, r]) => r);
  }

  /** Every `[id, record]` of a kind (configuration, not run data) in an account, oldest first. */
  entries<T extends StoredRecord = StoredRecord>(account: string, kind: string): Array<[string, T]> {
    if (this.indexed[kind]) throw new UnboundedRead(kind, 'a list of the kind whole; query it by check and time with a limit');
    this.settle(kind);
    return this.backend.entries(account, kind) as Array<[string, T]>;
  }

  /** Records of an indexed kind by check and time window (see RecordQuery for the orders). */
  query<T extends StoredRecord = StoredRecord>(account: string, kind: string, q: RecordQuery = {}): T[] {
    return this.queryEntries<T>(account, kind, q).map(([, r]) => r);
  }

  /**
   * `query` with the ids: `[id, record]`. Pending deferred records are merged into a query by
   * check alone (creation order: what a transaction asks); any other query writes them first.
   */
  queryEntries<T extends StoredRecord = StoredRecord>(account: string, kind: string, q: RecordQuery = {}): Array<[string, T]> {
    this.boundRead(kind, q);
    if (this.unlanded(kind) && Object.entries(q).every(([k, v]) => k === 'checkId' || k === 'limit' || v === undefined)) {
      const merged = this.mergePending(account, kind, q.checkId, this.backend.query(account, kind, q));
      return (q.limit !== undefined && merged.length > q.limit ? merged.slice(0, q.limit) : merged) as Array<[string, T]>;
    }
    this.settle(kind);
    return this.backend.query(account, kind, q) as Array<[string, T]>;
  }

  /** The reduction of one check's records of an indexed kind by group and time bucket (store/aggregate.ts). */
  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[] {
    this.settle(kind);
    return this.backend.aggregate(account, kind, q);
  }

  /**
   * `aggregate` without holding the event loop: on a database the statement runs, and its rows are
   * reduced, in the reader thread (store/reader.ts) while this thread goes on. The heavy reads of
   * what anyone may ask (public pages, their data, badges) go this way. Pending deferred records
   * of the kind are written first, as for `aggregate`.
   */
  async aggregateAsync(account: string, kind: string, q: AggregateQuery): Promise<AggregateRow[]> {
    await this.landedAsync(kind);
    return this.backend.aggregateAsync ? this.backend.aggregateAsync(account, kind, q) : this.backend.aggregate(account, kind, q);
  }

  /**
   * Starts the thread of the asynchronous reads and its connections now (a service calls this
   * when it starts listening), so that the first public page does not wait for them to start.
   */
  warmReads(): Promise<void> {
    return this.backend.warmReads ? this.backend.warmReads() : Promise.resolve();
  }

  /** Whether the backend keeps cells of results per hour and day (rollup.ts). */
  get rollupsKept(): boolean {
    return typeof this.backend.rollups === 'function';
  }

  /**
   * The cells of one check's results per hour and day over ranges (rollup.ts), off the main thread
   * on a database; pending deferred records of the kind are written first, as for aggregateAsync.
   */
  async rollupsAsync(account: string, kind: string, q: RollupQuery): Promise<RollupCell[]> {
    if (!this.backend.rollups) throw new Error('the store keeps no cells of results');
    await this.landedAsync(kind);
    const backend = this.backend;
    if (!backend.rollupsAsync) return backend.rollups!(account, kind, q);
    // On a database: the histograms of cells that did not change since they were read, from memory.
    return this.histograms.cells(account, kind, q, (r) => backend.rollupsAsync!(account, kind, r));
  }

  /** `query` without holding the event loop (see aggregateAsync): the same bounds, the records as the database holds them. */
  async queryAsync<T extends StoredRecord = StoredRecord>(account: string, kind: string, q: RecordQuery): Promise<T[]> {
    this.boundRead(kind, q);
    await this.landedAsync(kind);
    const rows = this.backend.queryAsync ? await this.backend.queryAsync(account, kind, q) : this.backend.query(account, kind, q);
    return rows.map(([, r]) => r as T);
  }

  /** Refuses a read of run data that names no bound, or a bound over MAX_RUN_READ. */
  private boundRead(kind: string, q: RecordQuery): void {
    if (!this.indexed[kind]) return;
    if (q.limit === undefined) throw new UnboundedRead(kind, 'a query without a limit');
    if (!(q.limit >= 0 && q.limit <= MAX_RUN_READ)) throw new UnboundedRead(kind, `a limit of ${q.limit} (at most ${MAX_RUN_READ})`);
  }

  /** How many records `query` would match without limit and offset. */
  countQuery(account: string, kind: string, q: RecordQuery = {}): number {
    this.settle(kind);
    return this.backend.countQuery(account, kind, q);
  }

  /** Number of records of a kind in an account. */
  count(account: string, kind: string): number {
    this.settle(kind);
    return this.backend.count(account, kind);
  }

  /** Every record of a kind (configuration, not run data) across all accounts (for the service-wide uniqueness rules). */
  *everywhere<T extends StoredRecord = StoredRecord>(kind: string): Iterable<{ account: string; record: T }> {
    if (this.indexed[kind]) throw new UnboundedRead(kind, 'every record of the kind in every account');
    yield* this.backend.everywhere(kind) as Iterable<{ account: string; record: T }>;
  }

  /**
   * Leases due records of an indexed kind (the persisted queues): see Backend.lease. Pending
   * deferred writes of the kind land first (a delivered failure releases its waiting recovery in
   * one of them); the deliverer leases once per batch of room, so this is one write per batch.
   */
  lease(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): LeasedRecord[] {
    this.settle(kind);
    this.beforeOwnWrite();
    return this.backend.lease(kind, nowMs, untilMs, limit, only);
  }

  /**
   * `lease` without holding the event loop where the database is in another thread (PostgreSQL):
   * pending deferred writes of the kind are sent first (a batch under way is awaited, not waited
   * for), and the lease is answered after them. Elsewhere `lease`, answered at once.
   */
  async leaseAsync(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): Promise<LeasedRecord[]> {
    if (!this.backend.leaseAsync || !this.backend.readsSeeSent) return this.lease(kind, nowMs, untilMs, limit, only);
    if (this.pendingKinds.has(kind) && !this.holding && !this.closed) {
      if (this.releasing) await this.releasing.done;
      if (this.inflight) await this.inflight.done;
      this.sendPending();
    }
    return this.backend.leaseAsync(kind, nowMs, untilMs, limit, only);
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

  /** Current value of a kind's id counter (the last id handed out, 0 if none), pending deferred commits included. */
  counter(kind: string): number {
    const stored = this.backend.counter(kind);
    const pending = Math.max(this.pendingCounters.get(kind) ?? 0, this.inflight?.counters.get(kind) ?? 0);
    return pending > stored ? pending : stored;
  }

  /**
   * Takes the next id of a kind from a shared database (atomic across instances), or undefined
   * when the store is not shared and the transaction counts from `counter`. With `block` > 1,
   * ids are taken from the database `block` at a time and handed out from memory: unique across
   * instances, increasing on each instance, not in creation order across them.
   */
  allocate(kind: string, block = 1): number | undefined {
    if (!this.backend.allocate) return undefined;
    if (block <= 1) return this.backend.allocate(kind);
    let ids = this.idBlocks.get(kind);
    if (!ids || ids.next > ids.last) {
      const last = this.backend.allocate(kind, block);
      ids = { next: last - block + 1, last };
      this.idBlocks.set(kind, ids);
    }
    return ids.next++;
  }

  /** A number that changes whenever a record of `kind` is written in any account (cache keys), by any instance. */
  version(kind: string): number {
    if (!this.backend.version) return this.versions.get(kind) ?? 0;
    // The shared version counts what landed in the database: pending records of the kind land first.
    this.settle(kind);
    return this.backend.version(kind);
  }

  /**
   * Reads, off the main thread, what other instances on a shared database committed (the versions
   * of every kind), for `followedVersion` and `followerView`; resolves at once elsewhere. Calls
   * while a read is under way share it.
   */
  followOthers(): Promise<void> {
    return this.backend.followVersions ? this.backend.followVersions() : Promise.resolve();
  }

  /**
   * `version` without a database read: on a shared database, as of the last `followOthers` (what other
   * instances committed since is seen after the next one), except for kinds this instance
   * committed since, read as `version` does. Elsewhere, `version`.
   */
  followedVersion(kind: string): number {
    if (!this.backend.followedVersion) return this.version(kind);
    this.settle(kind);
    return this.backend.followedVersion(kind);
  }

  /**
   * Reads of one account's configuration as of `followedVersion`: on a shared database, no read
   * while the configuration is unchanged, what other instances wrote seen after the next
   * `followOthers`, this instance's own writes at once. For the public pages, which show what other
   * instances write after their cache's time anyway; elsewhere the same as `view`.
   */
  followerView(account: string): AccountView {
    const backend = this.backend;
    if (!backend.entriesFollowed || !backend.getFollowed) return this.view(account);
    return {
      account,
      get: <T extends StoredRecord = StoredRecord>(kind: string, id: string | number) => {
        if (this.indexed[kind]) return this.get<T>(account, kind, id);
        this.settle(kind);
        if (this.recent.size > 0) {
          const key = `${account}\u0000${kind}\u0000${id}`;
          if (this.recent.has(key)) return (this.recent.get(key) ?? undefined) as T | undefined;
        }
        return backend.getFollowed!(account, kind, String(id)) as T | undefined;
      },
      list: <T extends StoredRecord = StoredRecord>(kind: string) => {
        if (this.indexed[kind]) throw new UnboundedRead(kind, 'a list of the kind whole; query it by check and time with a limit');
        this.settle(kind);
        return backend.entriesFollowed!(account, kind).map(([, r]) => r as T);
      },
    };
  }

  /**
   * Every record of a configuration kind in every account, read off the main thread on a shared
   * database (the public pages' lookup by URL, rebuilt when the kind changes).
   */
  async everywhereAsync<T extends StoredRecord = StoredRecord>(kind: string): Promise<Array<{ account: string; record: T }>> {
    if (this.indexed[kind]) throw new UnboundedRead(kind, 'every record of the kind in every account');
    if (this.backend.everywhereAsync) return (await this.backend.everywhereAsync(kind)) as Array<{ account: string; record: T }>;
    return [...this.everywhere<T>(kind)];
  }

  /**
   * A number that changes whenever this instance commits a record of `kind` (no database read:
   * caches of what this instance serves, with what other instances write followed by their TTL).
   */
  localVersion(kind: string): number {
    return this.localVersions.get(kind) ?? 0;
  }

  /**
   * The first due time of a check's scheduling plan (`plan` names its period and offset). On one
   * instance that is `proposedMs`; on a shared database, the grid the first instance set.
   */
  runAnchor(account: string, checkId: string, plan: string, proposedMs: number, periodMs: number, nowMs: number): number {
    return this.backend.runAnchor ? this.backend.runAnchor(account, checkId, plan, proposedMs, periodMs, nowMs) : proposedMs;
  }

  /**
   * Claims due runs and starts the granted ones: `start(i)` for each claim granted, in order
   * (every claim, on one instance). On a shared database the claims and what `start` staged (with
   * every pending deferred commit) are one transaction: the claims are inserted in a transaction
   * left open, the sessions started, then the pending batch written and committed in it. Either a
   * due time is claimed and its session written, or neither, and then another instance can claim
   * it: an instance killed in between loses no run. `start` must not wait for anything: the
   * claimed rows stay locked (another instance's claim of them waits) until it returns; meanwhile
   * the pending batch is not written elsewhere, so that nothing of the sessions lands without their
   * claims. When `start` throws the claims are rolled back and the error goes on.
   *
   * When the commit fails (or `start` threw after staging some sessions), the claims rolled back
   * but the sessions already started go on running here: their writes stay pending, retried like a
   * failed group commit, and the claims of those sessions are written again with them
   * (`StoreCommit.r`). That keeps each recorded session with its claim, and the due time out of
   * reach of the other instances once the retry lands. The alternative, dropping the started
   * sessions, would lose the runs whenever no other instance took them (an outage of the database
   * stops every instance's claims alike). The price: a due time that another instance claimed in
   * the moment between the rollback and the retry runs on both (reported on stderr).
   */
  claimRuns(claims: readonly RunClaim[], start: (index: number) => void): boolean[] {
    if (claims.length === 0) return [];
    if (!this.backend.holdClaims) {
      claims.forEach((_, i) => start(i));
      return claims.map(() => true);
    }
    // What is pending now is written first, on its own (retried on a deadlock like any group
    // commit): the held transaction then carries only the new sessions, whose rows no other
    // instance writes, so it cannot deadlock with another instance's commit of shared rows (error
    // groups), and another instance's claim of the same due times waits for less.
    this.flushQuietly();
    const hold = this.backend.holdClaims(claims);
    if (!hold.granted.some(Boolean)) {
      hold.rollback();
      return hold.granted;
    }
    // Claims whose sessions staged writes: they are taken again with them if the hold fails.
    const started = this.startGranted(hold, claims, start, () => this.flushQuietly());
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    try {
      hold.commit(this.pending);
      this.landed();
    } catch (err) {
      this.reclaim(started);
      this.flushFailed(err);
    }
    return hold.granted;
  }

  /**
   * Claims due runs without holding the event loop, and starts the granted ones: `start(i)` for
   * each claim granted, in order, once the claims are committed (a claim is acted upon only then).
   * On a shared database the claims are one transaction of their own, sent to the database thread
   * while this one goes on; the sessions' writes follow in the group commit. An instance killed
   * between the claims' commit and its sessions' first write loses those due times (no other
   * instance takes them): the price of not holding the event loop, as for the group commit's
   * window. Elsewhere (one instance) every claim is granted and started before this returns.
   * Resolves with the granted flags once `start` ran for them; nothing starts after `close`.
   */
  claimRunsAsync(claims: readonly RunClaim[], start: (index: number) => void): Promise<boolean[]> {
    if (claims.length === 0) return Promise.resolve([]);
    if (!this.backend.holdClaimsAsync) {
      try {
        return Promise.resolve(this.claimRuns(claims, start));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    // One held transaction at a time: the next hold is sent once this one's release was.
    this.claimsUnderWay++;
    const run = this.claimTail.then(() => this.holdAndStart(claims, start)).finally(() => this.claimsUnderWay--);
    this.claimTail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Claims of claimRunsAsync not answered yet: while there are, `claimRuns` (the synchronous
   * hold) must not be used, since a new hold would end the one under way.
   */
  claimsUnderWay = 0;

  /**
   * Starts the database's writer thread where the group commit has one (SQLite with a file) and
   * resolves once it is ready: batches sent before are written on this thread's connection, so
   * that no write waits for the thread's start.
   */
  writesStarted(): Promise<void> {
    return this.backend.writerStarted?.() ?? Promise.resolve();
  }

  /** Claims under way (claimRunsAsync): resolves once every one was answered and released. */
  claimsSettled(): Promise<void> {
    return this.claimTail;
  }

  /**
   * Starts the granted runs of a hold (`holding` meanwhile) and returns the claims whose sessions
   * staged writes. When a start throws, the hold is rolled back, those claims are taken again with
   * the writes left pending (flushed by `flushLater` after GROUP_COMMIT_MS), and the error goes on.
   */
  private startGranted(hold: { readonly granted: readonly boolean[]; rollback(): void }, claims: readonly RunClaim[], start: (index: number) => void, flushLater: () => void): RunClaim[] {
    const started: RunClaim[] = [];
    this.holding = true;
    try {
      hold.granted.forEach((granted, i) => {
        if (!granted) return;
        const staged = this.pending.length;
        try {
          start(i);
        } finally {
          if (this.pending.length > staged) started.push(claims[i]);
        }
      });
    } catch (err) {
      this.holding = false;
      hold.rollback();
      this.reclaim(started);
      if (this.pending.length > 0) this.flushTimer ??= setTimeout(flushLater, GROUP_COMMIT_MS).unref();
      throw err;
    }
    this.holding = false;
    return started;
  }

  private async holdAndStart(claims: readonly RunClaim[], start: (index: number) => void): Promise<boolean[]> {
    // The last release is answered first (one release under way at a time: see `releasing`).
    if (this.releasing) await this.releasing.done;
    const hold = await this.backend.holdClaimsAsync!(claims);
    if (this.closed || !hold.granted.some(Boolean)) {
      hold.rollback();
      return this.closed ? claims.map(() => false) : hold.granted;
    }
    // What `start` stages goes with the claims; what was pending before goes on its own.
    const before = this.pending.length;
    const started = this.startGranted(hold, claims, start, () => this.flushSoon());
    const entries = this.pending.splice(before);
    const ops = entries.reduce((n, e) => n + Math.max(1, e.o?.length ?? 0), 0);
    this.pendingOps -= ops;
    // The kinds pending are those of what is left: the release's writes are sent now. A kind left
    // marked pending made `getLatest` answer this instance's staged copy of a record after the
    // release landed, not what the database holds (an agent's lease of a queued run, another
    // instance's write of a joined session): the agent's result was refused, the compare-and-set
    // of the session failed at every attempt.
    const kinds = new Set(entries.flatMap((e) => (e.o ?? []).map((op) => op[1])));
    this.pendingKinds.clear();
    for (const e of this.pending) for (const op of e.o ?? []) this.pendingKinds.add(op[1]);
    let answered!: () => void;
    const release: Releasing = { entries, started, kinds, ops, done: new Promise<void>((resolve) => (answered = resolve)) };
    this.releasing = release;
    hold.commit(entries, (error) => {
      if (release.outcome) return;
      // Noted here (possibly inside another call of the backend), handled by reapRelease.
      release.outcome = { error };
      queueMicrotask(() => {
        this.reapRelease();
        answered();
      });
    });
    if (this.pending.length > 0) this.flushTimer ??= setTimeout(() => this.flushSoon(), GROUP_COMMIT_MS).unref();
    return hold.granted;
  }

  /** Claims rolled back under started sessions: pending, written with their writes (see claimRuns). */
  private reclaim(claims: RunClaim[]): void {
    if (claims.length === 0) return;
    this.pending.push({ r: claims.map(({ account, checkId, dueMs }) => ({ account, checkId, dueMs })) });
    this.pendingOps += claims.length;
  }

  /**
   * Deletes at most `limit` records of an indexed kind whose time is before `beforeMs`, in every
   * account (the retention); returns how many.
   */
  expire(kind: string, beforeMs: number, limit: number): number {
    this.beforeOwnWrite();
    const n = this.backend.expire(kind, beforeMs, limit);
    if (n > 0) {
      this.bump(kind);
      const spec = this.indexed[kind];
      // Landed records kept for `get` go too (pending ones are written, and expire, later).
      if (spec) {
        for (const [key, rec] of this.recent) {
          if (!rec || !key.includes(`\u0000${kind}\u0000`)) continue;
          const t = timeOf(rec, spec.time);
          if (t !== null && t < beforeMs && !this.pendingKinds.has(kind) && !this.inflight?.kinds.has(kind)) this.recent.delete(key);
        }
      }
    }
    return n;
  }

  /** Writes the pending deferred commits, then closes the database. */
  close(): void {
    this.closed = true;
    clearTimeout(this.flushTimer);
    if (this.pending.length > 0 || this.inflight || this.releasing) {
      const ops = this.pendingOps + (this.inflight?.ops ?? 0) + (this.releasing?.ops ?? 0);
      try {
        this.flush();
      } catch (err) {
        this.onError(new Error(`run data lost at close: ${ops} operations could not be written: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
      }
    }
    this.backend.close();
  }

  /**
   * Writes then publishes one commit: both happen or, when the write fails, neither. Pending
   * deferred commits are written first, in the same transaction (order kept).
   */
  commitEntry(entry: StoreCommit): void {
    // A batch under way is answered before this commit would be anyway (one connection, in
    // order): its outcome is taken first, so that a failed batch is written again before this
    // commit, never after it.
    if (this.inflight || this.releasing) this.awaitInflight();
    // A compare-and-set commit is written alone: its failure must not hold back the pending batch
    // (written first, on its own, as a group commit would).
    if (entry.e && this.pending.length > 0 && !this.holding) this.flush();
    // Inside claimRuns the pending batch belongs to the claims' transaction: the entry alone now.
    if (this.pending.length > 0 && !this.holding) {
      this.backend.commitMany([...this.pending, entry]);
      this.landed();
    } else this.backend.commit(entry);
    for (const op of entry.o ?? []) this.bump(op[1]);
    if (this.recent.size > 0) this.follow(entry);
  }

  /**
   * Queues a commit of run data (indexed kinds only; anything else commits at once): visible to
   * this store's reads at once, written with the others pending in one transaction within
   * GROUP_COMMIT_MS, at GROUP_COMMIT_MAX_OPS pending operations, before the next commit, at
   * `flush` and at close. Not durable when it returns: for what the scheduler records, never for
   * what a client is told.
   */
  commitDeferred(entry: StoreCommit): void {
    const ops = entry.o ?? [];
    // After close nothing is queued: the write fails (or, in memory, happens) at once.
    if (this.closed || entry.a === undefined || ops.some((op) => op[0] === 'x' || !this.indexed[op[1]])) return this.commitEntry(entry);
    this.pending.push(entry);
    this.pendingOps += Math.max(1, ops.length);
    for (const [kind, value] of Object.entries(entry.c ?? {})) this.raiseCounter(kind, value);
    for (const op of ops) {
      const key = `${entry.a}\u0000${op[1]}\u0000${op[2]}`;
      // Deleted then set again: the newest write is the last of the map (what `trim` keeps).
      this.recent.delete(key);
      this.recent.set(key, op[0] === 'p' ? (op[3] as StoredRecord) : null);
      this.pendingKinds.add(op[1]);
      if (!this.backend.version) this.bump(op[1]);
    }
    if (this.pendingOps >= GROUP_COMMIT_MAX_OPS && Date.now() >= this.retryAtMs) {
      // A full batch while the last one is still under way: the database does not keep up, and
      // what waits is bounded by waiting for it here (the one place a deferred commit holds the
      // event loop). Unbounded, the next synchronous commit wrote it all at once (seconds).
      if (this.inflight && !this.holding && !this.closed) {
        try {
          this.awaitInflight();
        } catch (err) {
          this.flushFailed(err);
          return;
        }
      }
      this.flushSoon();
    } else this.flushTimer ??= setTimeout(() => this.flushSoon(), GROUP_COMMIT_MS).unref();
  }

  /**
   * Writes the pending deferred commits in one transaction; throws (keeping them) if that fails.
   * A batch sent without waiting is waited for first: when this returns, everything deferred
   * before is durable.
   */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.awaitInflight();
    if (this.pending.length === 0) return;
    this.backend.commitMany(this.pending);
    this.landed();
  }

  /** Deferred commits not durable yet (operations): waiting, or sent and not answered. */
  get pendingOperations(): number {
    const sent = this.inflight;
    const release = this.releasing;
    return this.pendingOps + (sent && (!sent.outcome || sent.outcome.error !== undefined) ? sent.ops : 0) + (release && (!release.outcome || release.outcome.error !== undefined) ? release.ops : 0);
  }

  /**
   * The group commit from its timer or its bound: on a database in another thread, the pending
   * batch is sent without waiting (`sendPending`); elsewhere written at once (`flushQuietly`).
   */
  private flushSoon(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.holding) return;
    if (!this.backend.commitManyAsync || this.closed) return this.flushQuietly();
    this.sendPending();
  }

  /**
   * Sends the pending batch to the database without waiting (one batch at a time: asked while one
   * is under way, the next goes when it answers). Its answer is handled by `reap`.
   */
  private sendPending(): void {
    if (this.inflight || this.releasing) {
      this.flushAgain = true;
      return;
    }
    if (this.pending.length === 0) return;
    let answered!: () => void;
    const batch: Inflight = {
      entries: this.pending,
      ops: this.pendingOps,
      kinds: new Set(this.pendingKinds),
      counters: new Map(this.pendingCounters),
      done: new Promise<void>((resolve) => (answered = resolve)),
    };
    this.pending = [];
    this.pendingOps = 0;
    this.pendingKinds.clear();
    this.pendingCounters.clear();
    this.inflight = batch;
    this.flushAgain = false;
    const done = (error?: unknown) => {
      if (batch.outcome) return;
      // Called possibly inside another call of the backend: only noted here, handled by `reap`
      // at a point of this store's own choosing (a microtask, or a synchronous write's start).
      batch.outcome = { error };
      queueMicrotask(() => {
        this.reap();
        answered();
      });
    };
    try {
      this.backend.commitManyAsync!(batch.entries, done);
    } catch (err) {
      done(err);
    }
  }

  /**
   * Blocks until the batch under way is answered, and handles its answer: for the writes that
   * must come after it (a synchronous commit, `flush`, `close`). Nothing new is sent meanwhile.
   */
  private awaitInflight(): void {
    if (!this.inflight && !this.releasing) return;
    if ((this.inflight && !this.inflight.outcome) || (this.releasing && !this.releasing.outcome)) this.backend.settleSent?.();
    // The release was sent after the batch: its writes go back after the batch's (see reap).
    this.reapRelease(false);
    this.reap(false);
    if (this.inflight || this.releasing) throw new DatabaseUnavailable('the group commit under way did not answer');
  }

  /**
   * The release of held claims answered (see `releasing`): nothing to do when it committed; when it
   * failed, the sessions' writes go back to the head of the queue with their claims taken again
   * (as claimRuns does), retried as a failed flush is. With `next`, what waits is sent then.
   */
  private reapRelease(next = true): void {
    const release = this.releasing;
    if (!release?.outcome) return;
    this.releasing = undefined;
    if (release.outcome.error !== undefined) {
      const { entries, started } = release;
      this.requeue(entries, release.ops, release.kinds, entries.flatMap((e) => Object.entries(e.c ?? {})));
      this.reclaim(started);
      this.retryLater(release.outcome.error);
      return;
    }
    this.sentLanded(release.kinds, next && !this.inflight);
  }

  /**
   * The batch under way answered: landed (its records stay in `recent`, the newest
   * RECENT_RECORDS), or failed and back at the head of the queue (before what was deferred since,
   * so the order of writes is kept), retried as a failed flush is. With `next`, what waits is
   * sent at once when a flush was asked meanwhile (or the bound is reached), else by its timer.
   */
  private reap(next = true): void {
    const batch = this.inflight;
    if (!batch?.outcome) return;
    this.inflight = undefined;
    if (batch.outcome.error !== undefined) {
      this.requeue(batch.entries, batch.ops, batch.kinds, batch.counters);
      this.retryLater(batch.outcome.error);
      return;
    }
    this.sentLanded(batch.kinds, next && !this.releasing);
  }

  /** The highest value a deferred commit gave a counter of `kind` (as the database keeps it). */
  private raiseCounter(kind: string, value: number): void {
    this.pendingCounters.set(kind, Math.max(this.pendingCounters.get(kind) ?? value, value));
  }

  /**
   * Writes sent without waiting that failed go back to the head of the queue, before what was
   * deferred since, so the order of writes is kept.
   */
  private requeue(entries: readonly StoreCommit[], ops: number, kinds: Iterable<string>, counters: Iterable<readonly [string, number]>): void {
    this.pending = [...entries, ...this.pending];
    this.pendingOps += ops;
    for (const kind of kinds) this.pendingKinds.add(kind);
    for (const [kind, value] of counters) this.raiseCounter(kind, value);
  }

  /** What waits is retried as a failed flush is (`flushFailed`), not sent again at once. */
  private retryLater(err: unknown): void {
    this.flushAgain = false;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flushFailed(err);
  }

  /**
   * Writes sent without waiting landed with records of `kinds`; with `sendNext`, what waits is
   * sent at once when a flush was asked meanwhile (or the bound is reached), else by its timer.
   */
  private sentLanded(kinds: ReadonlySet<string>, sendNext: boolean): void {
    this.retryAtMs = 0;
    this.forgetLanded(kinds);
    if (!sendNext || this.pending.length === 0 || this.closed) return;
    if (this.flushAgain || this.pendingOps >= GROUP_COMMIT_MAX_OPS) this.sendPending();
    else this.flushTimer ??= setTimeout(() => this.flushSoon(), GROUP_COMMIT_MS).unref();
  }

  /**
   * Writes sent without waiting landed (a batch, a release of claims) with records of `kinds`:
   * `recent` keeps the newest RECENT_RECORDS besides those still waiting; of a kind others change
   * in the database (an agent's lease, an API write of another instance), only those waiting.
   */
  private forgetLanded(kinds: ReadonlySet<string>): void {
    // Another instance may change what an API write can change: read it from the database now,
    // but for records still waiting to be written (their value is the one to read).
    if (this.backend.version && [...kinds].some((kind) => this.indexed[kind]?.editable)) {
      const unlanded = [...(this.inflight?.entries ?? []), ...(this.releasing?.entries ?? []), ...this.pending];
      const waiting = new Set(unlanded.flatMap((e) => (e.o ?? []).map((op) => `${e.a}\u0000${op[1]}\u0000${op[2]}`)));
      for (const key of this.recent.keys()) if (this.indexed[key.split('\u0000')[1]]?.editable && !waiting.has(key)) this.recent.delete(key);
    }
    // The records waiting are the newest of `recent` (each deferred put moves its key last).
    const unanswered = this.pendingOps + (this.inflight?.ops ?? 0) + (this.releasing?.ops ?? 0);
    for (const key of this.recent.keys()) {
      if (this.recent.size <= RECENT_RECORDS + unanswered) break;
      this.recent.delete(key);
    }
  }

  /** Deferred records of `kind` not in the database yet: waiting, or in the batch under way. */
  private unlanded(kind: string): boolean {
    return this.pendingKinds.has(kind) || (this.inflight?.kinds.has(kind) ?? false);
  }

  /**
   * Before a write on this thread's connection that is not a commit (a lease, the retention): a
   * batch under way on another connection (SQLite's writer thread, which holds the file's write
   * lock meanwhile) is waited for, so the two never collide.
   */
  private beforeOwnWrite(): void {
    if (!this.inflight || this.backend.readsSeeSent) return;
    try {
      this.awaitInflight();
    } catch (err) {
      this.flushFailed(err);
    }
  }

  /**
   * Deferred records of `kind` are in the database before a read off the main thread (another
   * connection): what waits is sent and its answer awaited, without holding the event loop.
   */
  private async landedAsync(kind: string): Promise<void> {
    if (!this.backend.commitManyAsync) return this.settle(kind);
    // Bounded: a batch that fails is retried by its timer, and the read goes on meanwhile.
    for (let round = 0; round < 3; round++) {
      // A release of claims under way with records of the kind: answered first (reads off the
      // main thread use other connections, which do not see it before).
      const release = this.releasing;
      if (release?.kinds.has(kind)) {
        await release.done;
        continue;
      }
      if (!this.pendingKinds.has(kind) && !this.inflight?.kinds.has(kind)) return;
      if (!this.inflight && !this.holding && !this.closed) this.sendPending();
      const batch = this.inflight;
      if (!batch) return;
      await batch.done;
    }
  }

  /**
   * `flush` from the timer, a read or the bound: a failure is reported to `onError` and the
   * pending commits are kept and retried every GROUP_COMMIT_RETRY_MS, until more than
   * GROUP_COMMIT_MAX_PENDING_OPS operations wait: then they are dropped, their count reported.
   */
  private flushQuietly(): void {
    // Inside claimRuns the claims' transaction writes the pending batch once `start` returns.
    if (this.holding) return;
    try {
      this.flush();
    } catch (err) {
      this.flushFailed(err);
    }
  }

  /** A failed write of the pending batch: kept and retried, or dropped past the bound (see flushQuietly). */
  private flushFailed(err: unknown): void {
    const why = err instanceof Error ? err.message : String(err);
    this.retryAtMs = Date.now() + GROUP_COMMIT_RETRY_MS;
    if (this.pendingOps > GROUP_COMMIT_MAX_PENDING_OPS) {
      this.onError(new Error(`run data dropped: ${this.pendingOps} operations of ${this.pending.length} deferred commits could not be written: ${why}`, { cause: err }));
      this.pending = [];
      this.pendingOps = 0;
      this.pendingKinds.clear();
      this.pendingCounters.clear();
      this.recent.clear();
    } else {
      // An unavailable database is reported once by the backend, not at every retry.
      if (!(err instanceof DatabaseUnavailable)) this.onError(new Error(`run data not written yet (${this.pendingOps} operations kept, retried in ${GROUP_COMMIT_RETRY_MS} ms): ${why}`, { cause: err }));
      this.flushTimer = setTimeout(() => this.flushSoon(), GROUP_COMMIT_RETRY_MS).unref();
    }
  }

  /**
   * Pending records of `kind` are written before a read the overlay cannot answer. On a database
   * in another thread they are sent without waiting: the read is answered after them (one
   * connection, in order); only a batch already under way is waited for first.
   */
  private settle(kind: string): void {
    if (!this.unlanded(kind)) return;
    // Another connection writes the batches (SQLite): what is under way and what waits are written
    // before the read, here and now.
    if (!this.backend.commitManyAsync || !this.backend.readsSeeSent || this.holding || this.closed) return this.flushQuietly();
    if (!this.pendingKinds.has(kind)) return;
    try {
      // Nothing is sent while a batch or a release of claims is under way: its answer is taken
      // first, so that the pending records are sent now, and the read comes after them.
      if (this.inflight || this.releasing) this.awaitInflight();
      this.sendPending();
      // Refused at once (nothing sent): handled now, before the read.
      if (this.inflight?.outcome) this.reap(false);
    } catch (err) {
      this.flushFailed(err);
    }
  }

  /** The pending commits landed: the queue empties; the records stay in `recent`, the newest RECENT_RECORDS of them. */
  private landed(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    // Another instance may change what an API write can change: read it from the database now
    // (looked for only when such a kind was in the batch).
    if (this.backend.version && [...this.pendingKinds].some((kind) => this.indexed[kind]?.editable)) {
      for (const key of this.recent.keys()) if (this.indexed[key.split('\u0000')[1]]?.editable) this.recent.delete(key);
    }
    this.pending = [];
    this.pendingOps = 0;
    this.pendingKinds.clear();
    this.pendingCounters.clear();
    this.retryAtMs = 0;
    for (const key of this.recent.keys()) {
      if (this.recent.size <= RECENT_RECORDS) break;
      this.recent.delete(key);
    }
  }

  /** A commit of this instance changed records `recent` may hold: it follows. */
  private follow(entry: StoreCommit): void {
    for (const op of entry.o ?? []) {
      const key = `${entry.a}\u0000${op[1]}\u0000${op[2]}`;
      if (op[0] === 'p') {
        if (this.recent.has(key)) this.recent.set(key, op[3] as StoredRecord);
      } else if (op[0] === 'd') this.recent.delete(key);
      else {
        const field = this.indexed[op[1]]?.check ?? 'checkId';
        const prefix = `${entry.a}\u0000${op[1]}\u0000`;
        for (const [k, rec] of this.recent) if (k.startsWith(prefix) && (!rec || checkOf(rec, field) === op[2])) this.recent.delete(k);
      }
    }
  }

  /** Stored `[id, record]` of a query by check, with the pending puts and deletes of the kind applied in order. */
  private mergePending(account: string, kind: string, checkId: string | undefined, stored: Array<[string, StoredRecord]>): Array<[string, StoredRecord]> {
    const field = this.indexed[kind]?.check ?? 'checkId';
    const out = new Map(stored);
    for (const entry of this.inflight ? [...this.inflight.entries, ...this.pending] : this.pending) {
      if (entry.a !== account) continue;
      for (const op of entry.o ?? []) {
        if (op[1] !== kind) continue;
        // An update keeps its place (Map.set of a present key), a new record comes last.
        if (op[0] === 'p' && (checkId === undefined || checkOf(op[3] as StoredRecord, field) === checkId)) out.set(op[2], op[3] as StoredRecord);
        else out.delete(op[2]);
      }
    }
    return [...out];
  }

  private bump(kind: string): void {
    this.versions.set(kind, this.version(kind) + 1);
    this.localVersions.set(kind, (this.localVersions.get(kind) ?? 0) + 1);
  }
}

/** The release of claims held asynchronously, with the writes of the sessions they started (Store.holdAndStart). */
interface Releasing {
  entries: StoreCommit[];
  /** The kinds its writes hold. */
  kinds: Set<string>;
  /** The claims whose sessions staged writes: taken again with them if the release fails. */
  started: RunClaim[];
  ops: number;
  outcome?: { error?: unknown };
  done: Promise<void>;
}

/** A batch of deferred commits sent to the database without waiting (Store.sendPending). */
interface Inflight {
  entries: StoreCommit[];
  ops: number;
  kinds: Set<string>;
  counters: Map<string, number>;
  /** Set when the answer came (`error` when it failed), handled by Store.reap. */
  outcome?: { error?: unknown };
  /** Resolves once the answer was handled. */
  done: Promise<void>;
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
  /** Compare-and-set expectations checked by the commit (StoreCommit.e). */
  private readonly expected: ExpectedRevision[] = [];
  /** Uniqueness rules re-checked by the commit, each with the error it throws when broken. */
  private readonly uniques: Array<{ key: UniqueKey; taken: () => Error }> = [];

  constructor(
    private readonly store: Store,
    readonly account: string,
  ) {}

  /**
   * The next integer id of a kind (service-wide; a committed id is never handed out again). On a
   * shared database, `block` > 1 takes ids that many at a time (see Store.allocate).
   */
  nextInt(kind: string, block = 1): number {
    const shared = this.store.allocate(kind, block);
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

  /** `store.query` as this transaction sees it (staged records follow the stored ones); `limit` bounds the stored ones read. */
  query<T extends StoredRecord = StoredRecord>(kind: string, q: Pick<RecordQuery, 'checkId' | 'limit'>): T[] {
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

  /**
   * A compare-and-set condition of the commit: the record `kind`/`id` of this account must still
   * have revision `rev` (its `rev` field, 0 when absent: `revisionOf`) when the commit is written,
   * else the commit throws StaleWrite with nothing applied. The caller read the record, decided,
   * and writes it back with `rev + 1`; on StaleWrite it reads it again (`Store.getLatest`) and
   * decides again. On a shared database this serialises the writers of one record across instances.
   */
  expect(kind: string, id: string | number, rev: number): void {
    this.expected.push([kind, String(id), rev]);
  }

  /** Makes the staged writes durable and visible; throws (with nothing applied) if the write fails. */
  commit(): void {
    const entry = this.entry();
    if (!entry) return;
    if (this.expected.length > 0) entry.e = [...this.expected];
    if (this.uniques.length > 0) entry.u = this.uniques.map((u) => u.key);
    try {
      this.store.commitEntry(entry);
    } catch (err) {
      if (err instanceof UniqueTaken && this.uniques[err.index]) throw this.uniques[err.index].taken();
      throw err;
    }
  }

  /**
   * `commit` through the store's group commit (Store.commitDeferred): visible at once, durable
   * within GROUP_COMMIT_MS. Only for run data the scheduler records, never for an API write.
   */
  commitDeferred(): void {
    const entry = this.entry();
    if (entry) this.store.commitDeferred(entry);
  }

  /** The staged writes as one commit, or undefined when nothing is staged. */
  private entry(): StoreCommit | undefined {
    if (this.ops.length === 0 && this.counters.size === 0) return undefined;
    const entry: StoreCommit = { a: this.account, o: this.ops };
    if (this.counters.size > 0) entry.c = Object.fromEntries(this.counters);
    return entry;
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
