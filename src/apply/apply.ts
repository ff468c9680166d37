import type { Plan, PlannedChange } from '../plan/types.js';
import type { Ownership, RecordedOutcome } from '../plan/record.js';
import { ownedVariableKey } from '../schema/lock-key.js';
import { execute, type ExecutionProgress, type Perform } from './executor.js';
import { changeKey } from './graph.js';
import { summarize, type ApplyResult, type ChangeOutcome, type ConvergenceIssue } from './result.js';
import { checkDeletes, checkOwnership } from './safety.js';
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
  /** The ownership records of the account, read just before the run (absent: only tags are checked). */
  readOwnership?(): Promise<Ownership>;
  /** Folds what the run did into the project's ownership record (absent: no record is kept). */
  recordOwnership?(outcomes: readonly RecordedOutcome[]): Promise<void>;
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
    const [live, ownership] = await Promise.all([account.readLive(touched), account.readOwnership?.()]);
    // Ownership first: a retargeted change must be refused as such, whatever its fingerprint says.
    checkOwnership(plan, live, ownership);
    refuseIfStale(findStale(touched, live, account.fingerprint));
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
  const recordError = await record(plan, outcomes, account);

  return {
    project: plan.project,
    apiUrl: plan.apiUrl,
    outcomes,
    summary: summarize(outcomes, plan.summary.noop),
    ...(convergence ? { convergence } : {}),
    ...(recordError ? { recordError } : {}),
    durationMs: now() - startedAt,
    requests: account.requests() - startRequests,
  };
}

/** The change with the id it now has (creates learn theirs from the outcome). */
function withId(change: PlannedChange, outcome: ChangeOutcome): PlannedChange {
  return outcome.remoteId === undefined ? change : { ...change, remoteId: outcome.remoteId };
}

/**
 * Writes the project's ownership record after the run: every change's object (noops included,
 * so objects first matched by natural key are recorded) and every delete. A failure to write it
 * is reported as an issue of the run (exit 1): the changes themselves were made.
 */
async function record(plan: Plan, outcomes: readonly ChangeOutcome[], account: ApplyAccount): Promise<string | undefined> {
  if (!account.recordOwnership) return undefined;
  const byKey = new Map(outcomes.map((o) => [o.key, o]));
  const recorded: RecordedOutcome[] = plan.changes.map((c) => {
    if (c.action === 'noop') return { kind: c.kind, id: c.id, action: 'noop', applied: true, ...(c.remoteId !== undefined ? { remoteId: c.remoteId } : {}) };
    const o = byKey.get(changeKey(c));
    const remoteId = o?.remoteId ?? c.remoteId;
    return { kind: c.kind, id: c.id, action: c.action, applied: o?.status === 'applied', ...(remoteId !== undefined ? { remoteId } : {}) };
  });
  try {
    await account.recordOwnership(recorded);
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return `the ownership record ${ownedVariableKey(plan.project)} could not be written (${message}); until an apply writes it, plans miss what this run created or deleted of the kinds without tags`;
  }
}
