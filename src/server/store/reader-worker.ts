/**
 * The reader thread of a database store (reader.ts): runs the heavy reads of run data (windowed
 * reductions, bounded queries) off the main thread, on connections of its own, and answers through
 * its port; the main thread awaits a promise and never blocks. SQLite: one connection that only reads
 * (WAL: it reads the last committed state while the main thread writes). PostgreSQL: a small pool,
 * so reads run side by side with each other and with the store's synchronous connection. The
 * reduction of an aggregate's rows (ranking the values for percentiles) and the parse of a
 * query's records are done here too: the main thread receives the small result.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type DatabaseType from 'libsql';
import { aggregateRows, type AggregateQuery } from './aggregate.js';
import { cellOfRow } from './rollup.js';

/** What the main thread asks (one request, or the reads of one turn of its event loop). `post`: how the rows are turned into the answer. */
export type ReaderRequest = { id: number; sql: string; args: unknown[]; post: ReaderPost } | { id: number; close: true };
export type ReaderMessage = ReaderRequest | Array<Extract<ReaderRequest, { sql: string }>>;

/** `rows`: as they are; `aggregate`: aggregateRows(rows, q); `json`: the first column of the first row parsed (a JSON text); `cells`: rollup.ts cellOfRow of each row. */
export type ReaderPost = { kind: 'rows' } | { kind: 'aggregate'; q: AggregateQuery } | { kind: 'json' } | { kind: 'cells' };

export type ReaderAnswer = { id: number; value: unknown } | { id: number; error: string; code?: string };

export interface ReaderSetup {
  driver: 'sqlite' | 'postgres';
  /** The database file, or the PostgreSQL URL. */
  target: string;
  /** Connections of the PostgreSQL pool. */
  connections?: number;
}

const setup = workerData as ReaderSetup;

/** Runs one statement: its rows as arrays. */
let run: (sql: string, args: unknown[]) => Promise<unknown[][]>;
let close: () => Promise<void>;

// Only the driver of this store is loaded (the thread starts faster without the other's modules).
if (setup.driver === 'sqlite') {
  const { default: Database } = await import('libsql');
  const db = new Database(setup.target);
  // This connection never writes (libsql has no read-only open); a read waits for a writer's
  // checkpoint at most this long instead of failing at once.
  db.exec('PRAGMA query_only = 1');
  db.exec('PRAGMA busy_timeout = 5000');
  const statements = new Map<string, DatabaseType.Statement<unknown[]>>();
  run = async (sql, args) => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql).raw();
      // Statements differ by their shape only (values are parameters): a few dozen at most.
      if (statements.size > 256) statements.clear();
      statements.set(sql, s);
    }
    return s.all(...args) as unknown[][];
  };
  close = async () => {
    db.close();
  };
} else {
  const { default: pg } = await import('pg');
  const types = {
    // int8 (counts, epoch ms, seq) as numbers: every value stored fits in 2^53.
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: setup.target,
    max: setup.connections ?? 3,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 25_000,
    application_name: 'mac serve reads',
    types,
  });
  // A lost idle connection is replaced by the pool; the next read reports an outage if any.
  pool.on('error', () => undefined);
  run = async (sql, args) => (await pool.query({ text: sql, values: args, rowMode: 'array' })).rows as unknown[][];
  close = () => pool.end();
}

parentPort!.on('message', (msg: ReaderMessage) => {
  // A batch: each read answered as soon as it is done (in order on SQLite's one connection, side
  // by side on PostgreSQL's pool).
  if (Array.isArray(msg)) {
    for (const req of msg) void answer(req).then((a) => parentPort!.postMessage(a));
    return;
  }
  const req = msg;
  if ('close' in req) {
    void close()
      .catch(() => undefined)
      .then(() => parentPort!.postMessage({ id: req.id, value: null } satisfies ReaderAnswer));
    return;
  }
  void answer(req).then((a) => parentPort!.postMessage(a));
});

async function answer(req: Extract<ReaderRequest, { sql: string }>): Promise<ReaderAnswer> {
  try {
    const rows = await run(req.sql, req.args);
    const post = req.post;
    if (post.kind === 'aggregate') return { id: req.id, value: aggregateRows(rows, post.q) };
    if (post.kind === 'cells') return { id: req.id, value: rows.map(cellOfRow) };
    if (post.kind === 'json') return { id: req.id, value: JSON.parse(String(rows[0]?.[0] ?? 'null')) };
    return { id: req.id, value: rows };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return { id: req.id, error: String(e.message ?? err), code: typeof e.code === 'string' ? e.code : undefined };
  }
}
