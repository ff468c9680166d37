import { aggregateRecords, passesFigures, type AggregateQuery, type AggregateRow } from './aggregate.js';
import { ROLLUP_KIND, ROLLUP_SPANS, addTally, emptyTally, tallyOfRecord, takenOut, type RollupCell, type RollupQuery, type Tally } from './rollup.js';
import { checkOf, pickFields, timeOf, type Backend, type IndexedKinds, type LeasedRecord, type RecordQuery, type StoreCommit, type StoredRecord } from './backend.js';

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

  /** `account\0kind\0checkId` -> `span:start` -> the cell of the check's results (rollup.ts), kept at every put and delete. */
  private readonly cells = new Map<string, Map<string, Tally>>();

  constructor(private readonly indexed: IndexedKinds = {}) {}

  rollups(account: string, kind: string, q: RollupQuery): RollupCell[] {
    const key = checkKey(account, kind, q.checkId);
    const mine = this.cells.get(key);
    if (!mine) return [];
    const out: RollupCell[] = [];
    for (const [span, from, to] of q.ranges) {
      for (let start = Math.ceil(from / span) * span; start < to; start += span) {
        const cell = mine.get(`${span}:${start}`);
        if (!cell) continue;
        out.push({ span, start, tally: { ...cell, hist: new Map(cell.hist) } });
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
    return aggregateRecords(this.byCheck.get(checkKey(account, kind, q.checkId))?.values() ?? [], spec, q);
  }

  commit(entry: StoreCommit): void {
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
    const due: Array<{ t: number; account: string; id: string; rec: StoredRecord }> = [];
    for (const [account, data] of this.accounts) {
      for (const [id, rec] of data.get(kind) ?? []) {
        if (only !== undefined && checkOf(rec, spec.check) !== only) continue;
        const t = timeOf(rec, spec.time);
        if (t !== null && t <= nowMs) due.push({ t, account, id, rec });
      }
    }
    due.sort((a, b) => a.t - b.t);
    return due.slice(0, limit).map(({ account, id, rec }) => {
      const record = { ...rec, [spec.time]: new Date(untilMs).toISOString() };
      this.put(account, kind, id, record);
      return { account, id, record };
    });
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
    }
    coll.set(id, rec);
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
