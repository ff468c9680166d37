import type { ApiClient } from '../api/index.js';
import { localHolder } from '../apply/holder.js';
import type { HeldLock } from '../apply/lock.js';
import { createProgressReporter } from '../apply/progress.js';
import { withApplySession, type ApplySession } from '../apply/session.js';
import type { CliContext } from './context.js';

/**
 * Runs `fn` in an apply session (`src/apply/session.ts`) for `mac apply` and `mac destroy`: this
 * process as the lock's holder, waiting up to `timeoutSeconds`, notices on stderr, and on
 * SIGINT/SIGTERM it stops writing, waits for the writes in flight, releases the lock and exits
 * (130/143; a second signal exits at once). Its `apply` draws the live progress line on stderr.
 */
export async function withCliApplySession<T>(
  ctx: CliContext,
  client: ApiClient,
  project: string,
  settings: { command: string; timeoutSeconds: number },
  fn: (session: ApplySession) => Promise<T>,
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
    return await withApplySession(
      {
        client,
        project,
        lock: { holder: localHolder(settings.command, ctx.env), timeoutMs: settings.timeoutSeconds * 1000, onNotice: (m) => ctx.output.info(m) },
      },
      (session) => {
        held = session.lock;
        return fn({
          lock: session.lock,
          apply: async (plan, options) => {
            const progress = createProgressReporter({ sink: ctx.output, requests: () => client.stats.total });
            try {
              return await session.apply(plan, { ...options, onProgress: progress.onProgress });
            } finally {
              progress.finish();
            }
          },
        });
      },
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
