import type { ApiClient } from '../api/index.js';
import { withApplyLock, type HeldLock } from '../apply/lock.js';
import { localHolder } from '../apply/holder.js';
import type { CliContext } from './context.js';

/**
 * Runs `fn` holding the project's apply lock (for `mac apply`, `mac destroy`): waits up to
 * `timeoutSeconds`, prints notices on stderr, and on SIGINT/SIGTERM stops writing, waits for
 * the writes in flight, releases the lock and exits (130/143; a second signal exits at once).
 */
export async function withCliApplyLock<T>(
  ctx: CliContext,
  client: ApiClient,
  project: string,
  settings: { command: string; timeoutSeconds: number },
  fn: (lock: HeldLock) => Promise<T>,
): Promise<T> {
  let held: HeldLock | undefined;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stopping || !held) process.exit(code);
    stopping = true;
    ctx.output.info(`${signal}: no further writes; releasing the apply lock once the writes in flight have ended (again to quit at once)`);
    void held.release().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await withApplyLock(
      client,
      project,
      { holder: localHolder(settings.command, ctx.env), timeoutMs: settings.timeoutSeconds * 1000, onNotice: (m) => ctx.output.info(m) },
      (lock) => {
        held = lock;
        return fn(lock);
      },
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
