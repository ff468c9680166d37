import { escape } from '../json/values.js';
import jsonpatch from 'fast-json-patch';
import { createHash } from 'node:crypto';
import type { Kind } from '../schema/kinds.js';
import { SENSITIVE } from './desired.js';
import { kindSpec } from '../kinds/index.js';
import { canonicalJson, normalizedValue, type Shape } from '../kinds/shape.js';
import { getAt, isWithin, segments, setAt } from '../json/pointer.js';
import { diffSet, setFields, type MemberLabel, type SetField, type SetOp } from './sets.js';
import type { PatchOp } from './types.js';

/** A live object in its normalized form (server-owned fields gone, defaults explicit, sets sorted). */
export function normalizeLive(kind: Kind, live: Record<string, unknown>): Record<string, unknown> {
  return normalizedValue(live, kindSpec(kind).shapeOf(live));
}

/**
 * The fingerprint of a live object: sha256 of its canonical normalized JSON. Apply re-reads the
 * object and compares, so any change between plan and apply is noticed.
 */
export function fingerprint(kind: Kind, live: Record<string, unknown>): string {
  return fingerprintOf(normalizeLive(kind, live));
}

/** The fingerprint of a live object already normalized by `normalizeLive`. */
export function fingerprintOf(normalizedLive: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(normalizedLive)).digest('hex')}`;
}

/**
 * Top-level fields the definition does not manage: the kind's PUT merges, the field has no
 * server default to stand in for it, the desired body omits it and the live object has it. An
 * update would leave it as it is (omitted = unchanged), so showing its removal would be a diff
 * that never converges; it is left out of the comparison instead.
 */
export function unmanagedFields(kind: Kind, desired: Record<string, unknown>, live: Record<string, unknown>): string[] {
  const spec = kindSpec(kind);
  if (!spec.updateMerges) return [];
  const shape = spec.shapeOf(live);
  // Asked twice per compared pair: each shape's fields without a default are listed once.
  let fields = undefaultedFields.get(shape);
  if (fields === undefined) {
    fields = Object.entries(shape)
      .filter(([, rule]) => rule.default === undefined && rule.defaultFrom === undefined)
      .map(([field]) => field);
    undefaultedFields.set(shape, fields);
  }
  return fields.filter((field) => desired[field] === undefined && live[field] !== undefined);
}

const undefaultedFields = new WeakMap<Shape, string[]>();

/** How a comparison names things for people, and which masked values it leaves out. */
export interface CompareOptions {
  /** Names a member of a keyed set by its key (the plan: subscribed alert channels by logical id). */
  labelOf?: MemberLabel;
  /** Pointers of masked values whose variable is not set: not compared. */
  missing?: readonly string[];
}

/** The outcome of comparing a desired body with a normalized live object. */
export interface Comparison {
  /** RFC 6902 operations from live to desired; values at sensitive paths are "(sensitive)". */
  patch: PatchOp[];
}

/**
 * Compares the desired body (with real secret values) and the normalized live object.
 * Set-like arrays are compared by membership (sets.ts). Write-only fields are left out; values
 * that cannot be read back (secret values) are not compared; credentials, locked and env-read
 * values that can be read back are compared but never shown; `missing` values (their variable
 * is not set) are not compared.
 */
export function compareObjects(
  kind: Kind,
  desired: Record<string, unknown>,
  live: Record<string, unknown>,
  desiredSecrets: string[],
  options: CompareOptions = {},
): Comparison {
  const spec = kindSpec(kind);
  const missing = options.missing ?? [];
  // Both sides are copied only when fields must be removed or masked (rare): the callers'
  // objects stay intact, and a plan of thousands of unchanged resources copies nothing.
  const mutate =
    spec.writeOnly.some((field) => field in live || field in desired) ||
    unmanagedFields(kind, desired, live).length > 0 ||
    spec.unreadableSecrets(live).length > 0 ||
    spec.unreadableSecrets(desired).length > 0 ||
    missing.length > 0;
  const left = mutate ? structuredClone(live) : live;
  const right = mutate ? structuredClone(desired) : desired;
  if (mutate) {
    for (const field of spec.writeOnly) {
      delete left[field];
      delete right[field];
    }
    for (const field of unmanagedFields(kind, right, left)) delete left[field];
  }
  const unreadableLeft = mutate ? spec.unreadableSecrets(left) : [];
  const unreadableRight = mutate ? spec.unreadableSecrets(right) : [];
  const unreadable = [...new Set([...unreadableLeft, ...unreadableRight])];
  // Each side's own pointers: members of a set (secret environment variables) sit at different
  // indices on each side, and one side's index must not mask another member of the other.
  for (const p of unreadableLeft) setAt(left, p, SENSITIVE);
  for (const p of unreadableRight) setAt(right, p, SENSITIVE);
  // A masked value whose environment variable is not set is unknown: not compared (the plan notes
  // it, apply refuses until it is set).
  for (const p of missing) {
    const old = getAt(left, p);
    if (old !== undefined && getAt(right, p) !== undefined) setAt(right, p, structuredClone(old));
  }
  // Set-like arrays are diffed by membership (sets.ts); fast-json-patch diffs arrays by index,
  // so its operations inside them are replaced by the membership ones.
  let ops = jsonpatch.compare(left, right) as SetOp[];
  // Equal objects (most of a plan): nothing to order or mask.
  if (ops.length === 0) return { patch: [] };
  const sensitiveLeft = spec.sensitive(left);
  const sensitiveRight = spec.sensitive(right);
  const hidden = [...new Set([...unreadable, ...desiredSecrets, ...sensitiveLeft, ...sensitiveRight])];
  const sets = setFields(spec.shapeOf(right), left, right);
  if (sets.length > 0) {
    const setOf = (op: PatchOp) => sets.find((s) => isWithin(op.path, s.pointer));
    if (ops.some(setOf)) {
      // Each set's operations take the place of the first index operation inside it.
      const done = new Set<SetField>();
      ops = ops.flatMap((op) => {
        const set = setOf(op);
        if (set === undefined) return [op];
        if (done.has(set)) return [];
        done.add(set);
        return diffSet(set, getAt(left, set.pointer) as unknown[], getAt(right, set.pointer) as unknown[], options.labelOf);
      });
    }
  }
  // A set member moves between indices, so its values are masked by the pointers of its own
  // side; other operations have the same pointer on both sides.
  const hiddenLeft = [...unreadableLeft, ...sensitiveLeft];
  const hiddenRight = [...unreadableRight, ...desiredSecrets, ...sensitiveRight];
  return {
    patch: ops.map(({ valueAt, oldAt, label, ...op }) => {
      // `label` goes last: the RFC 6902 fields first, then mac's additions.
      const out: PatchOp = { ...op };
      if ('value' in op) out.value = valueAt === undefined ? maskValue(op.value, op.path, hidden) : maskValue(op.value, valueAt, hiddenRight);
      if (op.op === 'replace' || op.op === 'remove') {
        const old = getAt(left, oldAt ?? op.path);
        if (old !== undefined) out.oldValue = oldAt === undefined ? maskValue(old, op.path, hidden) : maskValue(old, oldAt, hiddenLeft);
      }
      // A member of a plain set is named by its value: a masked value is not named either.
      if (label !== undefined) out.label = out.value === SENSITIVE || (op.op === 'remove' && out.oldValue === SENSITIVE) ? SENSITIVE : label;
      return out;
    }),
  };
}

/** Replaces every part of `value` (found at `at`) that lies on a hidden path with "(sensitive)". */
export function maskValue(value: unknown, at: string, hidden: string[]): unknown {
  if (hidden.some((h) => isWithin(at, h))) return SENSITIVE;
  const inner = hidden.filter((h) => isWithin(h, at) && h !== at);
  if (inner.length === 0) return value;
  const copy = structuredClone(value);
  for (const h of inner) {
    const rel = segments(h).slice(segments(at).length);
    const pointer = rel.map((s) => `/${escape(s)}`).join('');
    if (getAt(copy, pointer) !== undefined) setAt(copy, pointer, SENSITIVE);
  }
  return copy;
}

/** The patch of a create: one `add` per top-level field of the (masked) desired body. */
export function createPatch(kind: Kind, masked: Record<string, unknown>): PatchOp[] {
  const writeOnly = new Set(kindSpec(kind).writeOnly);
  return Object.entries(masked)
    .filter(([k]) => !writeOnly.has(k))
    .map(([k, v]) => ({ op: 'add' as const, path: `/${escape(k)}`, value: v }));
}
