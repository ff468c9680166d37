import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/server/store/store.js';
import { RUN_COLL, RUN_INDEX } from '../../../src/server/rundata/collections.js';
import { pgDatabase, pgQuery } from '../../helpers/pg-url.js';

const sql = pgQuery;

const DUE = Date.parse('2026-01-01T00:01:00.000Z');
const claim = (checkId: string, dueMs = DUE) => ({ account: 'dev', checkId, dueMs });

/** What a session start stages: the session record, through the group commit. */
function stageSession(store: Store, checkId: string, id: string): void {
  const tx = store.begin('dev');
  tx.put(RUN_COLL.checkSessions, id, { checkSessionId: id, checkId, startedAt: new Date(DUE).toISOString(), status: 'STARTED' });
  tx.commitDeferred();
}

const claimsOf = (db: string) => sql<{ check_id: string; due_ms: number; instance: string }>(db, 'SELECT check_id, due_ms::float8 AS due_ms, instance FROM run_claims ORDER BY check_id, due_ms');
const sessionsOf = (db: string) => sql<{ id: string; check_id: string }>(db, "SELECT id, check_id FROM records WHERE kind = 'checkSessions' ORDER BY id");

/**
 * A process that opens a store on `db` (the built one, as `mac serve` runs it), claims the run of
 * check `c1` due at DUE, stages its session and is killed (SIGKILL) before the claim's commit: in
 * the start callback, or right after the claim returned when the store starts nothing itself.
 */
function dieBetweenClaimAndSession(db: string): { signal: NodeJS.Signals | null; stderr: string } {
  const script = `
    const { Store } = await import(${JSON.stringify(new URL('../../../dist/server/store/store.js', import.meta.url).href)});
    const { RUN_INDEX } = await import(${JSON.stringify(new URL('../../../dist/server/rundata/collections.js', import.meta.url).href)});
    const store = Store.open(process.argv[2], RUN_INDEX);
    const die = () => process.kill(process.pid, 'SIGKILL');
    store.claimRuns([{ account: 'dev', checkId: 'c1', dueMs: ${DUE} }], () => {
      const tx = store.begin('dev');
      tx.put('checkSessions', 'dead-1', { checkSessionId: 'dead-1', checkId: 'c1', startedAt: new Date(${DUE}).toISOString() });
      tx.commitDeferred();
      die();
    });
    die();
  `;
  // A file, not `node -e`: the store's worker thread would inherit the evaluated script.
  const file = join(mkdtempSync(join(tmpdir(), 'mac-claims-')), 'die.mjs');
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file, db], { encoding: 'utf8', timeout: 30_000 });
  return { signal: r.signal, stderr: r.stderr };
}

// Two stores on one PostgreSQL database are two instances of `mac serve`.
describe('a claimed run commits with the session it starts, or not at all (PostgreSQL)', () => {
  it('an instance killed between its claim and the commit of the session leaves no claim: another instance claims that due time and runs it', async () => {
    const db = pgDatabase();
    const b = Store.open(db, RUN_INDEX);
    try {
      const died = dieBetweenClaimAndSession(db);
      expect(died.signal, died.stderr).toBe('SIGKILL');
      expect(await claimsOf(db), 'a claim without its session').toEqual([]);
      expect(await sessionsOf(db)).toEqual([]);
      const started: number[] = [];
      expect(b.claimRuns([claim('c1')], (i) => (started.push(i), stageSession(b, 'c1', 'b-1')))).toEqual([true]);
      expect(started).toEqual([0]);
      expect(await claimsOf(db)).toEqual([{ check_id: 'c1', due_ms: DUE, instance: expect.stringMatching(/^\d+-/) }]);
      expect((await sessionsOf(db)).map((s) => s.id)).toEqual(['b-1']);
    } finally {
      b.close();
    }
  });

  it('a failed write of the sessions rolls the claims back with them; the retry writes both, and the other instance is refused', async () => {
    const db = pgDatabase();
    const a = Store.open(db, RUN_INDEX);
    const b = Store.open(db, RUN_INDEX);
    const errors: string[] = [];
    a.onError = (err) => void errors.push(String(err));
    try {
      // Session records are refused while the table `refuse` has a row.
      await sql(
        db,
        `CREATE TABLE refuse (x int);
         CREATE FUNCTION refuse_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.kind = 'checkSessions' AND EXISTS (SELECT 1 FROM refuse) THEN RAISE EXCEPTION 'session writes refused'; END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_sessions BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION refuse_sessions();
         INSERT INTO refuse VALUES (1);`,
      );
      expect(a.claimRuns([claim('c1'), claim('c2')], (i) => stageSession(a, `c${i + 1}`, `a-${i + 1}`))).toEqual([true, true]);
      expect(errors.join('\n')).toContain('session writes refused');
      expect(await claimsOf(db), 'claims without their sessions').toEqual([]);
      expect(a.pendingOperations).toBeGreaterThan(0);

      // Written again with their claims.
      await sql(db, 'DELETE FROM refuse');
      a.flush();
      expect((await claimsOf(db)).map((c) => [c.check_id, c.instance.startsWith(`${process.pid}-`)])).toEqual([
        ['c1', true],
        ['c2', true],
      ]);
      expect((await sessionsOf(db)).map((s) => s.id)).toEqual(['a-1', 'a-2']);
      const started: number[] = [];
      expect(b.claimRuns([claim('c1'), claim('c2')], (i) => started.push(i))).toEqual([false, false]);
      expect(started).toEqual([]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('a start that throws rolls its claims back at once (no transaction left open): the other instance claims them without waiting', async () => {
    const db = pgDatabase();
    const a = Store.open(db, RUN_INDEX);
    const b = Store.open(db, RUN_INDEX);
    try {
      expect(() =>
        a.claimRuns([claim('c1'), claim('c2')], () => {
          throw new Error('cannot start');
        }),
      ).toThrow('cannot start');
      expect(await claimsOf(db)).toEqual([]);
      const t0 = Date.now();
      expect(b.claimRuns([claim('c1'), claim('c2')], (i) => stageSession(b, `c${i + 1}`, `b-${i + 1}`))).toEqual([true, true]);
      expect(Date.now() - t0).toBeLessThan(2000);
      expect((await sessionsOf(db)).map((s) => s.id)).toEqual(['b-1', 'b-2']);
      // a goes on: its next claims are held and committed as usual.
      expect(a.claimRuns([claim('c1', DUE + 60_000)], () => stageSession(a, 'c1', 'a-3'))).toEqual([true]);
      expect((await sessionsOf(db)).map((s) => s.id)).toEqual(['a-3', 'b-1', 'b-2']);
      expect(await sql(db, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")).toEqual([{ n: 0 }]);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('claims on one instance (memory, SQLite)', () => {
  it('every claim is granted and started, in order; the sessions go through the group commit as before', () => {
    const s = Store.memory(RUN_INDEX);
    const started: number[] = [];
    expect(s.claimRuns([claim('c1'), claim('c2')], (i) => (started.push(i), stageSession(s, `c${i + 1}`, `m-${i + 1}`)))).toEqual([true, true]);
    expect(started).toEqual([0, 1]);
    expect(s.pendingOperations).toBe(2);
    expect(s.claimRuns([], () => started.push(9))).toEqual([]);
    s.close();
  });
});
