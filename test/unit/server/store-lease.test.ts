import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
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
