import { aggregateRecords, passesFigures, type AggregateQuery, type AggregateRow } from './aggregate.js';
import { StaleWrite } from './errors.js';
import { ROLLUP_KIND, ROLLUP_SPANS, addTally, emptyTally, tallyOfRecord, takenOut, type RollupCell, type RollupQuery, type Tally } from './rollup.js';
import { checkOf, pickFields, revisionOf, timeOf, type Backend, type IndexedKinds, type LeasedRecord, type RecordQuery, type StoreCommit, type StoredRecord } from './backend.js';

type Collection = Map<string, StoredRecord>;
type AccountData = Map<string, Collection>;

/**
 * Records in maps: per account, one collection per kind (insertion order = creation order), and
 * service-wide id counters. The service without a database, and the configuration cache of the
 * SQLite backend (which then holds no indexed kinds here). Records of indexed kinds (run data) are
 * also kept per check, so that a read of one check's records (a page's figures, its latest runs)
 * goes through that check's records only, not through every result of the account.
 */
export class MemoryBackend implements Backend {
  private readonly accounts = new Map<string, AccountData>();
  private readonly counters = new Map<string, number>();
  /** `account\0kind\0checkId` -> the check's records of an indexed kind (creation order). */
  private readonly byCheck = new Map<string, Collection>();
  /** Leased kinds (the persisted queues) by time: `kind`, and `kind\0check` for leases of one check value. */
  private readonly dueHeaps = new Map<string, DueHeap>();
  /** Per leased kind: the check values that have a heap of their own. */
  private readonly leasedBy = new Map<string, Set<string>>();
  private dueSeq = 0;

  /** `account\0kind\0checkId` -> `span:start` -> the cell of the check's results (rollup.ts), kept at every put and delete. */
  private readonly cells = new Map<string, Map<string, Tally>>();

  constructor(private readonly indexed: IndexedKinds = {}) {}

  rollups(account: string, kind: string, q: RollupQuery): RollupCell[] {
    const out: RollupCell[] = [];
    for (const checkId of q.checkIds ?? [q.checkId]) {
      const mine = this.cells.get(checkKey(account, kind, checkId));
      if (!mine) continue;
      for (const [span, from, to] of q.ranges) {
        for (let start = Math.ceil(from / span) * span; start < to; start += span) {
          const cell = mine.get(`${span}:${start}`);
          if (!cell) continue;
          const c: RollupCell = { span, start, tally: { ...cell, hist: q.histograms === false ? new Map() : new Map(cell.hist) } };
          if (q.checkIds) c.checkId = checkId;
          out.push(c);
        }
      }
    }
    return out;
  }

  get(account: string, kind: string, id: string): StoredRecord | undefined {
    return this.accounts.get(account)?.get(kind)?.get(id);
  }

  entries(account: string, kind: string): Array<[string, StoredRecord]> {
    const coll = this.accounts.get(account)?.get(kind);
    return coll ? [...coll.entries()] : [];
  }

  count(account: string, kind: string): number {
    return this.accounts.get(account)?.get(kind)?.size ?? 0;
  }

  *everywhere(kind: string): Iterable<{ account: string; record: StoredRecord }> {
    for (const [account, data] of this.accounts) {
      const coll = data.get(kind);
      if (coll) for (const record of coll.values()) yield { account, record };
    }
  }

  accountIds(): string[] {
    return [...this.accounts.keys()];
  }

  counter(kind: string): number {
    return this.counters.get(kind) ?? 0;
  }

  query(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    const matching = this.matching(account, kind, q);
    const spec = this.indexed[kind];
    if (q.order === 'created-desc') matching.reverse();
    else if (q.order === 'time-desc' && spec) {
      // Newest created first, then a stable sort by time: equal times stay newest created first.
      // Each time parsed once, not at every comparison.
      const times = new Map(matching.map(([id, rec]) => [id, timeOf(rec, spec.time) ?? 0]));
      matching.reverse().sort((a, b) => times.get(b[0])! - times.get(a[0])!);
    }
    const start = q.offset ?? 0;
    const page = matching.slice(start, q.limit === undefined ? undefined : start + q.limit);
    return q.fields ? page.map(([id, rec]) => [id, pickFields(rec, q.fields!)]) : page;
  }

  countQuery(account: string, kind: string, q: RecordQuery): number {
    return this.matching(account, kind, q).length;
  }

  aggregate(account: string, kind: string, q: AggregateQuery): AggregateRow[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    if (!q.checkIds) return aggregateRecords(this.byCheck.get(checkKey(account, kind, q.checkId))?.values() ?? [], spec, q);
    const byCheck = this.byCheck;
    // The records of each check named, one after the other.
    const records = function* () {
      for (const id of new Set(q.checkIds)) yield* byCheck.get(checkKey(account, kind, id))?.values() ?? [];
    };
    return aggregateRecords(records(), spec, q);
  }

  commit(entry: StoreCommit): void {
    // Compare-and-set expectations first: a failed one applies nothing.
    (entry.e ?? []).forEach(([kind, id, rev], index) => {
      if (revisionOf(this.get(entry.a ?? '', kind, id)) !== rev) throw new StaleWrite(index);
    });
    for (const [kind, value] of Object.entries(entry.c ?? {})) {
      if (value > this.counter(kind)) this.counters.set(kind, value);
    }
    if (entry.a === undefined) return;
    for (const op of entry.o ?? []) {
      if (op[0] === 'p') this.put(entry.a, op[1], op[2], op[3] as StoredRecord);
      else if (op[0] === 'd') this.remove(entry.a, op[1], op[2]);
      else if (this.indexed[op[1]]) {
        const mine = this.byCheck.get(checkKey(entry.a, op[1], op[2]));
        for (const id of [...(mine?.keys() ?? [])]) this.remove(entry.a, op[1], id);
      } else {
        const coll = this.collection(entry.a, op[1]);
        for (const [id, rec] of coll) if (checkOf(rec, 'checkId') === op[2]) coll.delete(id);
      }
    }
  }

  commitMany(entries: readonly StoreCommit[]): void {
    for (const entry of entries) this.commit(entry);
  }

  lease(kind: string, nowMs: number, untilMs: number, limit: number, only?: string): LeasedRecord[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    // The records by time (DueHeap): a lease looks at the ones it takes and at entries made stale
    // by later writes (each at most once), never at the records not due.
    const heap = this.dueHeap(kind, only);
    const out: LeasedRecord[] = [];
    while (out.length < limit) {
      const top = heap.peek();
      if (!top) break;
      if (this.accounts.get(top.account)?.get(kind)?.get(top.id) !== top.rec) {
        heap.pop();
        continue;
      }
      if (top.t > nowMs) break;
      heap.pop();
      const record = { ...top.rec, [spec.time]: new Date(untilMs).toISOString() };
      this.put(top.account, kind, top.id, record);
      out.push({ account: top.account, id: top.id, record });
    }
    return out;
  }

  /**
   * The heap of a leased kind (all its records, or those whose check field is `only`): made at the
   * first lease of it from the records held, then kept by every write of the kind (put), and
   * rebuilt once it holds mostly stale entries.
   */
  private dueHeap(kind: string, only?: string): DueHeap {
    const key = only === undefined ? kind : `${kind}\u0000${only}`;
    const heap = this.dueHeaps.get(key);
    if (heap && heap.size() <= heap.rebuildAt) return heap;
    if (heap) {
      // Rebuilt only when most entries are stale: the check is at most once per doubling.
      let live = 0;
      for (const [account, data] of this.accounts) live += (only === undefined ? data.get(kind) : this.byCheck.get(checkKey(account, kind, only)))?.size ?? 0;
      if (heap.size() <= 2 * live + 1024) {
        heap.rebuildAt = 2 * heap.size();
        return heap;
      }
    }
    const spec = this.indexed[kind]!;
    const fresh = new DueHeap();
    for (const [account, data] of this.accounts) {
      const records = only === undefined ? data.get(kind) : this.byCheck.get(checkKey(account, kind, only));
      for (const [id, rec] of records ?? []) {
        const t = timeOf(rec, spec.time);
        if (t !== null) fresh.push({ t, seq: this.dueSeq++, account, id, rec });
      }
    }
    fresh.rebuildAt = Math.max(1024, 2 * fresh.size());
    if (only !== undefined && !heap) {
      const of = this.leasedBy.get(kind) ?? new Set<string>();
      of.add(only);
      this.leasedBy.set(kind, of);
    }
    this.dueHeaps.set(key, fresh);
    return fresh;
  }

  expire(kind: string, beforeMs: number, limit: number): number {
    const spec = this.indexed[kind];
    if (!spec) return 0;
    const keep = spec.keepWhile;
    let deleted = 0;
    for (const [account, data] of this.accounts) {
      const coll = data.get(kind);
      if (!coll) continue;
      for (const [id, rec] of coll) {
        if (deleted >= limit) return deleted;
        const t = timeOf(rec, spec.time);
        if (t !== null && t < beforeMs && !(keep && keep.values.includes(rec[keep.field] as string))) {
          this.remove(account, kind, id);
          deleted++;
        }
      }
    }
    return deleted;
  }

  close(): void {}

  private matching(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    const spec = this.indexed[kind];
    if (!spec) return this.entries(account, kind);
    const all = q.checkId === undefined ? this.entries(account, kind) : [...(this.byCheck.get(checkKey(account, kind, q.checkId))?.entries() ?? [])];
    return all.filter(([, rec]) => {
      if (q.where && q.where.length > 0 && !passesFigures(spec, rec, q.where)) return false;
      if (q.fromMs === undefined && q.toMs === undefined) return true;
      const t = timeOf(rec, spec.time);
      if (t === null) return false;
      return (q.fromMs === undefined || t >= q.fromMs) && (q.toMs === undefined || t <= q.toMs);
    });
  }

  /** Adds a result to (sign -1: takes it out of) the cells of its hour and day. */
  private tally(account: string, kind: string, rec: StoredRecord, sign: 1 | -1): void {
    const spec = this.indexed[kind];
    if (kind !== ROLLUP_KIND || !spec) return;
    const check = checkOf(rec, spec.check);
    const t = timeOf(rec, spec.time);
    const of = tallyOfRecord(rec);
    if (check === null || t === null || !of) return;
    const key = checkKey(account, kind, check);
    let mine = this.cells.get(key);
    if (!mine) this.cells.set(key, (mine = new Map()));
    for (const span of ROLLUP_SPANS) {
      const at = `${span}:${Math.floor(t / span) * span}`;
      let cell = mine.get(at);
      if (!cell) mine.set(at, (cell = emptyTally()));
      addTally(cell, of, sign);
      if (sign === -1) {
        if (cell.runs <= 0 && cell.n <= 0) mine.delete(at);
        else if (of.min !== null) takenOut(cell);
      }
    }
    if (mine.size === 0) this.cells.delete(key);
  }

  /** Puts a record, and keeps the index by check of an indexed kind. */
  private put(account: string, kind: string, id: string, rec: StoredRecord): void {
    const coll = this.collection(account, kind);
    const spec = this.indexed[kind];
    if (spec) {
      const before = coll.get(id);
      if (before) this.tally(account, kind, before, -1);
      this.tally(account, kind, rec, 1);
      const from = before ? checkOf(before, spec.check) : null;
      const to = checkOf(rec, spec.check);
      if (before && from !== to && from !== null) this.unindex(checkKey(account, kind, from), id);
      if (to !== null) {
        const key = checkKey(account, kind, to);
        let mine = this.byCheck.get(key);
        if (!mine) this.byCheck.set(key, (mine = new Map()));
        mine.set(id, rec);
      }
      if (this.dueHeaps.size > 0) this.queueDue(account, kind, id, rec, spec.time, to);
    }
    coll.set(id, rec);
  }

  /** A write of a leased kind: its record joins the heaps it belongs to (the entry it replaces goes stale). */
  private queueDue(account: string, kind: string, id: string, rec: StoredRecord, timeField: string, check: string | null): void {
    const all = this.dueHeaps.get(kind);
    const mine = check !== null && this.leasedBy.get(kind)?.has(check) ? this.dueHeaps.get(`${kind}\u0000${check}`) : undefined;
    if (!all && !mine) return;
    const t = timeOf(rec, timeField);
    if (t === null) return;
    const entry = { t, seq: this.dueSeq++, account, id, rec };
    all?.push(entry);
    mine?.push(entry);
  }

  /** Deletes a record, and its place in the index by check. */
  private remove(account: string, kind: string, id: string): void {
    const coll = this.accounts.get(account)?.get(kind);
    const rec = coll?.get(id);
    if (!coll || !rec) return;
    coll.delete(id);
    this.tally(account, kind, rec, -1);
    const spec = this.indexed[kind];
    const check = spec ? checkOf(rec, spec.check) : null;
    if (check !== null) this.unindex(checkKey(account, kind, check), id);
  }

  private unindex(key: string, id: string): void {
    const mine = this.byCheck.get(key);
    if (!mine) return;
    mine.delete(id);
    if (mine.size === 0) this.byCheck.delete(key);
  }

  private collection(account: string, kind: string): Collection {
    let data = this.accounts.get(account);
    if (!data) this.accounts.set(account, (data = new Map()));
    let coll = data.get(kind);
    if (!coll) data.set(kind, (coll = new Map()));
    return coll;
  }
}

function checkKey(account: string, kind: string, checkId: string): string {
  return `${account}\u0000${kind}\u0000${checkId}`;
}

interface DueEntry {
  t: number;
  /** Write order: equal times are taken in the order they were written. */
  seq: number;
  account: string;
  id: string;
  /** The record as written: the entry is stale once the collection holds another (or none). */
  rec: StoredRecord;
}

/** A binary min-heap of records by time then write order. */
class DueHeap {
  private readonly items: DueEntry[] = [];
  /** Size past which the heap is rebuilt from the live records. */
  rebuildAt = 1024;

  size(): number {
    return this.items.length;
  }

  peek(): DueEntry | undefined {
    return this.items[0];
  }

  push(e: DueEntry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): DueEntry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l], a[m])) m = l;
        if (r < a.length && before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

function before(x: DueEntry, y: DueEntry): boolean {
  return x.t < y.t || (x.t === y.t && x.seq < y.seq);
}
