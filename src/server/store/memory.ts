import { aggregateRecords, passesFigures, type AggregateQuery, type AggregateRow } from './aggregate.js';
import { checkOf, pickFields, timeOf, type Backend, type IndexedKinds, type LeasedRecord, type RecordQuery, type StoreCommit, type StoredRecord } from './backend.js';

type Collection = Map<string, StoredRecord>;
type AccountData = Map<string, Collection>;

/**
 * Records in maps: per account, one collection per kind (insertion order = creation order), and
 * service-wide id counters. The service without a database, and the configuration cache of the
 * SQLite backend (which then holds no indexed kinds here).
 */
export class MemoryBackend implements Backend {
  private readonly accounts = new Map<string, AccountData>();
  private readonly counters = new Map<string, number>();

  constructor(private readonly indexed: IndexedKinds = {}) {}

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
      matching.reverse().sort((a, b) => (timeOf(b[1], spec.time) ?? 0) - (timeOf(a[1], spec.time) ?? 0));
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
    return aggregateRecords(this.accounts.get(account)?.get(kind)?.values() ?? [], spec, q);
  }

  commit(entry: StoreCommit): void {
    for (const [kind, value] of Object.entries(entry.c ?? {})) {
      if (value > this.counter(kind)) this.counters.set(kind, value);
    }
    if (entry.a === undefined) return;
    for (const op of entry.o ?? []) {
      const coll = this.collection(entry.a, op[1]);
      if (op[0] === 'p') coll.set(op[2], op[3] as StoredRecord);
      else if (op[0] === 'd') coll.delete(op[2]);
      else {
        const field = this.indexed[op[1]]?.check ?? 'checkId';
        for (const [id, rec] of coll) if (checkOf(rec, field) === op[2]) coll.delete(id);
      }
    }
  }

  commitMany(entries: readonly StoreCommit[]): void {
    for (const entry of entries) this.commit(entry);
  }

  lease(kind: string, nowMs: number, untilMs: number, limit: number): LeasedRecord[] {
    const spec = this.indexed[kind];
    if (!spec) throw new Error(`${kind} is not run data`);
    const due: Array<{ t: number; account: string; id: string; rec: StoredRecord }> = [];
    for (const [account, data] of this.accounts) {
      for (const [id, rec] of data.get(kind) ?? []) {
        const t = timeOf(rec, spec.time);
        if (t !== null && t <= nowMs) due.push({ t, account, id, rec });
      }
    }
    due.sort((a, b) => a.t - b.t);
    return due.slice(0, limit).map(({ account, id, rec }) => {
      const record = { ...rec, [spec.time]: new Date(untilMs).toISOString() };
      this.collection(account, kind).set(id, record);
      return { account, id, record };
    });
  }

  expire(kind: string, beforeMs: number, limit: number): number {
    const spec = this.indexed[kind];
    if (!spec) return 0;
    const keep = spec.keepWhile;
    let deleted = 0;
    for (const data of this.accounts.values()) {
      const coll = data.get(kind);
      if (!coll) continue;
      for (const [id, rec] of coll) {
        if (deleted >= limit) return deleted;
        const t = timeOf(rec, spec.time);
        if (t !== null && t < beforeMs && !(keep && keep.values.includes(rec[keep.field] as string))) {
          coll.delete(id);
          deleted++;
        }
      }
    }
    return deleted;
  }

  close(): void {}

  private matching(account: string, kind: string, q: RecordQuery): Array<[string, StoredRecord]> {
    const spec = this.indexed[kind];
    const all = this.entries(account, kind);
    if (!spec) return all;
    return all.filter(([, rec]) => {
      if (q.checkId !== undefined && checkOf(rec, spec.check) !== q.checkId) return false;
      if (q.where && q.where.length > 0 && !passesFigures(spec, rec, q.where)) return false;
      if (q.fromMs === undefined && q.toMs === undefined) return true;
      const t = timeOf(rec, spec.time);
      if (t === null) return false;
      return (q.fromMs === undefined || t >= q.fromMs) && (q.toMs === undefined || t <= q.toMs);
    });
  }

  private collection(account: string, kind: string): Collection {
    let data = this.accounts.get(account);
    if (!data) this.accounts.set(account, (data = new Map()));
    let coll = data.get(kind);
    if (!coll) data.set(kind, (coll = new Map()));
    return coll;
  }
}
