// Everything a bench run starts or creates (child processes, temp dirs), so that it is all
// removed when a case ends, fails, or the run is interrupted.
import { mkdtemp, rm } from 'node:fs/promises';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const children = new Set();
const dirs = new Set();

/** Tracks a spawned child until it exits. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Sends SIGTERM to `child` (by pid) and resolves when it has exited; SIGKILL after `graceMs`. */
export function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => process.kill(child.pid, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    process.kill(child.pid, 'SIGTERM');
  });
}

// The service fsyncs its journal on every write; on tmpfs that costs nothing, so populating
// 12,200 resources measures the engine and the service rather than the disk.
function fastTmpRoot() {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** Creates a temp dir (on tmpfs when `fast` and available) that `cleanup` removes. */
export async function tempDir(prefix, { fast = false } = {}) {
  const dir = await mkdtemp(join(fast ? fastTmpRoot() : tmpdir(), `mac-bench-${prefix}-`));
  dirs.add(dir);
  return dir;
}

/** Stops every tracked child and removes every temp dir. */
export async function cleanup() {
  await Promise.all([...children].map((c) => stopChild(c)));
  await Promise.all([...dirs].map((d) => rm(d, { recursive: true, force: true })));
  dirs.clear();
}
