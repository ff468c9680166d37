import type { PlannedChange } from '../plan/types.js';
import { NotFoundError, outcomeUnknown } from '../api/index.js';
import type { Perform, PerformOutcome } from './executor.js';

/** The API operations behind one change, for its kind; built from the kind table. */
export interface ResourceOps {
  /** POSTs the body; resolves to the new object's API id. */
  create(change: PlannedChange, body: Record<string, unknown>): Promise<string | number>;
  /** PUTs the body to the object. */
  update(change: PlannedChange, remoteId: string | number, body: Record<string, unknown>): Promise<void>;
  /** DELETEs the object. */
  remove(change: PlannedChange, remoteId: string | number): Promise<void>;
  /** Looks the object up live by its identity (ownership tag or natural key); undefined when absent. */
  find(change: PlannedChange, body: Record<string, unknown>): Promise<string | number | undefined>;
}

/** How hard a create whose answer was lost is tried again after the lookup found nothing. */
export interface CreatePolicy {
  /** POSTs in all (default 4). */
  attempts: number;
  /** Wait before the lookup, ms: gives a slow write time to land (default 0; tests keep it 0). */
  settleMs: number;
  sleep: (ms: number) => Promise<void>;
}

const DEFAULT_POLICY: CreatePolicy = { attempts: 4, settleMs: 0, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/**
 * A create that never makes a second object: when the answer is lost, the object is looked up
 * by identity before any new POST, and adopted if the lost request created it.
 */
export async function createOnce(
  ops: ResourceOps,
  change: PlannedChange,
  body: Record<string, unknown>,
  policy: Partial<CreatePolicy> = {},
): Promise<PerformOutcome> {
  const { attempts, settleMs, sleep } = { ...DEFAULT_POLICY, ...policy };
  let lost = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const remoteId = await ops.create(change, body);
      return lost > 0 ? { remoteId, notes: [`created after ${lost} lost answer${lost > 1 ? 's' : ''}`] } : { remoteId };
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      lost++;
      if (settleMs > 0) await sleep(settleMs);
      const found = await ops.find(change, body);
      if (found !== undefined) return { remoteId: found, notes: ['the create answer was lost; adopted the object it made'] };
      if (attempt >= attempts) throw err;
    }
  }
}

/** The real `perform`: creates (duplicate-safe), updates and deletes through the kind's operations. */
export function createPerform(opsFor: (change: PlannedChange) => ResourceOps, policy: Partial<CreatePolicy> = {}): Perform {
  return async (change, { body }) => {
    const ops = opsFor(change);
    switch (change.action) {
      case 'create':
        return createOnce(ops, change, requireBody(change, body), policy);
      case 'update':
        await ops.update(change, requireRemoteId(change), requireBody(change, body));
        return {};
      case 'delete':
        try {
          await ops.remove(change, requireRemoteId(change));
          return {};
        } catch (err) {
          // A DELETE retried after a lost answer finds the object already gone: that is success.
          if (err instanceof NotFoundError) return { notes: ['already gone'] };
          throw err;
        }
      default:
        return {};
    }
  };
}

function requireBody(change: PlannedChange, body: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!body) throw new Error(`the plan has no request body for ${change.action} ${change.kind}/${change.id}`);
  return body;
}

function requireRemoteId(change: PlannedChange): string | number {
  if (change.remoteId === undefined) throw new Error(`the plan has no API id for ${change.action} ${change.kind}/${change.id}`);
  return change.remoteId;
}
