import type { ApiClient } from '../api/index.js';
import type { Plan } from '../plan/types.js';
import { apiAccount } from './account.js';
import { applyPlan, type ApplyAccount, type ApplyOptions } from './apply.js';
import { guardAccount, withApplyLock, type HeldLock, type LockOptions } from './lock.js';
import type { ApplyResult } from './result.js';
import { recoverSecrets, type SecretSources, type SecretValues } from './secrets.js';

/**
 * One apply session, the sequence `mac apply`, `mac destroy` and the Action share: take the
 * project's apply lock (waiting for another apply up to the lock's timeout), do what must see
 * the account as the lock leaves it (plan, show, confirm), recover the secret values, apply the
 * plan with every write guarded by the lock, and release the lock, also when something throws.
 * What each caller does around it (where the plan comes from, how it is confirmed, how the
 * result is reported) stays with the caller.
 */
export interface ApplySessionOptions {
  client: ApiClient;
  /** The project the lock is for. */
  project: string;
  lock: LockOptions;
}

/** The session while the lock is held. */
export interface ApplySession {
  readonly lock: HeldLock;
  /** Applies `plan` through the lock (see {@link SessionApplyOptions}). */
  apply(plan: Plan, options: SessionApplyOptions): Promise<ApplyResult>;
}

/** How a session applies one plan. */
export interface SessionApplyOptions {
  maxDeletes: number;
  concurrency: number;
  /**
   * The secret values to write back into the bodies: recovered already (a missing one was to be
   * refused earlier, before a prompt or before the lock), or where to recover them from, just
   * before the first write. None: the plan writes no secret (a destroy).
   */
  secrets?: SecretValues | SecretSources;
  /** The plan empties the project on purpose (`mac destroy`): the pruning guard does not apply. */
  destroy?: boolean;
  /**
   * What the API account does besides, inside the lock's guard (`mac destroy`: `clearingBlockers`
   * removes what blocks a delete just before it). Passed in rather than chosen here, so that the
   * Action's bundle carries only what it uses.
   */
  account?: (api: ApplyAccount) => ApplyAccount;
  onProgress?: ApplyOptions['onProgress'];
}

/** Runs `fn` in an apply session: the lock is taken first and released after `fn`, whatever it does. */
export async function withApplySession<T>(options: ApplySessionOptions, fn: (session: ApplySession) => Promise<T>): Promise<T> {
  const { client, project } = options;
  return withApplyLock(client, project, options.lock, (lock) => fn({ lock, apply: (plan, applyOptions) => applyUnderLock(client, lock, plan, applyOptions) }));
}

async function applyUnderLock(client: ApiClient, lock: HeldLock, plan: Plan, options: SessionApplyOptions): Promise<ApplyResult> {
  const secrets = options.secrets === undefined || options.secrets instanceof Map ? options.secrets : await recoverSecrets(plan.changes, options.secrets);
  const api = apiAccount({ client, project: plan.project });
  return applyPlan(plan, guardAccount(options.account ? options.account(api) : api, lock), {
    maxDeletes: options.maxDeletes,
    concurrency: options.concurrency,
    ...(secrets ? { secrets } : {}),
    ...(options.destroy ? { destroy: true } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}
