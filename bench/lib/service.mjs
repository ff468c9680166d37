// Starts `mac serve` on a free port with the latency, rate limit and state a case needs.
import { spawn } from 'node:child_process';
import { stopChild, track } from './resources.mjs';
import { MAC_BIN } from './mac.mjs';

/** The key and account `mac serve` accepts by default. */
export const API_KEY = 'mac-dev-key';

/**
 * Starts `mac serve --port 0 --no-runs` (scheduled runs would compete with the measured
 * process for the CPU) and resolves once it prints `listening on URL`.
 * `state` or `database` name where it keeps its data; `extra`: more arguments.
 * Returns `{url, pid, stop}`; `stop` sends SIGTERM by pid and waits for the exit.
 */
export function startService({ latencyMs = 0, rateLimit = '0/60', state, database, extra = [] } = {}) {
  const args = [MAC_BIN, 'serve', '--port', '0', '--no-runs', '--latency', String(latencyMs), '--rate-limit', rateLimit, ...extra];
  if (state) args.push('--state', state);
  if (database) args.push('--database', database);
  const child = track(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  const collect = (d) => {
    if (out.length < 64 * 1024) out += d;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    const onExit = (code, signal) => reject(new Error(`mac serve exited (${signal ?? code}) before listening:\n${out}`));
    child.once('exit', onExit);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      child.off('exit', onExit);
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({ url: m[1], pid: child.pid, stop: () => stopChild(child) });
    });
  });
}
