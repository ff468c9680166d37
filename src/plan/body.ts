import type { Kind } from '../schema/kinds.js';
import { isOwnedKind } from '../schema/kinds.js';
import { MacError } from '../errors.js';
import { isRefMarker, SENSITIVE } from './desired.js';
import { isRecord } from '../json/values.js';
import { normalizeLive } from './compare.js';
import { kindSpec } from '../kinds/index.js';
import { ownedId } from './ownership.js';
import { getAt, setAt } from '../json/pointer.js';
import type { PlannedChange } from './types.js';

/**
 * The request body of a create or update: the change's desired body with every RefMarker
 * replaced by the API id its target got (`ids`, keyed "Kind/id") and every "(sensitive)" secret
 * path filled from `secrets` (keyed by the change's SecretSource paths).
 */
export function requestBody(
  change: PlannedChange,
  ids: ReadonlyMap<string, string | number>,
  secrets: ReadonlyMap<string, unknown> = new Map(),
): Record<string, unknown> {
  if (!change.desired) throw new MacError(`${change.kind}/${change.id}: the plan has no desired body for this ${change.action}`);
  // replaceRefs copies every array and object, so the secrets below are set on the copy.
  const body = replaceRefs(change.desired, ids, `${change.kind}/${change.id}`) as Record<string, unknown>;
  for (const source of change.secrets ?? []) {
    if (!secrets.has(source.path)) {
      throw new MacError(`${change.kind}/${change.id}: no value for the secret at ${source.path}`, {
        hint: source.env ? `set the environment variable ${source.env}` : 'apply from the project directory so that secrets can be read again',
      });
    }
    if (getAt(body, source.path) === SENSITIVE) setAt(body, source.path, secrets.get(source.path));
  }
  return body;
}

function replaceRefs(v: unknown, ids: ReadonlyMap<string, string | number>, owner: string): unknown {
  if (isRefMarker(v)) {
    const id = ids.get(v.$ref);
    if (id === undefined) throw new MacError(`${owner}: ${v.$ref} has no API id yet`, { hint: `${v.$ref} must be created first` });
    return id;
  }
  if (Array.isArray(v)) return v.map((x) => replaceRefs(x, ids, owner));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceRefs(x, ids, owner)]));
  return v;
}

/**
 * The live object of `kind` that a change stands for, by the kind's identity: the ownership
 * tag for checks, the natural key otherwise. Apply uses it to find a create whose answer was lost.
 */
export function findLive(
  kind: Kind,
  project: string,
  change: Pick<PlannedChange, 'id' | 'desired'>,
  liveItems: ReadonlyArray<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const spec = kindSpec(kind);
  const candidates = liveItems.filter((l) => spec.accepts(l));
  if (isOwnedKind(kind)) return candidates.find((l) => ownedId(project, l.tags) === change.id);
  const key = change.desired ? spec.naturalKey?.(change.desired) : undefined;
  if (key === undefined) return undefined;
  return candidates.find((l) => spec.naturalKey?.(normalizeLive(kind, l)) === key);
}
