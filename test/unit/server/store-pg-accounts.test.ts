import { describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../../src/server/store/postgres.js';
import type { IndexedKinds } from '../../../src/server/store/backend.js';
import { pgDatabase } from '../../helpers/pg-url.js';

const IDX: IndexedKinds = { results: { check: 'checkId', time: 'startedAt', expires: true } };
const turn = () => new Promise((r) => setImmediate(r));

describe('PostgreSQL: the accounts the scheduler scans', () => {
  it('are read again when configuration changes, not at every commit of run data', async () => {
    const backend = PostgresBackend.open(pgDatabase(), IDX);
    try {
      // Every statement sent to the worker, by its text.
      const sent: string[] = [];
      const raw = backend as unknown as { call(req: { op: string; sql?: string }, timeoutMs?: number): unknown };
      const call = raw.call.bind(raw);
      raw.call = (req, timeoutMs) => {
        if (req.sql) sent.push(req.sql);
        return call(req, timeoutMs);
      };
      const reads = () => sent.filter((q) => /GROUP BY account/.test(q)).length;
      backend.commit({ a: 'dev', o: [['p', 'checks', 'c1', { id: 'c1', name: 'one' }]] });
      await turn();
      expect(backend.accountIds()).toEqual(['dev']);
      expect(reads()).toBe(1);
      // Run data, as the scheduler writes it between two scans.
      for (let i = 0; i < 3; i++) {
        backend.commitMany([{ a: 'dev', o: [['p', 'results', `r${i}`, { id: `r${i}`, checkId: 'c1', startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }]] }]);
        await turn();
        expect(backend.accountIds()).toEqual(['dev']);
      }
      expect(reads()).toBe(1);
      // A new account's first configuration is seen by the next scan.
      backend.commit({ a: 'other', o: [['p', 'checks', 'c2', { id: 'c2', name: 'two' }]] });
      await turn();
      expect(backend.accountIds()).toEqual(['dev', 'other']);
      expect(reads()).toBe(2);
    } finally {
      backend.close();
    }
  });
});
