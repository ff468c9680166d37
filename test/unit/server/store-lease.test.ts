import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'libsql';
import { Store } from '../../../src/server/store/store.js';
import { MemoryBackend } from '../../../src/server/store/memory.js';
import { AGENT_COLL, RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { pgDatabase } from '../../helpers/pg-url.js';

// The persisted queues' primitive (Backend.lease) and the retention rule that keeps undelivered
// notifications, on every store.
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const STORES: Array<[string, () => { store: Store }]> = [
  ['memory', () => ({ store: Store.memory(RUN_INDEX) })],
  [
    'SQLite',
    () => {
      const file = join(mkdtempSync(join(tmpdir(), 'mac-lease-')), 'state.db');
      return { store: Store.open(file, RUN_INDEX) };
    },
  ],
  [
    'PostgreSQL',
    () => {
      return { store: Store.open(pgDatabase(), RUN_INDEX) };
    },
  ],
];

function queue(store: Store, account: string, id: string, dueMs: number): void {
  const tx = store.begin(account);
  tx.put(RUN_COLL.outbox, id, { id, checkId: 'c1', dueAt: iso(dueMs), attempts: 0, createdAt: iso(T0), work: { type: 'mail', account, purpose: 'test' } });
  tx.commit();
}

describe.each(STORES)('Store.lease on %s', (_name, open) => {
  it('with `only`, takes the records of that check-field value alone (one private location), and a later lease finds the rest', () => {
    const { store } = open();
    try {
      const put = (account: string, id: string, locationId: string) => {
        const tx = store.begin(account);
        tx.put(AGENT_COLL.runs, id, { id, locationId, availableAt: iso(T0) });
        tx.commit();
      };
      put('acme', 'r1', 'loc-a');
      put('acme', 'r2', 'loc-b');
      put('beta', 'r3', 'loc-c');
      expect(store.lease(AGENT_COLL.runs, T0, T0 + 1000, 10, 'loc-a').map((r) => [r.account, r.id])).toEqual([['acme', 'r1']]);
      expect(store.lease(AGENT_COLL.runs, T0, T0 + 1000, 10, 'loc-a')).toEqual([]);
      expect(store.lease(AGENT_COLL.runs, T0, T0 + 1000, 10).map((r) => r.id).sort()).toEqual(['r2', 'r3']);
    } finally {
      store.close();
    }
  });

  it('with `only`, follows rewrites and deletions: a record is taken at its latest time, a deleted one never, equal times in write order', () => {
    const { store } = open();
    try {
      const put = (id: string, at: number, locationId = 'loc-a') => {
        const tx = store.begin('acme');
        tx.put(AGENT_COLL.runs, id, { id, locationId, availableAt: iso(at) });
        tx.commit();
      };
      put('r1', T0 - 3000);
      put('r2', T0 - 2000);
      put('r3', T0 - 1000);
      put('r4', T0 - 1000);
      // A first lease (memory: builds the location's order), then writes it must follow.
      expect(store.lease(AGENT_COLL.runs, T0, T0 + 100_000, 1, 'loc-a').map((r) => r.id)).toEqual(['r1']);
      put('r2', T0 + 50_000); // moved later: not due now
      const tx = store.begin('acme');
      tx.delete(AGENT_COLL.runs, 'r3');
      tx.commit();
      put('r5', T0 - 5000); // new, longest due
      put('r6', T0 - 1000, 'loc-b'); // another location
      expect(store.lease(AGENT_COLL.runs, T0, T0 + 100_000, 10, 'loc-a').map((r) => r.id)).toEqual(['r5', 'r4']);
      expect(store.lease(AGENT_COLL.runs, T0 + 50_000, T0 + 100_000, 10, 'loc-a').map((r) => r.id)).toEqual(['r2']);
      expect(store.lease(AGENT_COLL.runs, T0 + 50_000, T0 + 100_000, 10).map((r) => r.id)).toEqual(['r6']);
      // The leases end: all due again (equal times in an order each store keeps its own).
      expect(store.lease(AGENT_COLL.runs, T0 + 100_000, T0 + 200_000, 10, 'loc-a').map((r) => r.id).sort()).toEqual(['r1', 'r2', 'r4', 'r5']);
    } finally {
      store.close();
    }
  });

  it('takes the due records only, longest due first, and moves them to the lease end', () => {
    const { store } = open();
    try {
      queue(store, 'a', 'late', T0 + 60_000);
      queue(store, 'a', 'second', T0 - 1000);
      queue(store, 'b', 'first', T0 - 5000);
      const taken = store.lease(RUN_COLL.outbox, T0, T0 + 30_000, 10);
      expect(taken.map((t) => [t.account, t.id])).toEqual([
        ['b', 'first'],
        ['a', 'second'],
      ]);
      expect(taken[0].record.dueAt).toBe(iso(T0 + 30_000));
      expect(store.get('a', RUN_COLL.outbox, 'second')?.dueAt).toBe(iso(T0 + 30_000));
      // Leased: not taken again before the lease ends; due again after it (a taker that died).
      expect(store.lease(RUN_COLL.outbox, T0 + 29_000, T0 + 60_000, 10)).toEqual([]);
      expect(store.lease(RUN_COLL.outbox, T0 + 30_000, T0 + 90_000, 10).map((t) => t.id).sort()).toEqual(['first', 'second']);
      // The limit bounds a batch.
      expect(store.lease(RUN_COLL.outbox, T0 + 200_000, T0 + 300_000, 1).map((t) => t.id)).toEqual(['late']);
    } finally {
      store.close();
    }
  });

  it('retention keeps undelivered notifications however old, and expires the rest', () => {
    const { store } = open();
    try {
      const tx = store.begin('a');
      for (const [id, status] of [['sent', 'SUCCESS'], ['failed', 'FAILURE'], ['waiting', 'IN_PROGRESS'], ['slowed', 'RATE_LIMITED']]) {
        tx.put(RUN_COLL.alertNotifications, id, { id, checkId: 'c1', status, created_at: iso(T0 - 90 * 86_400_000) });
      }
      tx.commit();
      expect(store.expire(RUN_COLL.alertNotifications, T0, 100)).toBe(2);
      expect(store.query('a', RUN_COLL.alertNotifications, { limit: 1000 }).map((n) => n.id).sort()).toEqual(['slowed', 'waiting']);
    } finally {
      store.close();
    }
  });
});

describe('Store.lease across instances (PostgreSQL)', () => {
  it('gives each record to one instance when two take in turns (the e2e test of two services takes them at once)', async () => {
    const db = pgDatabase();
    const a = Store.open(db, RUN_INDEX);
    const b = Store.open(db, RUN_INDEX);
    try {
      for (let i = 0; i < 200; i++) queue(a, 'acct', `item-${String(i).padStart(3, '0')}`, T0 - i);
      const seen: string[] = [];
      // Alternating batches from both instances until nothing is due.
      for (let round = 0; round < 50; round++) {
        const got = [...a.lease(RUN_COLL.outbox, T0, T0 + 60_000, 7), ...b.lease(RUN_COLL.outbox, T0, T0 + 60_000, 7)];
        if (got.length === 0) break;
        seen.push(...got.map((g) => g.id));
      }
      expect(seen).toHaveLength(200);
      expect(new Set(seen).size).toBe(200);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('the cost of a claim is bounded by its batch, not by the queue', () => {
  it('memory: a lease of one location reads the records it takes, not those of other locations nor those not yet due', () => {
    const backend = new MemoryBackend(RUN_INDEX);
    let reads = 0;
    // Records that count every read of their fields.
    const counted = (rec: Record<string, unknown>) =>
      new Proxy(rec, {
        get(target, prop, receiver) {
          reads++;
          return Reflect.get(target, prop, receiver);
        },
      });
    const put = (id: string, locationId: string, at: number) => backend.commit({ a: 'acme', o: [['p', AGENT_COLL.runs, id, counted({ id, locationId, availableAt: iso(at) })]] });
    put('first', 'loc-a', T0 - 1);
    expect(backend.lease(AGENT_COLL.runs, T0, T0 + 1000, 5, 'loc-a').map((r) => r.id)).toEqual(['first']);
    // The first lease of a kind (or of one location) orders what is held then; later writes keep the order.
    expect(backend.lease(AGENT_COLL.runs, T0, T0 + 1000, 5)).toEqual([]);
    for (let i = 0; i < 5000; i++) put(`other-${i}`, 'loc-b', T0 - 10_000 + i);
    for (let i = 0; i < 5000; i++) put(`later-${i}`, 'loc-a', T0 + 60_000 + i);
    for (let i = 0; i < 5; i++) put(`due-${i}`, 'loc-a', T0 - 100 + i);
    reads = 0;
    expect(backend.lease(AGENT_COLL.runs, T0, T0 + 1000, 5, 'loc-a').map((r) => r.id)).toEqual(['due-0', 'due-1', 'due-2', 'due-3', 'due-4']);
    // Each record taken is copied (its few fields) and rewritten; nothing else is looked at.
    expect(reads).toBeLessThan(5 * 20);
    // Nothing due: a look costs next to nothing, however long the queue.
    reads = 0;
    expect(backend.lease(AGENT_COLL.runs, T0, T0 + 1000, 5, 'loc-a')).toEqual([]);
    expect(backend.lease(AGENT_COLL.runs, T0 - 20_000, T0 + 1000, 50)).toEqual([]);
    expect(reads).toBe(0);
  });

  it('SQLite: a lease of one location is an index search (records_queue) in time order, without a sort', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-lease-plan-')), 'state.db');
    Store.open(file, RUN_INDEX).close();
    const db = new Database(file);
    try {
      const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT seq FROM records WHERE kind = 'privateLocationRuns' AND check_id = ? AND at <= ? ORDER BY at, seq LIMIT ?").all('loc-a', T0, 5) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan.join('\n')).toMatch(/USING (COVERING )?INDEX records_queue \(check_id=\? AND at<\?\)/);
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    } finally {
      db.close();
    }
  });
});
