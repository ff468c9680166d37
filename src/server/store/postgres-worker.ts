/**
 * The worker thread of the PostgreSQL backend (postgres.ts): owns the one `pg` connection and runs
 * what the main thread asks, one request at a time. The main thread blocks on a shared Int32Array
 * (Atomics.wait) until this thread stores the id of the answered request there, then reads the
 * answer from its port with receiveMessageOnPort: the store stays synchronous for its callers.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

/** A request of the main thread. */
export type PgRequest =
  | { id: number; op: 'open'; url: string; shown: string; migrations: readonly string[] }
  | { id: number; op: 'query'; sql: string; params: unknown[] }
  /**
   * A read that does not wait for the requests queued before it: run at once on a connection of
   * its own, answered with slot 1 of the flag (the queue's answers use slot 0). For reads whose
   * answer may predate writes sent without waiting (the versions table; see postgres.ts `peek`).
   */
  | { id: number; op: 'peek'; sql: string; params: unknown[] }
  | { id: number; op: 'tx'; statements: Array<[string, unknown[]]> }
  /**
   * A transaction kept open across two requests, on a connection of its own (see `hold`):
   * `hold` begins it and runs `statements`, leaving it open; `release` runs `statements` in it
   * and commits (or, with `commit: false`, rolls back and runs nothing).
   */
  | { id: number; op: 'hold'; statements: Array<[string, unknown[]]> }
  | { id: number; op: 'release'; statements: Array<[string, unknown[]]>; commit: boolean }
  | { id: number; op: 'close' };

/** The answer: rows (arrays of column values) of each statement, or an error. */
export type PgAnswer = { id: number; rows: unknown[][][]; counts: number[] } | { id: number; error: string; code?: string; version?: number };

// int8 (counts, epoch ms, seq) as numbers: every value stored fits in 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

const { flag, port } = workerData as { flag: SharedArrayBuffer; port: MessagePort };
const done = new Int32Array(flag);
let client: pg.Client | undefined;
/** The connection of the transaction left open by `hold`, and whether one is open on it. */
let holder: pg.Client | undefined;
let holding = false;
/** The connection of `peek` reads. */
let peeker: pg.Client | undefined;
let url = '';
let queue: Promise<void> = Promise.resolve();

port.on('message', (req: PgRequest) => {
  if (req.op === 'peek') {
    void peek(req.sql, req.params).then(
      (r) => answer({ id: req.id, rows: [r], counts: [r.length] }, 1),
      (err: unknown) => {
        const e = err as { message?: string; code?: string };
        answer({ id: req.id, error: String(e.message ?? err), code: e.code }, 1);
      },
    );
    return;
  }
  queue = queue.then(async () => {
    let answer: PgAnswer;
    try {
      answer = { id: req.id, ...(await handle(req)) };
    } catch (err) {
      const e = err as { message?: string; code?: string; version?: number };
      answer = { id: req.id, error: String(e.message ?? err), code: e.code, version: e.version };
    }
    port.postMessage(answer);
    Atomics.store(done, 0, req.id);
    Atomics.notify(done, 0);
  });
});
parentPort?.on('close', () => {
  void client?.end().catch(() => undefined);
  void holder?.end().catch(() => undefined);
  void peeker?.end().catch(() => undefined);
});

/** Posts an answer, then wakes the main thread on `slot` of the flag. */
function answer(a: PgAnswer, slot: number): void {
  port.postMessage(a);
  Atomics.store(done, slot, a.id);
  Atomics.notify(done, slot);
}

/** A `peek` read on its own connection (opened at the first; dropped on a connection error). */
async function peek(sql: string, params: unknown[]): Promise<unknown[][]> {
  let c = peeker;
  if (!c) {
    const opened = await open(url, 'mac serve versions');
    opened.on('error', () => {
      if (peeker === opened) peeker = undefined;
    });
    peeker = c = opened;
  }
  try {
    return (await c.query({ text: sql, values: params, rowMode: 'array' })).rows;
  } catch (err) {
    if (isConnectionError(err) && peeker === c) {
      peeker = undefined;
      await c.end().catch(() => undefined);
    }
    throw err;
  }
}

async function handle(req: PgRequest): Promise<{ rows: unknown[][][]; counts: number[] }> {
  switch (req.op) {
    case 'open':
      url = req.url;
      await connect();
      await migrate(req.migrations, req.shown);
      return { rows: [], counts: [] };
    case 'peek':
    case 'query': {
      const r = await run(async (c) => c.query({ text: req.sql, values: req.params, rowMode: 'array' }));
      return { rows: [r.rows], counts: [r.rowCount ?? 0] };
    }
    case 'tx':
      return transaction(req.statements);
    case 'hold':
      return hold(req.statements);
    case 'release':
      return release(req.statements, req.commit);
    case 'close':
      await client?.end().catch(() => undefined);
      client = undefined;
      await holder?.end().catch(() => undefined);
      holder = undefined;
      holding = false;
      await peeker?.end().catch(() => undefined);
      peeker = undefined;
      return { rows: [], counts: [] };
  }
}

/** Connects; a database that does not exist yet is created first (through the `postgres` database). */
async function connect(): Promise<pg.Client> {
  if (client) return client;
  try {
    client = await open(url);
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
    const target = new URL(url);
    const name = decodeURIComponent(target.pathname.slice(1));
    const admin = new URL(url);
    admin.pathname = '/postgres';
    const c = await open(admin.toString());
    try {
      await c.query(`CREATE DATABASE ${ident(name)} STRATEGY FILE_COPY`);
    } catch (e) {
      // Another instance created it at the same time: it existed already (42P04), or both
      // inserted its name at once and this one lost on pg_database's unique index (23505).
      const { code, constraint } = e as { code?: string; constraint?: string };
      if (code !== '42P04' && !(code === '23505' && constraint === 'pg_database_datname_index')) throw e;
    } finally {
      await c.end();
    }
    client = await open(url);
  }
  return client;
}

async function open(at: string, name = 'mac serve'): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: at, connectionTimeoutMillis: 10_000, statement_timeout: 25_000, application_name: name });
  // A lost connection is reported on the next request (which reconnects), not thrown here.
  c.on('error', () => {
    if (client === c) client = undefined;
  });
  await c.connect();
  return c;
}

/** Runs `fn` on the connection, reconnecting once when the connection was lost. */
async function run<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connect();
  try {
    return await fn(c);
  } catch (err) {
    if (client === c && !isConnectionError(err)) throw err;
    client = undefined;
    await c.end().catch(() => undefined);
    throw err;
  }
}

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01';
}

/** One transaction; retried (a few times) when PostgreSQL aborts it for a deadlock or a serialization failure. */
async function transaction(statements: Array<[string, unknown[]]>): Promise<{ rows: unknown[][][]; counts: number[] }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run(async (c) => {
        await c.query('BEGIN');
        try {
          const out = await inHeld(c, statements);
          await c.query('COMMIT');
          return out;
        } catch (err) {
          await c.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < 4 && (code === '40P01' || code === '40001')) continue;
      throw err;
    }
  }
}

/**
 * Begins a transaction on the holding connection, runs `statements` and leaves it open for
 * `release`: the main thread does synchronous work between the two (starting the sessions of the
 * runs a claim granted) while the rows written stay locked; a concurrent INSERT of the same key
 * by another instance waits for the commit or the rollback. A transaction still open from an
 * earlier hold (never released: the main thread timed out) is rolled back first. Retried, like
 * `transaction`, on a deadlock or a serialization failure; on any error nothing stays open.
 * PostgreSQL itself ends a transaction left idle past idle_in_transaction_session_timeout (the
 * main thread stuck between the two requests), and the socket's close (the process killed)
 * rolls it back at once.
 */
async function hold(statements: Array<[string, unknown[]]>): Promise<{ rows: unknown[][][]; counts: number[] }> {
  await abandon();
  for (let attempt = 0; ; attempt++) {
    try {
      const c = await holdingConnection();
      await c.query('BEGIN');
      holding = true;
      return await inHeld(c, statements);
    } catch (err) {
      await abandon(err);
      const code = (err as { code?: string }).code;
      if (attempt < 4 && (code === '40P01' || code === '40001')) continue;
      throw err;
    }
  }
}

/** Runs `statements` in the held transaction and commits it; or rolls it back (`commit` false). Nothing stays open. */
async function release(statements: Array<[string, unknown[]]>, commit: boolean): Promise<{ rows: unknown[][][]; counts: number[] }> {
  if (!commit) {
    await abandon();
    return { rows: [], counts: [] };
  }
  const c = holder;
  // Not an outage (the next hold opens a new connection): a code of its own, not a connection error's.
  if (!holding || !c) throw Object.assign(new Error('the claims were rolled back before their sessions were written (the held transaction ended)'), { code: 'MAC_HOLD_LOST' });
  try {
    const out = await inHeld(c, statements);
    await c.query('COMMIT');
    holding = false;
    return out;
  } catch (err) {
    await abandon(err);
    throw err;
  }
}

/** Runs `statements` one after the other on `c` (in its open transaction): each one's rows and row count. */
async function inHeld(c: pg.Client, statements: Array<[string, unknown[]]>): Promise<{ rows: unknown[][][]; counts: number[] }> {
  const rows: unknown[][][] = [];
  const counts: number[] = [];
  for (const [sql, params] of statements) {
    const r = await c.query({ text: sql, values: params, rowMode: 'array' });
    rows.push(r.rows);
    counts.push(r.rowCount ?? 0);
  }
  return { rows, counts };
}

/** Rolls the held transaction back, if one is open; after a connection error (or a failed rollback) the connection is dropped. */
async function abandon(err?: unknown): Promise<void> {
  const c = holder;
  const wasHolding = holding;
  holding = false;
  if (!c) return;
  if (err === undefined || !isConnectionError(err)) {
    if (!wasHolding) return;
    try {
      await c.query('ROLLBACK');
      return;
    } catch {
      // Dropped below: closing the connection rolls back whatever it held.
    }
  }
  if (holder === c) holder = undefined;
  await c.end().catch(() => undefined);
}

async function holdingConnection(): Promise<pg.Client> {
  if (holder) return holder;
  const c = await open(url, 'mac serve claims');
  // A transaction left open by a stuck main thread ends by itself (the connection with it).
  try {
    await c.query("SET idle_in_transaction_session_timeout = '20s'");
  } catch (err) {
    await c.end().catch(() => undefined);
    throw err;
  }
  c.on('error', () => {
    if (holder === c) {
      holder = undefined;
      holding = false;
    }
  });
  holder = c;
  return c;
}

/**
 * Brings the schema to the latest version, one transaction per migration, under an advisory lock
 * (instances starting together migrate once). The version lives in `mac_schema`.
 */
async function migrate(migrations: readonly string[], shown: string): Promise<void> {
  await run(async (c) => {
    await c.query('BEGIN');
    try {
      await c.query('SELECT pg_advisory_xact_lock(7263870233)');
      // A migration may rewrite every stored result (migration 2): no statement time limit here.
      await c.query('SET LOCAL statement_timeout = 0');
      const has = await c.query("SELECT to_regclass('mac_schema') IS NOT NULL AS has");
      let version = 0;
      if (has.rows[0].has) {
        version = Number((await c.query('SELECT version FROM mac_schema')).rows[0]?.version ?? 0);
      } else {
        const tables = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()");
        if (tables.rows[0].n > 0) throw Object.assign(new Error('foreign'), { code: 'MAC_FOREIGN' });
        await c.query('CREATE TABLE mac_schema (version integer NOT NULL)');
        await c.query('INSERT INTO mac_schema VALUES (0)');
      }
      if (version > migrations.length) throw Object.assign(new Error('newer'), { code: 'MAC_NEWER', version });
      // An upgrade of a database with data can take a while: said before and after, on stderr at
      // once (the main thread waits for this answer, so its own stream would only flush later).
      const upgrading = version > 0 && version < migrations.length;
      const t0 = Date.now();
      if (upgrading) writeSync(2, `mac serve: upgrading ${shown} from schema version ${version} to ${migrations.length} (once; about a minute per million stored results) ...\n`);
      for (let v = version; v < migrations.length; v++) {
        await c.query(migrations[v]);
        await c.query('UPDATE mac_schema SET version = $1', [v + 1]);
      }
      await c.query('COMMIT');
      if (upgrading) writeSync(2, `mac serve: upgraded ${shown} to schema version ${migrations.length} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
