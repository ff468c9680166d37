import jsonpatch from 'fast-json-patch';
import { canonicalJson, escape, isRecord } from '../json/values.js';
import type { Shape } from '../kinds/shape.js';
import type { PatchOp } from './types.js';

/**
 * Set-like arrays (the kind table's `set` rule: tags, locations, privateLocations,
 * retryStrategy.onlyOn, alertChannelSubscriptions, environmentVariables, dashboard tags) are
 * diffed as membership, not by index: adding one member is one `add`, removing one is one
 * `remove`, and a mere reordering is no change.
 *
 * The operations are valid RFC 6902 over the normalized live object, in this order:
 * 1. changes inside a member matched by its key (keyed sets: `/environmentVariables/<live index>/value`),
 * 2. removes of members the definition no longer has, at their live index, highest index first
 *    (so every index is still right when its turn comes),
 * 3. adds of new members at their index in the desired array, lowest first.
 * Applied to the normalized live object they give the normalized desired array exactly (both
 * are sorted the same way); applied to any ordering of it, the same members.
 *
 * Sets are multisets: a duplicate member is its own member (the service stores duplicates as
 * given), so `[a, a]` against `[a]` is one `add` of `a`.
 */

/** A set-like array present on both sides, at `pointer`, whose members are identified by `key`. */
export interface SetField {
  pointer: string;
  /** `true`: the member itself is its identity; a string: the member field that is. */
  key: true | string;
}

/** A set operation plus where its value and old value come from (for masking by side). */
export interface SetOp extends PatchOp {
  /** Pointer of `value` in the desired object. */
  valueAt?: string;
  /** Pointer of `oldValue` in the live object. */
  oldAt?: string;
}

/** Names a member of a keyed set for people, from its key (undefined: the default naming). */
export type MemberLabel = (pointer: string, key: unknown) => string | undefined;

/** The set-like arrays that both sides hold as arrays, found by the shape (through nested objects). */
export function setFields(shape: Shape, live: Record<string, unknown>, desired: Record<string, unknown>, at = ''): SetField[] {
  const out: SetField[] = [];
  for (const [field, rule] of Object.entries(shape)) {
    const [l, d] = [live[field], desired[field]];
    const pointer = `${at}/${escape(field)}`;
    if (rule.set !== undefined && Array.isArray(l) && Array.isArray(d)) out.push({ pointer, key: rule.set });
    else if (rule.object && isRecord(l) && isRecord(d)) out.push(...setFields(rule.object, l, d, pointer));
  }
  return out;
}

/** The identity of a member, as text. */
function identity(member: unknown, key: true | string): string {
  return canonicalJson(key === true || !isRecord(member) ? member : member[key]);
}

/** How a member reads by default: strings as themselves, API ids as `#id`, references by their logical id. */
export function defaultLabel(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number') return `#${key}`;
  if (isRecord(key) && typeof key.$ref === 'string') return key.$ref.slice(key.$ref.indexOf('/') + 1);
  return canonicalJson(key);
}

/** The membership operations that turn the live set at `field.pointer` into the desired one. */
export function diffSet(field: SetField, live: readonly unknown[], desired: readonly unknown[], labelOf?: MemberLabel): SetOp[] {
  const { pointer, key } = field;
  const label = (member: unknown): string => {
    if (key === true) return defaultLabel(member);
    const k = isRecord(member) ? member[key] : member;
    return labelOf?.(pointer, k) ?? defaultLabel(k);
  };
  // Live indices by identity, in order: each desired member takes the first one left.
  const waiting = new Map<string, number[]>();
  live.forEach((m, i) => {
    const id = identity(m, key);
    const list = waiting.get(id);
    if (list) list.push(i);
    else waiting.set(id, [i]);
  });
  const inner: SetOp[] = [];
  const adds: SetOp[] = [];
  const kept = new Set<number>();
  desired.forEach((m, j) => {
    const i = waiting.get(identity(m, key))?.shift();
    if (i === undefined) {
      adds.push({ op: 'add', path: `${pointer}/${j}`, value: m, label: label(m), valueAt: `${pointer}/${j}` });
      return;
    }
    kept.add(i);
    const l = live[i];
    if (key === true || canonicalJson(l) === canonicalJson(m)) return;
    // A keyed member kept with other content (an environment variable's value, a subscription's
    // `activated`): the fields that differ, under its live index.
    for (const op of jsonpatch.compare(l as object, m as object) as PatchOp[]) {
      inner.push({ ...op, path: `${pointer}/${i}${op.path}`, label: label(m), valueAt: `${pointer}/${j}${op.path}`, oldAt: `${pointer}/${i}${op.path}` });
    }
  });
  const removes: SetOp[] = [];
  for (let i = live.length - 1; i >= 0; i--) {
    if (!kept.has(i)) removes.push({ op: 'remove', path: `${pointer}/${i}`, label: label(live[i]), oldAt: `${pointer}/${i}` });
  }
  return [...inner, ...removes, ...adds];
}
