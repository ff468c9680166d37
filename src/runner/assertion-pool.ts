import { workerModule } from './worker-module.js';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ASSERTION_SOURCES_CHEAP, type Evaluation } from './assertions.js';
import type { Assertion } from './types.js';

/**
 * Assertions of a check come from its definition (untrusted): 150 regexes of 100 ms each held the
 * service's main thread for 15 s, and every account's API with it. Here they are evaluated on
 * worker threads, one attempt at a time per thread, each run within its budget
 * (ASSERTION_BUDGET_MS, counted by the caller over the run's attempts):
 *
 * - the thread stops each regex at what is left of the budget, and fails the assertions it had
 *   no time for;
 * - the pool stops a thread that overruns the budget by more than GRACE_MS (a comparison on a
 *   large body between two regexes is not interruptible in the thread) and starts another;
 * - accounts take turns: the next attempt evaluated is the oldest waiting one of the account
 *   whose turn it is, so one account's slow checks delay another's by at most one budget per thread.
 *
 * Threads are unreferenced while idle: `mac test` exits when its runs are done.
 */

/** How much longer than its budget a thread may take before the pool stops it. */
export const GRACE_MS = 250;

interface Task {
  id: number;
  account: string;
  assertions: Assertion[];
  values: Record<string, unknown>;
  budgetMs: number;
  resolve: (e: Evaluation) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
  watchdog: NodeJS.Timeout | null;
}

export class AssertionPool {
  private readonly threads: Thread[] = [];
  // Waiting attempts per account, and when each account was last served (a sequence number): the
  // account served longest ago goes next, one never served first.
  private readonly queues = new Map<string, Task[]>();
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    readonly size: number,
    /** How much longer than its budget a thread may take before it is stopped. */
    private readonly graceMs = GRACE_MS,
    private readonly workerUrl: URL = assertionWorkerUrl(),
  ) {}

  /** Evaluates `assertions` on `values` on a pool thread within `budgetMs`. */
  evaluate(account: string, assertions: Assertion[], values: Record<string, unknown>, budgetMs: number): Promise<Evaluation> {
    if (this.closed) return Promise.reject(new Error('the assertion pool is closed'));
    return new Promise<Evaluation>((resolve, reject) => {
      const task: Task = { id: this.nextId++, account, assertions, values, budgetMs, resolve, reject };
      const queue = this.queues.get(account);
      if (queue) queue.push(task);
      else this.queues.set(account, [task]);
      this.dispatch();
    });
  }

  /** Attempts waiting for a thread. */
  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Stops every thread; attempts under way or waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new Error('the assertion pool is closed');
    for (const q of this.queues.values()) for (const t of q) t.reject(err);
    this.queues.clear();
    await Promise.all(this.threads.splice(0).map((t) => this.stop(t, err)));
  }

  private dispatch(): void {
    while (this.queues.size > 0) {
      const thread = this.idleThread();
      if (!thread) return;
      let account = '';
      let oldest = Infinity;
      for (const name of this.queues.keys()) {
        const last = this.lastServed.get(name) ?? -1;
        if (last < oldest) (oldest = last), (account = name);
      }
      const queue = this.queues.get(account)!;
      const task = queue.shift()!;
      if (queue.length === 0) this.queues.delete(account);
      this.lastServed.set(account, this.served++);
      // Only accounts with work are remembered (a service sees many accounts over its life).
      for (const name of this.lastServed.keys()) if (!this.queues.has(name) && name !== account && !this.busyWith(name)) this.lastServed.delete(name);
      this.start(thread, task);
    }
  }

  private busyWith(account: string): boolean {
    return this.threads.some((t) => t.task?.account === account);
  }

  private idleThread(): Thread | null {
    const idle = this.threads.find((t) => t.task === null);
    if (idle) return idle;
    if (this.threads.length >= this.size) return null;
    const thread = this.spawn();
    this.threads.push(thread);
    return thread;
  }

  private spawn(): Thread {
    const worker = new Worker(this.workerUrl);
    const thread: Thread = { worker, task: null, watchdog: null };
    worker.unref();
    worker.on('message', (msg: { id: number; started?: true; evaluation?: Evaluation; error?: string }) => {
      const task = thread.task;
      if (!task || task.id !== msg.id) return;
      if (msg.started) {
        // The thread began evaluating (a new thread loads its module first): the budget runs from now.
        thread.watchdog = setTimeout(() => this.overrun(thread), task.budgetMs + this.graceMs);
        return;
      }
      this.finish(thread);
      if (msg.evaluation) task.resolve(msg.evaluation);
      else task.reject(new Error(`assertion evaluation failed: ${msg.error}`));
      this.dispatch();
    });
    const lost = (err: Error) => {
      const task = thread.task;
      this.drop(thread);
      if (task) task.reject(err);
      this.dispatch();
    };
    worker.on('error', (err) => lost(err));
    worker.on('exit', (code) => lost(new Error(`the assertion thread exited (code ${code})`)));
    return thread;
  }

  private start(thread: Thread, task: Task): void {
    thread.task = task;
    thread.worker.ref();
    try {
      thread.worker.postMessage({ id: task.id, assertions: task.assertions, values: task.values, budgetMs: task.budgetMs });
    } catch (err) {
      // A value that cannot be cloned: a fault of the probe that made it.
      this.finish(thread);
      task.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The thread ran past its budget and grace: it is stopped, the attempt's assertions fail unevaluated. */
  private overrun(thread: Thread): void {
    const task = thread.task;
    if (!task) return;
    this.drop(thread);
    void this.stop(thread, null);
    task.resolve({
      results: task.assertions.map((a) => ({ ...a, actual: null, passed: false })),
      elapsedMs: task.budgetMs + this.graceMs,
      overBudget: true,
      evaluated: 0,
    });
    this.dispatch();
  }

  private finish(thread: Thread): void {
    if (thread.watchdog) clearTimeout(thread.watchdog);
    thread.watchdog = null;
    thread.task = null;
    thread.worker.unref();
  }

  /** Takes a thread out of the pool (its task, if any, is the caller's to settle). */
  private drop(thread: Thread): void {
    if (thread.watchdog) clearTimeout(thread.watchdog);
    thread.watchdog = null;
    thread.task = null;
    const i = this.threads.indexOf(thread);
    if (i >= 0) this.threads.splice(i, 1);
  }

  private async stop(thread: Thread, err: Error | null): Promise<void> {
    const task = thread.task;
    this.drop(thread);
    thread.worker.removeAllListeners('exit');
    thread.worker.removeAllListeners('error');
    thread.worker.on('error', () => {});
    if (task && err) task.reject(err);
    await thread.worker.terminate();
  }
}

/** Whether an attempt's assertions are cheap enough for the thread that ran its probe. */
export function cheapAssertions(assertions: Assertion[]): boolean {
  return assertions.every((a) => !a.regex && ASSERTION_SOURCES_CHEAP.has(a.source));
}

/** The pool's threads: one core stays for the main thread, at most 4. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

let shared: AssertionPool | undefined;

/** The process's assertion pool, made at its first use. */
export function assertionPool(): AssertionPool {
  return (shared ??= new AssertionPool(defaultPoolSize()));
}

/** The worker's built module (see workerModule). */
export function assertionWorkerUrl(): URL {
  const url = workerModule('runner/assertion-worker.js');
  if (url) return url;
  throw new Error('assertions are evaluated by dist/runner/assertion-worker.js, which is missing: run npm run build');
}
