import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * Blocks until a database thread has answered request `last` (it answers in order and stores the
 * id of each answer in `done[0]` after posting it), for at most `timeoutMs`, then takes every
 * answer on `port`: once the last request sent is answered, all of them are there.
 */
export function takeAnswersUpTo<T>(done: Int32Array, last: number, timeoutMs: number, port: MessagePort, take: (answer: T) => void): void {
  const deadline = Date.now() + timeoutMs;
  for (let seen = Atomics.load(done, 0); seen < last; seen = Atomics.load(done, 0)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    Atomics.wait(done, 0, seen, left);
  }
  for (let msg = receiveMessageOnPort(port); msg; msg = receiveMessageOnPort(port)) take(msg.message as T);
}
