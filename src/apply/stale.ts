import type { PlannedChange } from '../plan/types.js';
import type { Kind } from '../schema/kinds.js';
import { Refused } from '../errors.js';
import { changeKey, type ChangeKey } from './graph.js';

/** Live objects re-read just before applying, by change key; `null` = not found. */
export type LiveObjects = ReadonlyMap<ChangeKey, Record<string, unknown> | null>;

/** sha256 fingerprint of a live object as the plan computes it (normalized first). */
export type Fingerprint = (kind: Kind, live: Record<string, unknown>) => string;

/** One object whose live state no longer matches the plan. */
export interface StaleObject {
  key: ChangeKey;
  remoteId?: string | number;
  reason: 'changed since the plan' | 'deleted since the plan' | 'created since the plan';
}

/**
 * Compares the live objects with what the plan saw: updated and deleted objects must still have
 * the planned fingerprint, and objects to create must still be absent (found by identity).
 */
export function findStale(changes: readonly PlannedChange[], live: LiveObjects, fingerprint: Fingerprint): StaleObject[] {
  const stale: StaleObject[] = [];
  for (const c of changes) {
    if (c.action === 'noop') continue;
    const key = changeKey(c);
    const obj = live.get(key) ?? null;
    const remote = c.remoteId !== undefined ? { remoteId: c.remoteId } : {};
    if (c.action === 'create') {
      if (obj !== null) stale.push({ key, ...remote, reason: 'created since the plan' });
    } else if (obj === null) {
      stale.push({ key, ...remote, reason: 'deleted since the plan' });
    } else if (c.liveFingerprint !== undefined && fingerprint(c.kind, obj) !== c.liveFingerprint) {
      stale.push({ key, ...remote, reason: 'changed since the plan' });
    }
  }
  return stale;
}

/** Refuses to apply a saved plan when any object it touches moved since it was written. */
export function refuseIfStale(stale: readonly StaleObject[]): void {
  if (stale.length === 0) return;
  const lines = stale.map((s) => `${s.key}${s.remoteId !== undefined ? ` (id ${s.remoteId})` : ''}: ${s.reason}`);
  throw new Refused(`the plan is stale: ${stale.length} object${stale.length > 1 ? 's' : ''} moved since it was written\n  ${lines.join('\n  ')}`, {
    hint: 'plan again (mac plan DIR --out FILE), review, and apply the new plan',
  });
}
