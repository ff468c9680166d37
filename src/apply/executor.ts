import type { PlannedChange } from '../plan/types.js';
import { MacError } from '../errors.js';
import { DEFAULT_CONCURRENCY } from '../config/options.js';
import { buildWaves, changeKey, type ChangeKey } from './graph.js';
import { requestBody } from '../plan/body.js';
import type { ResolvedIds } from './refs.js';
import type { ChangeOutcome } from './result.js';
import { maskSecrets } from './secrets.js';
import { ForbiddenError, UnauthorizedError } from '../api/errors.js';

/** What `perform` gets besides the change: the request body with every `$ref` resolved, and all ids known. */
export interface PerformInput {
  /** `change.desired` with markers replaced by API ids and secrets filled in (absent for deletes). */
  body?: Record<string, unknown>;
  ids: ResolvedIds;
}

/** What a successful `perform` reports back. */
export interface PerformOutcome {
  /** API id of the object (required for creates: later waves reference it). */
  remoteId?: string | number;
  notes?: string[];
}

/** Carries out one change against the account; throws to fail it. Injected so the executor runs in process in tests. */
export type Perform = (change: PlannedChange, input: PerformInput) => Promise<PerformOutcome>;

/** Counts reported while a run progresses. */
export interface ExecutionProgress {
  done: number;
  total: number;
  failed: number;
  skipped: number;
}

/** Options of one execution. */
export interface ExecuteOptions {
  /** Changes in flight at once within a wave (default 8). */
  concurrency?: number;
  perform: Perform;
  /** Secret values by change key, then by the pointer of the change's SecretSource. */
  secrets?: ReadonlyMap<ChangeKey, ReadonlyMap<string, unknown>>;
  /** Called after each change ends, in completion order. */
  onProgress?: (progress: ExecutionProgress, outcome: ChangeOutcome) => void;
}

/**
 * Runs the plan's changes wave by wave, each wave with bounded concurrency. A failed change
 * does not stop the others; the changes that depend on it (directly or through a skipped one)
 * are skipped. Ids of resources created in one wave resolve the `$ref` markers of the next.
 * Returns one outcome per non-noop change, in plan order.
 */
export async function execute(changes: readonly PlannedChange[], options: ExecuteOptions): Promise<ChangeOutcome[]> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new MacError(`concurrency must be a positive integer, got ${concurrency}`);
  const { waves, deps } = buildWaves(changes);
  const total = waves.reduce((n, w) => n + w.length, 0);
  const ids = new Map<ChangeKey, string | number>();
  for (const c of changes) if (c.remoteId !== undefined) ids.set(changeKey(c), c.remoteId);

  const outcomes = new Map<ChangeKey, ChangeOutcome>();
  const progress: ExecutionProgress = { done: 0, total, failed: 0, skipped: 0 };
  const settle = (outcome: ChangeOutcome) => {
    outcomes.set(outcome.key, outcome);
    progress.done++;
    if (outcome.status === 'failed') progress.failed++;
    if (outcome.status === 'skipped') progress.skipped++;
    options.onProgress?.({ ...progress }, outcome);
  };

  // Once the API refuses the key itself (401, 403), every later write would be refused too:
  // the rest is skipped with that reason instead of failing one by one with the same error.
  let halted: string | undefined;
  for (const wave of waves) {
    // Changes whose dependencies did not apply are skipped at once, before any write of the wave.
    const runnable: PlannedChange[] = [];
    for (const change of wave) {
      const blocked = deps.get(changeKey(change))!.filter((d) => outcomes.get(d)?.status !== 'applied');
      if (blocked.length > 0) settle({ ...base(change), status: 'skipped', skippedBecause: blocked.sort() });
      else runnable.push(change);
    }
    // `concurrency` workers take the next change as soon as their last one ends: a slot never
    // waits on a queue's bookkeeping, and nothing is allocated per change before its turn.
    let next = 0;
    const worker = async () => {
      while (next < runnable.length) {
        const change = runnable[next++]!;
        if (halted !== undefined) {
          settle({ ...base(change), status: 'skipped', skipReason: halted });
          continue;
        }
        const { outcome, keyRefused } = await run(change, ids, options);
        if (keyRefused) halted ??= `not attempted: the API refused ${changeKey(change)} (${keyRefused}), so it would refuse this too`;
        if (outcome.status === 'applied' && outcome.remoteId !== undefined) ids.set(outcome.key, outcome.remoteId);
        settle(outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, runnable.length) }, worker));
  }
  return changes.filter((c) => c.action !== 'noop').map((c) => outcomes.get(changeKey(c))!);
}

function base(change: PlannedChange): Pick<ChangeOutcome, 'key' | 'action' | 'kind' | 'id' | 'name' | 'remoteId'> {
  return {
    key: changeKey(change),
    action: change.action as ChangeOutcome['action'],
    kind: change.kind,
    id: change.id,
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.remoteId !== undefined ? { remoteId: change.remoteId } : {}),
  };
}

/** Performs one change; `keyRefused` is the status when the API refused the key itself. */
async function run(change: PlannedChange, ids: ResolvedIds, options: ExecuteOptions): Promise<{ outcome: ChangeOutcome; keyRefused?: number }> {
  try {
    // Markers are ordered by the waves, so one without an id here names something the plan
    // neither creates nor knows; requestBody says so and the change fails alone.
    const body = change.action === 'delete' ? undefined : requestBody(change, ids, options.secrets?.get(changeKey(change)));
    const done = await options.perform(change, body === undefined ? { ids } : { body, ids });
    const remoteId = done.remoteId ?? change.remoteId;
    if (change.action === 'create' && remoteId === undefined) {
      return { outcome: { ...base(change), status: 'failed', error: 'the API answered the create without an id' } };
    }
    return {
      outcome: {
        ...base(change),
        status: 'applied',
        ...(remoteId !== undefined ? { remoteId } : {}),
        ...(done.notes?.length ? { notes: done.notes } : {}),
      },
    };
  } catch (err) {
    const hint = err instanceof MacError && err.hint ? { hint: maskSecrets(err.hint, options.secrets) } : {};
    const outcome: ChangeOutcome = { ...base(change), status: 'failed', error: maskSecrets(describe(err), options.secrets), ...hint };
    return err instanceof UnauthorizedError || err instanceof ForbiddenError ? { outcome, keyRefused: err.status } : { outcome };
  }
}

/** A one-line reason for a failure; errors that are not mac's own keep their class name. */
function describe(err: unknown): string {
  if (err instanceof MacError) return err.message;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
