import { canonicalJson, escape, isRecord } from '../json.js';

/**
 * The normalization engine: a Shape says, field by field, what a resource looks like once
 * server defaults are applied, so that a definition and the live object compare equal exactly
 * when the service would store the same thing. Applied the same way to both sides.
 */

/** How one field normalizes. */
export interface Rule {
  /** Value taken when the field is absent (and when it is null, unless `nullable`). */
  default?: unknown;
  /** Default computed from the (raw) parent object, for defaults that depend on a sibling. */
  defaultFrom?: (parent: Record<string, unknown>) => unknown;
  /** null is a value of its own (kept); otherwise null means "not set" like absence. */
  nullable?: boolean;
  /** "" means the same as null for this field (a nullable string). */
  emptyIsNull?: boolean;
  /** A nested object with its own rules; unknown keys inside are dropped. */
  object?: Shape;
  /** An array of objects with these rules. */
  items?: Shape;
  /** A set-like array: order does not matter, so it is sorted (by this item field, or by value). */
  set?: true | string;
  /** A free-form object: kept as given (keys sorted when compared). */
  free?: true;
}

/** The rules of every field a resource (or nested object) may have; other fields are dropped. */
export type Shape = Record<string, Rule>;

/** Result of normalizing: the object, and the fields that were dropped because no rule knows them. */
export interface Normalized {
  value: Record<string, unknown>;
  /** JSON pointers of the input's fields that the shape does not know. */
  dropped: string[];
}

/** Normalizes an object by a shape: defaults, null/absent/empty unified, sets sorted, unknown fields dropped. */
export function normalizeShape(input: Record<string, unknown>, shape: Shape): Normalized {
  const dropped: string[] = [];
  const value = normalizeObject(input, shape, '', dropped);
  return { value, dropped };
}

// A plan normalizes tens of thousands of objects by the same few shapes: their fields and
// escaped pointer segments are listed once per shape.
const fieldsOf = new WeakMap<Shape, Array<[key: string, rule: Rule, segment: string]>>();

function fields(shape: Shape): Array<[string, Rule, string]> {
  let list = fieldsOf.get(shape);
  if (list === undefined) {
    list = Object.entries(shape).map(([key, rule]) => [key, rule, `/${escape(key)}`]);
    fieldsOf.set(shape, list);
  }
  return list;
}

function normalizeObject(input: Record<string, unknown>, shape: Shape, at: string, dropped: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) if (!(key in shape) && input[key] !== undefined) dropped.push(`${at}/${escape(key)}`);
  for (const [key, rule, segment] of fields(shape)) {
    const v = normalizeValue(input[key], rule, input, at, segment, dropped);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Normalizes the field at `parentAt + segment` (the pointer is built only for nested values). */
function normalizeValue(raw: unknown, rule: Rule, parent: Record<string, unknown>, parentAt: string, segment: string, dropped: string[]): unknown {
  let v = raw;
  if (rule.emptyIsNull && v === '') v = null;
  if (v === undefined || (v === null && !rule.nullable)) {
    // The output must never alias the shape's own values: object and array defaults are
    // copied, here or below (normalizeObject and the array branch build new ones).
    const d = rule.default;
    v = rule.defaultFrom ? rule.defaultFrom(parent) : typeof d === 'object' && d !== null && !Array.isArray(d) && !rule.object ? structuredClone(d) : d;
  }
  if (v === undefined || v === null) return v;
  if (rule.object && isRecord(v)) return normalizeObject(v, rule.object, parentAt + segment, dropped);
  if (rule.free && isRecord(v)) return JSON.parse(canonicalJson(v)) as Record<string, unknown>;
  if (Array.isArray(v)) {
    const at = parentAt + segment;
    let arr = rule.items ? v.map((item, i) => (isRecord(item) ? normalizeObject(item, rule.items!, `${at}/${i}`, dropped) : item)) : [...v];
    if (rule.set) arr = sortSet(arr, rule.set);
    return arr;
  }
  return v;
}

function sortSet(arr: unknown[], by: true | string): unknown[] {
  if (arr.length < 2) return arr;
  const keyOf = (x: unknown): string => {
    const v = by === true ? x : isRecord(x) ? x[by] : x;
    return typeof v === 'string' ? v : canonicalJson(v);
  };
  // Sort by the key, then by the whole item so that duplicates of a key still order stably.
  return [...arr].sort((a, b) => compare(keyOf(a), keyOf(b)) || compare(canonicalJson(a), canonicalJson(b)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}


export { isRecord, canonicalJson } from '../json.js';
