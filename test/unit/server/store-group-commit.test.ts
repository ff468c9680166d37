import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUP_COMMIT_MAX_OPS, GROUP_COMMIT_MS, Store } from '../../../src/server/store/store.js';
import { MemoryBackend } from '../../../src/server/store/memory.js';
import { SqliteBackend } from '../../../src/server/store/sqlite.js';
import { PostgresBackend } from '../../../src/server/store/postgres.js';
import type { Backend, IndexedKinds, StoreCommit } from '../../../src/server/store/backend.js';
import { RunRecorder } from '../../../src/server/rundata/recorder.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { pgDatabase } from '../../helpers/pg-url.js';

const IDX: IndexedKinds = {
  results: { check: 'checkId', time: 'startedAt', expires: true },
};

const at = (min: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + min * 60_000).toISOString();

/** A backend whose calls are counted (`calls.commit`, `calls.commitMany`, `calls.get`, ...), and `batches`: what each commitMany wrote. */
function counted(inner: Backend) {
  const calls: Record<string, number> = {};
  const batches: StoreCommit[][] = [];
  let failNext = 0;
  const backend = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        // A batch sent without waiting (PostgreSQL) counts as a group commit too.
        const batch = prop === 'commitMany' || prop === 'commitManyAsync';
        calls[batch ? 'commitMany' : String(prop)] = (calls[batch ? 'commitMany' : String(prop)] ?? 0) + 1;
        if (batch) {
          if (failNext > 0) {
            failNext--;
            if (prop === 'commitMany') throw new Error('disk full');
            return (args[1] as (err?: unknown) => void)(new Error('disk full'));
          }
          batches.push([...(args[0] as StoreCommit[])]);
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend, calls, batches, failOnce: () => (failNext = 1) };
}

function deferredPut(s: Store, account: string, kind: string, id: string, rec: Record<string, unknown>) {
  const tx = s.begin(account);
  tx.put(kind, id, rec);
  tx.commitDeferred();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([
  ['memory', (idx: IndexedKinds) => ({ make: () => new MemoryBackend(idx) as Backend, reopen: undefined })],
  [
    'sqlite',
    (idx: IndexedKinds) => {
      const file = join(mkdtempSync(join(tmpdir(), 'mac-group-')), 'state.db');
      return { make: () => SqliteBackend.open(file, idx) as Backend, reopen: () => Store.open(file, idx) };
    },
  ],
  [
    'postgres',
    (idx: IndexedKinds) => {
      const url = pgDatabase();
      return { make: () => PostgresBackend.open(url, idx) as Backend, reopen: () => Store.open(url, idx) };
    },
  ],
] as const)('group commit on %s', (_name, setup) => {
  it('deferred commits are visible to get, query and count at once, and written by one backend transaction', () => {
    const { make } = setup(IDX);
    const c = counted(make());
    const s = Store.over(c.backend, IDX);
    const before = s.version('results');
    deferredPut(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0) });
    deferredPut(s, 'dev', 'results', 'b', { id: 'b', checkId: 'c', startedAt: at(1) });
    const tx = s.begin('dev');
    tx.put('results', 'a', { id: 'a', checkId: 'c', startedAt: at(0), ok: true });
    tx.commitDeferred();
    expect(c.calls.commit ?? 0).toBe(0);
    expect(c.calls.commitMany ?? 0).toBe(0);
    expect(s.pendingOperations).toBe(3);
    // get answers from the queue; a transaction's query by check merges it without writing it.
    expect(s.get('dev', 'results', 'a')).toEqual({ id: 'a', checkId: 'c', startedAt: at(0), ok: true });
    expect(s.begin('dev').query('results', { checkId: 'c', limit: 1000 }).map((r) => r.id)).toEqual(['a', 'b']);
    expect(c.calls.commitMany ?? 0).toBe(0);
    // Any other read of the kind writes the queue first: one transaction for the three commits.
    expect(s.query('dev', 'results', { checkId: 'c', order: 'time-desc', limit: 1000 }).map((r) => r.id)).toEqual(['b', 'a']);
    expect(c.calls.commitMany).toBe(1);
    expect(c.batches[0]).toHaveLength(3);
    expect(c.calls.commit ?? 0).toBe(0);
    expect(s.pendingOperations).toBe(0);
    expect(s.count('dev', 'results')).toBe(2);
    expect(s.version('results')).toBeGreaterThan(before);
    s.close();
  });

  it('a non-deferred commit writes the queue first, in its own transaction, order kept', () => {
    const { make } = setup(IDX);
    const c = counted(make());
    const s = Store.over(c.backend, IDX);
    deferredPut(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0) });
    deferredPut(s, 'dev', 'results', 'b', { id: 'b', checkId: 'd', startedAt: at(0) });
    // A check's delete after its run data was recorded removes that run data.
    const tx = s.begin('dev');
    tx.deleteByCheck('results', 'c');
    tx.put('checks', 'x', { id: 'x' });
    tx.commit();
    expect(c.calls.commitMany).toBe(1);
    expect(c.calls.commit ?? 0).toBe(0);
    expect(c.batches[0]).toHaveLength(3);
    expect(s.pendingOperations).toBe(0);
    expect(s.get('dev', 'results', 'a')).toBeUndefined();
    expect(s.query('dev', 'results', { limit: 1000 }).map((r) => r.id)).toEqual(['b']);
    expect(s.get('dev', 'checks', 'x')).toEqual({ id: 'x' });
    s.close();
  });

  it('the timer writes the queue within GROUP_COMMIT_MS, the bound at once, and close writes the rest', async () => {
    const { make, reopen } = setup(IDX);
    const c = counted(make());
    const s = Store.over(c.backend, IDX);
    deferredPut(s, 'dev', 'results', 't', { id: 't', checkId: 'c', startedAt: at(0) });
    await sleep(GROUP_COMMIT_MS * 4 + 50);
    expect(c.calls.commitMany).toBe(1);
    // Sent by then; on PostgreSQL without waiting: it lands when the database answers.
    for (let waited = 0; s.pendingOperations > 0 && waited < 20_000; waited += 10) await sleep(10);
    expect(s.pendingOperations).toBe(0);
    for (let i = 0; i < GROUP_COMMIT_MAX_OPS; i++) deferredPut(s, 'dev', 'results', `n${i}`, { id: `n${i}`, checkId: 'c', startedAt: at(1) });
    expect(c.calls.commitMany).toBe(2);
    expect(c.batches[1]).toHaveLength(GROUP_COMMIT_MAX_OPS);
    deferredPut(s, 'dev', 'results', 'last', { id: 'last', checkId: 'c', startedAt: at(2) });
    s.close();
    expect(c.calls.commitMany).toBe(3);
    if (reopen) {
      const again = reopen();
      expect(again.get('dev', 'results', 'last')).toMatchObject({ id: 'last' });
      expect(again.count('dev', 'results')).toBe(GROUP_COMMIT_MAX_OPS + 2);
      again.close();
    }
  });

  it('a failed group commit is reported, kept visible and retried', () => {
    const { make } = setup(IDX);
    const c = counted(make());
    const s = Store.over(c.backend, IDX);
    const errors: unknown[] = [];
    s.onError = (e) => errors.push(e);
    deferredPut(s, 'dev', 'results', 'a', { id: 'a', checkId: 'c', startedAt: at(0) });
    c.failOnce();
    expect(s.count('dev', 'results')).toBe(0);
    expect(String(errors[0])).toMatch(/run data not written yet \(1 operations kept.*disk full/);
    expect(s.get('dev', 'results', 'a')).toMatchObject({ id: 'a' });
    expect(s.pendingOperations).toBe(1);
    s.flush();
    expect(s.pendingOperations).toBe(0);
    expect(s.count('dev', 'results')).toBe(1);
    s.close();
  });

  it('a recorded session reads its own records from memory and is written once per group, with unique checkRunIds', () => {
    const { make, reopen } = setup(RUN_INDEX);
    const c = counted(make());
    const s = Store.over(c.backend, RUN_INDEX);
    const recorder = new RunRecorder(s, Date.now);
    const check = { id: 'c1', name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 };
    const attempt = (location: string) => ({
      location,
      startedAt: new Date().toISOString(),
      stoppedAt: new Date().toISOString(),
      responseTime: 3,
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      apiCheckResult: null,
      multiStepCheckResult: null,
    });
    const runIds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const session = recorder.openSession('dev', { check, runLocations: ['eu-west-1', 'us-east-1'] });
      runIds.push(session.checkRunId);
      s.flush();
      const reads = c.calls.get ?? 0;
      recorder.markExecuting('dev', session.checkSessionId);
      recorder.finishLocation('dev', session.checkSessionId, attempt('eu-west-1'));
      const done = recorder.finishLocation('dev', session.checkSessionId, attempt('us-east-1'));
      expect(done.session.status).toBe('PASSED');
      // The session and its results were written by this store: no database read.
      expect(c.calls.get ?? 0).toBe(reads);
    }
    expect(new Set(runIds).size).toBe(3);
    expect(c.calls.commit ?? 0).toBe(0);
    s.close();
    if (reopen) {
      const again = reopen();
      expect(again.query('dev', RUN_COLL.checkResults, { checkId: 'c1', limit: 1000 })).toHaveLength(6);
      expect(again.query('dev', RUN_COLL.checkSessions, { checkId: 'c1', limit: 1000 }).map((x) => x.status)).toEqual(['PASSED', 'PASSED', 'PASSED']);
      // A new instance (or a restart) never hands out an id given before.
      const tx = again.begin('dev');
      expect(tx.nextInt('checkRunId', 64)).toBeGreaterThan(Math.max(...runIds));
      again.close();
    }
  });
});

describe('records recorded by one instance and changed by another (PostgreSQL)', () => {
  it('an error group archived through another instance is read archived, while a session stays answered from memory', () => {
    const db = pgDatabase();
    const a = Store.open(db, RUN_INDEX);
    const b = Store.open(db, RUN_INDEX);
    try {
      const rec = a.begin('dev');
      rec.put('errorGroups', 'g1', { id: 'g1', checkId: 'c1', lastSeen: new Date().toISOString(), archived: false });
      rec.put('checkSessions', 's1', { checkSessionId: 's1', checkId: 'c1', startedAt: new Date().toISOString(), status: 'STARTED' });
      rec.commitDeferred();
      a.flush();
      const archive = b.begin('dev');
      archive.put('errorGroups', 'g1', { ...b.get('dev', 'errorGroups', 'g1')!, archived: true });
      archive.commit();
      expect(a.get('dev', 'errorGroups', 'g1')?.archived).toBe(true);
      expect(a.get('dev', 'checkSessions', 's1')?.status).toBe('STARTED');
    } finally {
      a.close();
      b.close();
    }
  });
});
