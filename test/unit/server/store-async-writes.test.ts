import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { GROUP_COMMIT_MAX_OPS, GROUP_COMMIT_MS, Store } from '../../../src/server/store/store.js';
import type { IndexedKinds } from '../../../src/server/store/backend.js';
import { pgDatabase } from '../../helpers/pg-url.js';

// The writes the scheduler makes all the time (its claims, the group commit of run data) are sent
// to the database's thread without the event loop waiting: while another connection holds what
// they need, timers still fire and the store still answers from memory; the outcome is handled
// when the database answers. Each test holds a lock from another connection (with a timeout of its
// own, so that a store that blocks fails the test instead of hanging it) and looks meanwhile.

const IDX: IndexedKinds = { results: { check: 'checkId', time: 'startedAt', expires: true } };
const DUE = Date.parse('2026-01-01T00:01:00.000Z');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deferredPut(s: Store, id: string): void {
  const tx = s.begin('dev');
  tx.put('results', id, { id, checkId: 'c', startedAt: new Date(DUE).toISOString() });
  tx.commitDeferred();
}

/** Polls `ok` every 10 ms for up to `ms` (generous: the machine may be loaded). */
async function until(ok: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await sleep(10);
  return ok();
}

/** A transaction on its own connection, left open: PostgreSQL ends it by itself after `idleMs`. */
async function holder(url: string, idleMs: number): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  c.on('error', () => undefined);
  await c.query('BEGIN');
  await c.query(`SET LOCAL idle_in_transaction_session_timeout = '${idleMs}ms'`);
  return c;
}

describe('writes that do not hold the event loop (PostgreSQL)', () => {
  it('a claim waiting for a row another connection locked: timers fire meanwhile, and the run starts only once the claim is committed', async () => {
    const url = pgDatabase();
    const s = Store.open(url, IDX);
    const other = await holder(url, 5_000);
    try {
      // Another instance is inserting the same due time and has not committed yet.
      await other.query("INSERT INTO run_claims (account, check_id, due_ms, instance) VALUES ('dev', 'c1', $1, 'other')", [DUE]);
      const started: number[] = [];
      let answered: boolean[] | undefined;
      const claims = s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: DUE }, { account: 'dev', checkId: 'c2', dueMs: DUE }], (i) => started.push(i));
      void claims.then((g) => (answered = g));
      // A synchronous claim waited for the other connection here (Atomics.wait): no timer fired.
      // Timer ticks counted while the claims are unanswered.
      let ticks = 0;
      const timer = setInterval(() => answered === undefined && ticks++, 10);
      await sleep(300);
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(0);
      expect(answered).toBeUndefined();
      expect(started, 'a run started before its claim was committed').toEqual([]);
      // The other instance gives the due time up: this one takes it, and starts both runs once.
      await other.query('ROLLBACK');
      expect(await claims).toEqual([true, true]);
      expect(started).toEqual([0, 1]);
    } finally {
      await other.end().catch(() => undefined);
      s.close();
    }
  });

  it('a claim another instance committed first is not acted upon', async () => {
    const url = pgDatabase();
    const s = Store.open(url, IDX);
    const other = await holder(url, 5_000);
    try {
      await other.query("INSERT INTO run_claims (account, check_id, due_ms, instance) VALUES ('dev', 'c1', $1, 'other')", [DUE]);
      const started: number[] = [];
      const claims = s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: DUE }], (i) => started.push(i));
      await sleep(100);
      await other.query('COMMIT');
      expect(await claims).toEqual([false]);
      expect(started).toEqual([]);
    } finally {
      await other.end().catch(() => undefined);
      s.close();
    }
  });

  it('a group commit waiting for a lock: timers fire, the records are read from memory meanwhile, and they land when the lock is released', async () => {
    const url = pgDatabase();
    const s = Store.open(url, IDX);
    let other: pg.Client | undefined;
    try {
      // The versions row of the kind exists (each batch bumps it)...
      deferredPut(s, 'r0');
      s.flush();
      // ...and another connection holds it locked.
      other = await holder(url, 5_000);
      await other.query("SELECT value FROM versions WHERE kind = 'results' FOR UPDATE");
      deferredPut(s, 'r1');
      // Timer ticks counted while the batch is not written.
      let ticks = 0;
      const timer = setInterval(() => s.pendingOperations === 1 && ticks++, 10);
      // The batch is sent after GROUP_COMMIT_MS; then it waits for the lock in the database.
      await sleep(GROUP_COMMIT_MS + 300);
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(0);
      expect(s.get('dev', 'results', 'r1')).toMatchObject({ id: 'r1' });
      expect(s.pendingOperations).toBe(1);
      await other.query('COMMIT');
      expect(await until(() => s.pendingOperations === 0)).toBe(true);
    } finally {
      await other?.end().catch(() => undefined);
      s.close();
    }
    const again = Store.open(url, IDX);
    try {
      expect(again.query('dev', 'results', { checkId: 'c', limit: 10 }).map((r) => r.id)).toEqual(['r0', 'r1']);
    } finally {
      again.close();
    }
  });
});

describe('the release of held claims failing (PostgreSQL)', () => {
  it('a later write of a started session is not overwritten by the retry of its release', async () => {
    const url = pgDatabase();
    const s = Store.open(url, IDX);
    s.onError = () => undefined;
    let other: pg.Client | undefined;
    const session = (v: number) => {
      const tx = s.begin('dev');
      tx.put('results', 'x', { id: 'x', checkId: 'c1', startedAt: new Date(DUE).toISOString(), v });
      tx.commitDeferred();
    };
    try {
      // The versions row of the kind exists, and another connection holds it: the release (which
      // bumps it) waits in the database.
      deferredPut(s, 'r0');
      s.flush();
      other = await holder(url, 15_000);
      await other.query("SELECT value FROM versions WHERE kind = 'results' FOR UPDATE");
      // The run starts once its claim is held; its first write goes with the release.
      expect(await s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: DUE }], () => session(1))).toEqual([true]);
      // The run goes on: a later write of the same record, group-committed.
      session(2);
      await sleep(GROUP_COMMIT_MS * 4);
      // The release fails (its connection ends while it waits).
      const waiting = async () => (await other!.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")).rows as Array<{ pid: number }>;
      let pids: Array<{ pid: number }> = [];
      for (const end = Date.now() + 20_000; pids.length === 0 && Date.now() < end; await sleep(20)) pids = await waiting();
      expect(pids.length).toBeGreaterThan(0);
      for (const { pid } of pids) await other.query('SELECT pg_terminate_backend($1)', [pid]);
      await sleep(GROUP_COMMIT_MS * 4);
      await other.query('COMMIT');
      // Everything lands, in the order it was written: the record holds its last value.
      expect(await until(() => s.pendingOperations === 0, 30_000)).toBe(true);
      s.flush();
    } finally {
      await other?.end().catch(() => undefined);
      s.close();
    }
    const again = Store.open(url, IDX);
    try {
      expect(again.get('dev', 'results', 'x')).toMatchObject({ v: 2 });
    } finally {
      again.close();
    }
  });
});

describe('records staged by the runs a held claim started (PostgreSQL)', () => {
  // The queue of a private location and a joined session: staged by the runs a claim started
  // (they land with the claim's release), then changed in the database by others (an agent's lease,
  // another instance's compare-and-set). Once the release landed, `getLatest` reads what the
  // database holds, not what this instance staged: the release's kinds are no longer pending.
  const QUEUE: IndexedKinds = {
    ...IDX,
    queue: { check: 'locationId', time: 'availableAt', expires: false, editable: true },
    sessions: { check: 'checkId', time: 'startedAt', expires: true },
  };
  const at = (ms: number) => new Date(ms).toISOString();

  it('a queued run leased after the release, and a session another instance wrote: read as the database holds them', async () => {
    const url = pgDatabase();
    const s = Store.open(url, QUEUE);
    const other = Store.open(url, QUEUE);
    try {
      const granted = await s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: DUE }], () => {
        const tx = s.begin('dev');
        tx.put('sessions', 's1', { id: 's1', checkId: 'c1', startedAt: at(DUE), rev: 0 });
        tx.put('queue', 'q1', { id: 'q1', locationId: 'L', checkId: 'c1', availableAt: at(DUE) });
        tx.commitDeferred();
      });
      expect(granted).toEqual([true]);
      // The release is answered (nothing waits to be written).
      expect(await until(() => s.pendingOperations === 0)).toBe(true);
      // An agent's lease moves the run's time in the database.
      const leased = s.lease('queue', DUE, DUE + 60_000, 10, 'L');
      expect(leased.map((l) => l.id)).toEqual(['q1']);
      expect(s.getLatest('dev', 'queue', 'q1')).toMatchObject({ availableAt: at(DUE + 60_000) });
      // Another instance writes the session by compare-and-set.
      const tx = other.begin('dev');
      tx.put('sessions', 's1', { id: 's1', checkId: 'c1', startedAt: at(DUE), rev: 1 });
      tx.expect('sessions', 's1', 0);
      tx.commit();
      expect(s.getLatest('dev', 'sessions', 's1')).toMatchObject({ rev: 1 });
      // A write of this instance that expects that revision is taken.
      const mine = s.begin('dev');
      mine.put('sessions', 's1', { id: 's1', checkId: 'c1', startedAt: at(DUE), rev: 2 });
      mine.expect('sessions', 's1', 1);
      mine.commit();
      expect(other.getLatest('dev', 'sessions', 's1')).toMatchObject({ rev: 2 });
    } finally {
      other.close();
      s.close();
    }
  });

  it('a read of a kind whose writes are in a release under way is answered after the release', async () => {
    const url = pgDatabase();
    const s = Store.open(url, QUEUE);
    let lock: pg.Client | undefined;
    try {
      // The versions row of the queue exists, and another connection holds it: the release (which
      // bumps it) waits in the database.
      const first = s.begin('dev');
      first.put('queue', 'q0', { id: 'q0', locationId: 'L', checkId: 'c0', availableAt: at(DUE) });
      first.commitDeferred();
      s.flush();
      // Ended by PostgreSQL itself after 1.5 s idle (this thread may be waiting meanwhile).
      lock = await holder(url, 1_500);
      await lock.query("SELECT value FROM versions WHERE kind = 'queue' FOR UPDATE");
      const granted = s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: DUE }], () => {
        const tx = s.begin('dev');
        tx.put('queue', 'q1', { id: 'q1', locationId: 'L', checkId: 'c1', availableAt: at(DUE) });
        tx.commitDeferred();
      });
      expect(await granted).toEqual([true]);
      // The run queued: a write of the kind staged meanwhile (not sent while the release is under way).
      const later = s.begin('dev');
      later.put('queue', 'q2', { id: 'q2', locationId: 'L', checkId: 'c2', availableAt: at(DUE) });
      later.commitDeferred();
      // The lease takes what the release and the later write queued.
      const leased = s.lease('queue', DUE, DUE + 60_000, 10, 'L');
      expect(leased.map((l) => l.id).sort()).toEqual(['q0', 'q1', 'q2']);
      expect(s.getLatest('dev', 'queue', 'q2')).toMatchObject({ availableAt: at(DUE + 60_000) });
    } finally {
      await lock?.end().catch(() => undefined);
      s.close();
    }
  });
});

describe('writes that do not hold the event loop (SQLite)', () => {
  it('a group commit waiting for the file another connection is writing: timers fire, and the batch lands after it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-async-writes-')), 'state.db');
    const s = Store.open(file, IDX);
    const errors: unknown[] = [];
    s.onError = (e) => errors.push(e);
    const other = new Database(file);
    try {
      // The writer thread ready first (a batch sent before is written on this thread: below).
      await s.writesStarted();
      deferredPut(s, 'r0');
      s.flush();
      // Another connection takes the write lock of the file for 500 ms (released by a timer: a
      // store that waited synchronously would hold this thread and the release with it, until
      // SQLite's busy timeout failed its write).
      other.exec('BEGIN IMMEDIATE');
      const release = setTimeout(() => other.exec('COMMIT'), 500);
      deferredPut(s, 'r1');
      let ticks = 0;
      const timer = setInterval(() => s.pendingOperations === 1 && ticks++, 10);
      await sleep(GROUP_COMMIT_MS + 200);
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(0);
      expect(s.get('dev', 'results', 'r1')).toMatchObject({ id: 'r1' });
      expect(s.pendingOperations).toBe(1);
      expect(await until(() => s.pendingOperations === 0)).toBe(true);
      clearTimeout(release);
      // It waited for the lock (SQLite's busy timeout, in the writer thread): it did not fail.
      expect(errors).toEqual([]);
      // Another connection (the reader thread's, a restart's) reads it.
      expect(other.prepare("SELECT id FROM records WHERE kind = 'results' ORDER BY seq").raw().all()).toEqual([['r0'], ['r1']]);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      s.close();
    }
  });
});

describe('the writer thread starting (SQLite)', () => {
  it('a batch sent before the thread is ready is written at once on this thread; once ready, batches go to the thread', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mac-async-writes-')), 'state.db');
    const s = Store.open(file, IDX);
    const errors: unknown[] = [];
    s.onError = (e) => errors.push(e);
    const full = (prefix: string) => {
      // A full batch is sent in the same turn (the bound of the group commit), before any answer
      // of the thread can be taken.
      for (let i = 0; i < GROUP_COMMIT_MAX_OPS; i++) deferredPut(s, `${prefix}${i}`);
    };
    try {
      // The thread is started by the first batch and cannot be ready in this turn. Sent to it,
      // the batch waited for its start (a worker and its modules loaded, a connection opened:
      // seconds on a loaded machine), and so did the next synchronous write, holding the event
      // loop: the scheduler passed over due times meanwhile.
      full('a');
      expect(s.pendingOperations).toBe(0);
      await s.writesStarted();
      full('b');
      // Ready: sent to the thread, answered later.
      expect(s.pendingOperations).toBe(GROUP_COMMIT_MAX_OPS);
      expect(await until(() => s.pendingOperations === 0)).toBe(true);
      expect(errors).toEqual([]);
      const other = new Database(file, { readonly: true });
      try {
        expect(other.prepare("SELECT count(*) FROM records WHERE kind = 'results'").raw().get()).toEqual([2 * GROUP_COMMIT_MAX_OPS]);
      } finally {
        other.close();
      }
    } finally {
      s.close();
    }
  });
});

describe('a process that awaits only an answer of the database thread (built store, PostgreSQL)', () => {
  // `mac serve` stopping awaits the scheduler's claims under way (Store.claimsSettled), with its
  // server closed and its timers cleared: the answer of the database thread may then be all that
  // is left. The process must live until it comes, then start the runs and close the store, which
  // writes what they staged. A child process, since only a process of its own can end for want of
  // anything that keeps it alive (the test runner keeps its own alive).
  it('lives until the claims under way are answered, then closes the store with what they started', async () => {
    const url = pgDatabase();
    Store.open(url, IDX).close();
    const other = await holder(url, 20_000);
    const dir = mkdtempSync(join(tmpdir(), 'mac-async-stop-'));
    const file = join(dir, 'stop.mjs');
    writeFileSync(
      file,
      `
      const { Store } = await import(${JSON.stringify(new URL('../../../dist/server/store/store.js', import.meta.url).href)});
      const s = Store.open(process.argv[2], ${JSON.stringify(IDX)});
      const granted = s.claimRunsAsync([{ account: 'dev', checkId: 'c1', dueMs: ${DUE} }], () => {
        const tx = s.begin('dev');
        tx.put('results', 'r1', { id: 'r1', checkId: 'c', startedAt: ${JSON.stringify(new Date(DUE).toISOString())} });
        tx.commitDeferred();
      });
      process.stderr.write('claims sent\\n');
      await s.claimsSettled();
      s.close();
      process.stdout.write(JSON.stringify(await granted));
      `,
    );
    try {
      // Another instance is inserting the same due time: the claim waits for it.
      await other.query("INSERT INTO run_claims (account, check_id, due_ms, instance) VALUES ('dev', 'c1', $1, 'other')", [DUE]);
      const child = spawn(process.execPath, [file, url], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let ended = false;
      void exited.then(() => (ended = true));
      expect(await until(() => err.includes('claims sent') || ended, 30_000)).toBe(true);
      // The claim is under way (or the process already ended without waiting for it).
      await sleep(300);
      await other.query('ROLLBACK');
      const code = await exited;
      expect({ code, out, err: err.replace('claims sent\n', '') }).toEqual({ code: 0, out: '[true]', err: '' });
      const s = Store.open(url, IDX);
      try {
        expect(s.query('dev', 'results', { checkId: 'c', limit: 10 }).map((r) => r.id)).toEqual(['r1']);
      } finally {
        s.close();
      }
    } finally {
      await other.end().catch(() => undefined);
    }
  }, 60_000);
});
