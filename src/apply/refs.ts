import { isRefMarker } from '../plan/desired.js';
import type { ChangeKey } from './graph.js';

/** API ids known so far, by "Kind/id": ids from the plan plus those of resources created in this run. */
export type ResolvedIds = ReadonlyMap<ChangeKey, string | number>;

/** Every "Kind/id" a request body refers to through `{ $ref }` markers. */
export function refsIn(value: unknown, found: Set<ChangeKey> = new Set()): Set<ChangeKey> {
  if (isRefMarker(value)) found.add(value.$ref);
  else if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) refsIn(v, found);
  return found;
}
