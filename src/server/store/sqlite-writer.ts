/**
 * The writer thread of the SQLite backend (sqlite.ts `SqliteWriter`): writes the group commit of
 * run data on a connection of its own, so that the main thread's event loop goes on while SQLite
 * writes and syncs the file. One batch is one `BEGIN IMMEDIATE` transaction; the main thread gets
 * the answer on its port, and can block on the shared Int32Array (Atomics.wait) until a given
 * batch is answered, when a write of its own must come after it.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import Database from 'libsql';

/** One statement of a batch: the key of a prepared statement of `WriterSetup.sql` and its parameters. */
export type WriterRow = [string, unknown[]];

/** A batch to write, or the end of the thread. */
export type WriterRequest = { id: number; rows: WriterRow[] } | { id: number; close: true };

/** A batch's answer; id 0 (`ready`) tells that the thread started. */
export type WriterAnswer = { id: number; ready?: true } | { id: number; error: string; code?: string };

export interface WriterSetup {
  file: string;
  /** The statements a batch may run, by key (the same text as the main connection's). */
  sql: Record<string, string>;
  flag: SharedArrayBuffer;
  port: MessagePort;
}

const { file, sql, flag, port } = workerData as WriterSetup;
// [0]: the id of the last batch answered; [1]: 1 once the thread is ready for batches.
const done = new Int32Array(flag);
let db: InstanceType<typeof Database> | undefined;
let statements: Map<string, Database.Statement<unknown[]>> | undefined;

function open(): { db: InstanceType<typeof Database>; statements: Map<string, Database.Statement<unknown[]>> } {
  if (db && statements) return { db, statements };
  const c = new Database(file);
  // Durable when answered, as the main connection's commits; a write of the main thread or
  // a checkpoint under way is waited for rather than failed at once.
  c.exec('PRAGMA synchronous = FULL');
  c.exec('PRAGMA busy_timeout = 5000');
  statements = new Map(Object.entries(sql).map(([key, text]) => [key, c.prepare(text)]));
  db = c;
  return { db: c, statements };
}

// Ready once the connection is open and its statements prepared: until then the main thread
// writes its batches itself rather than wait for this thread's start (seconds on a loaded
// machine). A connection that cannot open is reported by the first batch (opened again there).
try {
  open();
} catch {
  db = undefined;
  statements = undefined;
}
Atomics.store(done, 1, 1);
port.postMessage({ id: 0, ready: true } satisfies WriterAnswer);

port.on('message', (req: WriterRequest) => {
  let answer: WriterAnswer;
  if ('close' in req) {
    try {
      db?.close();
    } catch {
      // Closed with the thread anyway.
    }
    db = undefined;
    answer = { id: req.id };
  } else {
    try {
      const { db: c, statements: s } = open();
      c.transaction(() => {
        for (const [key, params] of req.rows) {
          const stmt = s.get(key);
          if (!stmt) throw new Error(`no statement ${key}`);
          stmt.run(...params);
        }
      }).immediate();
      answer = { id: req.id };
    } catch (err) {
      const e = err as { message?: string; code?: string };
      answer = { id: req.id, error: String(e.message ?? err), code: typeof e.code === 'string' ? e.code : undefined };
    }
  }
  port.postMessage(answer);
  Atomics.store(done, 0, req.id);
  Atomics.notify(done, 0);
});
