import { isRefMarker } from '../plan/desired.js';
import type { ChangeKey } from './graph.js';

/** API ids known so far, by "Kind/id": ids from the plan plus those of resources created in this run. */
export type ResolvedIds = ReadonlyMap<ChangeKey, string | number>;

/** Every "Kind/id" a request body refers to through markers. */
export function refsIn(value: unknown, found: Set<ChangeKey> = new Set()): Set<ChangeKey> {
  if (isRefMarker(value)) found.add(value.$ref);
  else if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) refsIn(v, found);
  return found;
}

/** A body with its markers replaced, or the markers that have no id yet. */
export type Resolution<T> = { ok: true; value: T } | { ok: false; missing: ChangeKey[] };

/** Replaces every `{ $ref }` marker in a request body by the API id it stands for, without mutating the input. */
export function resolveRefs<T>(value: T, ids: ResolvedIds): Resolution<T> {
  const missing = new Set<ChangeKey>();
  const walk = (v: unknown): unknown => {
    if (isRefMarker(v)) {
      const id = ids.get(v.$ref);
      if (id === undefined) missing.add(v.$ref);
      return id;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    }
    return v;
  };
  const value2 = walk(value) as T;
  return missing.size > 0 ? { ok: false, missing: [...missing].sort() } : { ok: true, value: value2 };
}
