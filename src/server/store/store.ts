import { randomUUID } from 'node:crypto';
import { Journal, readJournal, type JournalEntry, type JournalOp } from './journal.js';

/** A stored record: a plain JSON object, never mutated once stored (writers put a new object). */
export type StoredRecord = Record<string, unknown>;

/** Reads of one account: the committed state (`store.view`) or a transaction's staged one. */
export interface AccountView {
  readonly account: string;
  get<T extends StoredRecord = StoredRecord>(kind: string, id: string | number): T | undefined;
  list<T extends StoredRecord = StoredRecord>(kind: string): T[];
}

type Collection = Map<string, StoredRecord>;
type AccountData = Map<string, Collection>;

/**
 * The service's state: per account, one collection per kind (insertion order = creation order),
 * and service-wide integer id counters per kind. Reads are direct; every write goes through a
 * transaction that is journaled (when a state file is set) before it is applied to memory.
 */
export class Store {
  private readonly accounts = new Map<string, AccountData>();
  private readonly counters = new Map<string, number>();
  private readonly versions = new Map<string, number>();

  private constructor(private journal?: Journal) {}

  /** A store in memory only. */
  static memory(): Store {
    return new Store();
  }

  /** Replays the journal at `path` (if any), compacts it, and journals every later write there. */
  static open(path: string): Store {
    const store = new Store();
    for (const entry of readJournal(path)) store.apply(entry);
    store.journal = Journal.rewrite(path, store.snapshot());
    return store;
  }

  /** One record of an account, or undefined. */
  get<T extends StoredRecord = StoredRecord>(account: string, kind: string, id: string | number): T | undefined {
    return this.accounts.get(account)?.get(kind)?.get(String(id)) as T | undefined;
  }

  /** Every record of a kind in an account, oldest first. Do not mutate the records. */
  list<T extends StoredRecord = StoredRecord>(account: string, kind: string): T[] {
    const coll = this.accounts.get(account)?.get(kind);
    return coll ? ([...coll.values()] as T[]) : [];
  }

  /** Every `[id, record]` of a kind in an account, oldest first. */
  entries<T extends StoredRecord = StoredRecord>(account: string, kind: string): Array<[string, T]> {
    const coll = this.accounts.get(account)?.get(kind);
    return coll ? ([...coll.entries()] as Array<[string, T]>) : [];
  }

  /** Number of records of a kind in an account. */
  count(account: string, kind: string): number {
    return this.accounts.get(account)?.get(kind)?.size ?? 0;
  }

  /** Every record of a kind across all accounts (for the service-wide uniqueness rules). */
  *everywhere<T extends StoredRecord = StoredRecord>(kind: string): Iterable<{ account: string; record: T }> {
    for (const [account, data] of this.accounts) {
      const coll = data.get(kind);
      if (coll) for (const record of coll.values()) yield { account, record: record as T };
    }
  }

  /** Accounts that hold any data. */
  accountIds(): string[] {
    return [...this.accounts.keys()];
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
    return this.counters.get(kind) ?? 0;
  }

  /** A number that changes whenever a record of `kind` is written in any account (cache keys). */
  version(kind: string): number {
    return this.versions.get(kind) ?? 0;
  }

  /** Closes the journal. */
  close(): void {
    this.journal?.close();
    this.journal = undefined;
  }

  /** Journals then applies one entry: both happen or, when the journal fails, neither. */
  commitEntry(entry: JournalEntry): void {
    this.journal?.append(entry);
    this.apply(entry);
  }

  private apply(entry: JournalEntry): void {
    for (const [kind, value] of Object.entries(entry.c ?? {})) {
      if (value > this.counter(kind)) this.counters.set(kind, value);
    }
    if (entry.a === undefined) return;
    for (const op of entry.o ?? []) {
      this.versions.set(op[1], this.version(op[1]) + 1);
      const coll = this.collection(entry.a, op[1]);
      if (op[0] === 'p') coll.set(op[2], op[3] as StoredRecord);
      else coll.delete(op[2]);
    }
  }

  private collection(account: string, kind: string): Collection {
    let data = this.accounts.get(account);
    if (!data) this.accounts.set(account, (data = new Map()));
    let coll = data.get(kind);
    if (!coll) data.set(kind, (coll = new Map()));
    return coll;
  }

  private *snapshot(): Iterable<JournalEntry> {
    if (this.counters.size > 0) yield { c: Object.fromEntries(this.counters) };
    for (const [account, data] of this.accounts) {
      for (const [kind, coll] of data) {
        for (const [id, record] of coll) yield { a: account, o: [['p', kind, id, record]] };
      }
    }
  }
}

/**
 * A staged write in one account. Reads through it see its own staged puts and deletes; `commit`
 * makes them durable and visible at once. Handlers stage synchronously and commit in the same
 * tick, so no other request interleaves between their reads and their commit.
 */
export class Transaction implements AccountView {
  private readonly ops: JournalOp[] = [];
  private readonly staged = new Map<string, StoredRecord | null>();
  private readonly counters = new Map<string, number>();

  constructor(
    private readonly store: Store,
    readonly account: string,
  ) {}

  /** The next integer id of a kind (service-wide; a committed id is never handed out again). */
  nextInt(kind: string): number {
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
    return this.store.get<T>(this.account, kind, id);
  }

  /** Every record of a kind as this transaction sees it, oldest first. */
  list<T extends StoredRecord = StoredRecord>(kind: string): T[] {
    const out: T[] = [];
    const seen = new Set<string>();
    for (const [id, rec] of this.store.entries<T>(this.account, kind)) {
      const key = `${kind}\u0000${id}`;
      seen.add(key);
      if (!this.staged.has(key)) out.push(rec);
      else if (this.staged.get(key)) out.push(this.staged.get(key) as T);
    }
    for (const [key, rec] of this.staged) {
      if (rec && key.startsWith(`${kind}\u0000`) && !seen.has(key)) out.push(rec as T);
    }
    return out;
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

  /** Makes the staged writes durable and visible; throws (with nothing applied) if the journal fails. */
  commit(): void {
    if (this.ops.length === 0 && this.counters.size === 0) return;
    const entry: JournalEntry = { a: this.account, o: this.ops };
    if (this.counters.size > 0) entry.c = Object.fromEntries(this.counters);
    this.store.commitEntry(entry);
  }
}
