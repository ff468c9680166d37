import { parentPort } from 'node:worker_threads';
import { evaluateAssertions } from './assertions.js';
import type { Assertion } from './types.js';

/**
 * A thread of the assertion pool (assertion-pool.ts): evaluates one check attempt's assertions at
 * a time, within the budget it is given, so that regexes, JSON paths and comparisons on a large
 * body never run on the service's main thread.
 */
interface Task {
  id: number;
  assertions: Assertion[];
  values: Record<string, unknown>;
  budgetMs: number;
}

parentPort!.on('message', (task: Task) => {
  // The budget counts from here: not the thread's start-up, nor the wait for it.
  parentPort!.postMessage({ id: task.id, started: true });
  try {
    const evaluation = evaluateAssertions(task.assertions, task.values, task.budgetMs);
    parentPort!.postMessage({ id: task.id, evaluation });
  } catch (err) {
    parentPort!.postMessage({ id: task.id, error: err instanceof Error ? err.message : String(err) });
  }
});
