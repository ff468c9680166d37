import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants, parseStatus, watchedTrees, watchTreeMemory } from '../../../src/runner/tree-memory.js';

// The poller over real processes: a tree of Node processes whose memory grows after the watch
// began, in a process started after the first polls (found as a new process, not by the scan of
// every process the first poll makes).
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.pid) process.kill(-c.pid, 'SIGKILL');
});

/** A Node process in a group of its own running `code`. */
function node(code: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', code], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  return child;
}

describe('tree memory', () => {
  it('stops a tree once a child started after the watch began holds more than the limit', { timeout: 120_000 }, async () => {
    // The parent waits until told (its first line read), then starts a child that holds 256 MiB.
    const parent = node(`
      process.stdout.write('ready\\n');
      process.stdin.resume();
      setTimeout(() => {
        const { spawn } = require('node:child_process');
        spawn(process.execPath, ['-e', "globalThis.held = Buffer.alloc(256 * 1024 * 1024, 1); console.log('held'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'inherit', 'inherit'] });
      }, 1500);
      setInterval(() => {}, 1000);
    `);
    let out = '';
    const held = new Promise<void>((resolve) =>
      parent.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('held')) resolve();
      }),
    );
    await new Promise<void>((resolve) => parent.stdout!.once('data', () => resolve()));
    const limit = 200 * 1024 * 1024;
    // The parent alone is far under the limit: what goes over it is the child's.
    const own = parseStatus(readFileSync(`/proc/${parent.pid}/status`, 'latin1'));
    expect(own!.bytes).toBeLessThan(limit / 2);
    let over: number | null = null;
    const stop = watchTreeMemory(parent.pid!, limit, (bytes) => (over = bytes));
    try {
      await held;
      const deadline = Date.now() + 60_000;
      while (over === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(over).not.toBeNull();
      expect(over!).toBeGreaterThan(limit);
      // Once over, the tree is no longer watched.
      expect(watchedTrees()).toBe(0);
    } finally {
      stop();
    }
  });

  it('walks a tree from its root through every generation', () => {
    const children = new Map([
      [1, [2, 3]],
      [3, [4]],
      [4, [5]],
      [9, [10]],
    ]);
    expect(descendants(1, children)).toEqual([1, 2, 3, 4, 5]);
    expect(descendants(9, children)).toEqual([9, 10]);
    expect(descendants(7, children)).toEqual([7]);
  });
});
