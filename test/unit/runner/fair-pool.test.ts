import { describe, expect, it } from 'vitest';
import { FairPool } from '../../../src/runner/fair-pool.js';

/** A task that runs until `release()` is called; records its start in `started`. */
function gate(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: () => (started.push(name), done), release: () => release() };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('FairPool', () => {
  it('lets an account with nothing running start while another holds every slot with long runs', async () => {
    const pool = new FairPool(2);
    const started: string[] = [];
    const b1 = gate(started, 'b1');
    const b2 = gate(started, 'b2');
    const b3 = gate(started, 'b3');
    const a1 = gate(started, 'a1');
    void pool.run('B', b1.task);
    void pool.run('B', b2.task);
    void pool.run('B', b3.task);
    await tick();
    expect(started).toEqual(['b1', 'b2']);
    const a = pool.run('A', a1.task);
    await tick();
    // A starts beyond the concurrency (B is over its share now); B's third run still waits.
    expect(started).toEqual(['b1', 'b2', 'a1']);
    expect(pool.activeCount).toBe(3);
    expect(pool.pendingCount('B')).toBe(1);
    a1.release();
    await a;
    // A is done: B alone has work again and gets the whole pool.
    b1.release();
    await tick();
    expect(started).toEqual(['b1', 'b2', 'a1', 'b3']);
    b2.release();
    b3.release();
  });

  it('takes accounts in turns when slots free up, and keeps to the concurrency for one account', async () => {
    const pool = new FairPool(1, 1);
    const started: string[] = [];
    const gates = ['a1', 'a2', 'a3', 'b1', 'c1'].map((n) => gate(started, n));
    const runs = ['A', 'A', 'A', 'B', 'C'].map((acc, i) => pool.run(acc, gates[i].task));
    await tick();
    expect(started).toEqual(['a1']);
    for (let i = 0; i < 4; i++) {
      // Ends the run under way; the next one starts.
      gates[['a1', 'a2', 'a3', 'b1', 'c1'].indexOf(started.at(-1)!)].release();
      await tick();
      await tick();
    }
    gates.forEach((g) => g.release());
    await Promise.all(runs);
    // After a1: B and C before A's second and third runs.
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('fails a task that throws without losing its slot', async () => {
    const pool = new FairPool(1);
    await expect(pool.run('A', () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(pool.activeCount).toBe(0);
    await expect(pool.run('A', async () => 'ok')).resolves.toBe('ok');
  });
});
