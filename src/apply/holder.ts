import { hostname, userInfo } from 'node:os';
import type { LockHolder } from './lock.js';

/** This process as a lock holder: user, host, pid and the command it runs (the CLI's and the Action's). */
export function localHolder(command: string, env: Record<string, string | undefined>): LockHolder {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the shell's name for the user, if any.
  }
  return { user: user || env.USER || env.LOGNAME || 'unknown', host: hostname(), pid: process.pid, command };
}
