/**
 * Asynchronous reads of a database store (docs/internals/async-reads.md): a worker thread with
 * connections of its own (reader-worker.ts) runs the statement and reduces its rows, and the
 * caller awaits the answer. The main thread sends a message and goes on serving: no read of run
 * data holds the event loop while the database works, whatever the window read.
 */
import { workerModule } from '../../runner/worker-module.js';
import { Worker } from 'node:worker_threads';
import { StateError } from './errors.js';
import type { ReaderAnswer, ReaderPost, ReaderRequest, ReaderSetup } from './reader-worker.js';

/** How long a read may wait for its answer (the statements time out before this on PostgreSQL). */
const READ_TIMEOUT_MS = 30_000;

export class AsyncReader {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private closed = false;
  /** Reads asked in this turn of the event loop, posted together at its end (one message). */
  private outbox: ReaderRequest[] = [];

  /**
   * `failed` turns an error of the database into the error the read rejects with (the store's
   * outage handling); the worker starts at the first read, or at `warm`.
   */
  constructor(
    private readonly setup: ReaderSetup,
    private readonly failed: (err: Error & { code?: string }) => Error = (e) => e,
  ) {}

  /** Runs `sql` off the main thread; the rows, reduced by `post`. */
  run<T>(sql: string, args: unknown[], post: ReaderPost): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(this.failed(new Error(`the database did not answer within ${READ_TIMEOUT_MS / 1000} s`)));
      }, READ_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      // Only a pending read keeps the process alive (the service's server does anyway).
      if (this.waiting.size === 1) worker.ref();
      // The reads of one page are asked in one turn (every check's, side by side): they go to the
      // thread as one message, so the page waits for one hand-over between threads, not one per read.
      this.outbox.push({ id, sql, args, post });
      if (this.outbox.length === 1) queueMicrotask(() => this.post(worker));
    });
  }

  /**
   * Starts the thread and opens its connection now, not at the first read: a thread boots its
   * runtime, loads its database driver and opens its connection (hundreds of milliseconds, seconds
   * on a loaded machine), which the first page after a start would otherwise wait for. One
   * trivial statement per connection, asked at once (a PostgreSQL pool opens each of its
   * connections); resolves once they were answered, never rejects (a failure shows at the next read).
   */
  warm(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const connections = this.setup.driver === 'postgres' ? Math.max(1, this.setup.connections ?? 1) : 1;
    return Promise.all(Array.from({ length: connections }, () => this.run('SELECT 1', [], { kind: 'rows' }))).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Posts the reads asked this turn to the thread. */
  private post(worker: Worker): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length === 0) return;
    worker.postMessage(batch.length === 1 ? batch[0] : batch);
  }

  /** Reads waiting for their answer. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Closes the connections and ends the thread; pending reads reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    // Reads asked this turn go first (they are answered, or fail with the closed store).
    this.post(worker);
    const done = new Promise<void>((resolve) => {
      const id = this.nextId++;
      const timer = setTimeout(resolve, 5_000).unref();
      this.waiting.set(id, { resolve: () => resolve(), reject: () => resolve(), timer });
      worker.postMessage({ id, close: true } satisfies ReaderRequest);
    });
    await done;
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new Error('the store is closed'));
    }
    this.waiting.clear();
    await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(readerUrl(), { workerData: this.setup });
    worker.unref();
    worker.on('message', (a: ReaderAnswer) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.waiting.delete(a.id);
      clearTimeout(w.timer);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in a) w.reject(this.failed(Object.assign(new Error(a.error), { code: a.code })));
      else w.resolve(a.value);
    });
    // A thread that failed to start (or died): every waiting read fails, the next read starts another.
    const lost = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [, w] of this.waiting) {
        clearTimeout(w.timer);
        w.reject(this.failed(err));
      }
      this.waiting.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => {
      if (!this.closed) lost(new Error(`the reader thread ended (exit code ${code})`));
    });
    this.worker = worker;
    return worker;
  }
}

/** The reader thread's built module (see workerModule). */
function readerUrl(): URL {
  const url = workerModule('server/store/reader-worker.js');
  if (url) return url;
  throw new StateError('the store needs its reader module (dist/server/store/reader-worker.js)', 'run npm run build');
}
