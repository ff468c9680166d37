import type { Plan, PlannedChange } from '../plan/types.js';
import { isOwnedKind } from '../schema/kinds.js';
import { execute, type ExecutionProgress, type Perform } from './executor.js';
import { changeKey } from './graph.js';
import { summarize, type ApplyResult, type ChangeOutcome, type ConvergenceIssue } from './result.js';
import { checkDeleteOwnership, checkDeletes } from './safety.js';
import { findStale, refuseIfStale, type Fingerprint, type LiveObjects } from './stale.js';

/** The account as the apply stage sees it: re-reads, writes and re-plans, injected (tests pass fakes). */
export interface ApplyAccount {
  /** Re-reads every touched object: updates and deletes by id, creates by identity; null = absent. Prefer list calls. */
  readLive(changes: readonly PlannedChange[]): Promise<LiveObjects>;
  /** The plan's fingerprint of a live object. */
  fingerprint: Fingerprint;
  perform: Perform;
  /** Re-reads the applied objects and plans them again; every remaining difference is an issue. */
  converge(applied: ReadonlyArray<{ change: PlannedChange; outcome: ChangeOutcome }>): Promise<ConvergenceIssue[]>;
  /** Requests sent so far (for the result and the progress rate). */
  requests(): number;
}

/** Options of one apply. */
export interface ApplyOptions {
  maxDeletes: number;
  concurrency: number;
  /** Secret values to put back into the bodies (a saved plan holds none), by change key then pointer. */
  secrets?: ReadonlyMap<string, ReadonlyMap<string, unknown>>;
  onProgress?: (progress: ExecutionProgress, outcome: ChangeOutcome) => void;
  now?: () => number;
  /** The plan empties the project on purpose (`mac destroy`): the pruning guard does not apply. */
  destroy?: boolean;
}

/**
 * Applies a plan: refuses unsafe deletes, re-reads every touched object and refuses when one
 * moved since the plan (or when a check to delete is not this project's), runs the changes in
 * waves, then re-reads what it applied and checks that nothing is left to change.
 */
export async function applyPlan(plan: Plan, account: ApplyAccount, options: ApplyOptions): Promise<ApplyResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const startRequests = account.requests();
  checkDeletes(plan, options.maxDeletes, { destroy: options.destroy === true });

  const touched = plan.changes.filter((c) => c.action !== 'noop');
  if (touched.length > 0) {
    const live = await account.readLive(touched);
    refuseIfStale(findStale(touched, live, account.fingerprint));
    checkDeleteOwnership(plan, tagsOfChecks(touched, live));
  }

  const outcomes = await execute(touched, {
    concurrency: options.concurrency,
    perform: account.perform,
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const byKey = new Map(touched.map((c) => [changeKey(c), c]));
  const applied = outcomes.filter((o) => o.status === 'applied').map((outcome) => ({ change: withId(byKey.get(outcome.key)!, outcome), outcome }));
  const convergence = applied.length > 0 ? { checked: applied.length, issues: await account.converge(applied) } : undefined;

  return {
    project: plan.project,
    apiUrl: plan.apiUrl,
    outcomes,
    summary: summarize(outcomes, plan.summary.noop),
    ...(convergence ? { convergence } : {}),
    durationMs: now() - startedAt,
    requests: account.requests() - startRequests,
  };
}

/** The change with the id it now has (creates learn theirs from the outcome). */
function withId(change: PlannedChange, outcome: ChangeOutcome): PlannedChange {
  return outcome.remoteId === undefined ? change : { ...change, remoteId: outcome.remoteId };
}

function tagsOfChecks(changes: readonly PlannedChange[], live: LiveObjects): Map<string, string[] | undefined> {
  const tags = new Map<string, string[] | undefined>();
  for (const c of changes) {
    if (!isOwnedKind(c.kind)) continue;
    const obj = live.get(changeKey(c));
    tags.set(changeKey(c), obj ? (Array.isArray(obj.tags) ? obj.tags.map(String) : []) : undefined);
  }
  return tags;
}
