import { canonicalJson, escape, isRecord } from '../json/values.js';

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
  /** The one spelling the service stores a set value in (an instant as UTC with ms), so that equal values compare equal. */
  canonical?: (v: unknown) => unknown;
}

/** The rules of every field a resource (or nested object) may have; other fields are dropped. */
export type Shape = Record<string, Rule>;

/** Result of normalizing: the object, and the fields that were dropped because no rule knows them. */
export interface Normalized {
  value: Record<string, unknown>;
  /** JSON pointers of the input's fields that the shape does not know. */
  dropped: string[];
  /**
   * With `{ defaulted: true }`: pointers of the fields of `value` that the input does not set
   * (server defaults made explicit), at every level, array members included (at their index in
   * `value`, after sets are sorted). A field taken from a default is listed as a whole.
   */
  defaulted?: string[];
}

/** Normalizes an object by a shape: defaults, null/absent/empty unified, sets sorted, unknown fields dropped. */
export function normalizeShape(input: Record<string, unknown>, shape: Shape, options: { defaulted?: boolean } = {}): Normalized {
  const dropped: string[] = [];
  if (!options.defaulted) return { value: normalizeObject(input, shape, '', dropped, undefined), dropped };
  const track: Track = new WeakMap();
  const value = normalizeObject(input, shape, '', dropped, track);
  const defaulted: string[] = [];
  collectDefaulted(value, '', track, defaulted);
  return { value, dropped, defaulted };
}

/**
 * The normalized object alone, without the pointers of dropped fields: what a live object is
 * compared and fingerprinted by (its many server-owned fields are dropped, and nobody reads which).
 */
export function normalizedValue(input: Record<string, unknown>, shape: Shape): Record<string, unknown> {
  return normalizeObject(input, shape, '', undefined, undefined);
}

/** Output objects built from an input object -> their fields that took a default (sorting moves objects, not this). */
type Track = WeakMap<object, string[]>;

function collectDefaulted(v: unknown, at: string, track: Track, out: string[]): void {
  if (Array.isArray(v)) v.forEach((item, i) => collectDefaulted(item, `${at}/${i}`, track, out));
  else if (isRecord(v)) {
    const taken = track.get(v) ?? [];
    for (const [key, x] of Object.entries(v)) {
      if (taken.includes(key)) out.push(`${at}/${escape(key)}`);
      else collectDefaulted(x, `${at}/${escape(key)}`, track, out);
    }
  }
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

function normalizeObject(input: Record<string, unknown>, shape: Shape, at: string, dropped: string[] | undefined, track: Track | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (dropped !== undefined) for (const key of Object.keys(input)) if (!(key in shape) && input[key] !== undefined) dropped.push(`${at}/${escape(key)}`);
  let taken: string[] | undefined;
  for (const [key, rule, segment] of fields(shape)) {
    const raw = input[key];
    // What a default fills in is not tracked inside: the whole field counts as defaulted.
    const defaulted = track !== undefined && (raw === undefined || raw === null);
    const v = normalizeValue(raw, rule, input, at, segment, dropped, defaulted ? undefined : track);
    if (v === undefined) continue;
    out[key] = v;
    if (defaulted && !(raw === null && v === null)) (taken ??= []).push(key);
  }
  if (taken) track!.set(out, taken);
  return out;
}

/** Normalizes the field at `parentAt + segment` (the pointer is built only for nested values). */
function normalizeValue(
  raw: unknown,
  rule: Rule,
  parent: Record<string, unknown>,
  parentAt: string,
  segment: string,
  dropped: string[] | undefined,
  track: Track | undefined,
): unknown {
  let v = raw;
  if (rule.emptyIsNull && v === '') v = null;
  if (v === undefined || (v === null && !rule.nullable)) {
    // The output must never alias the shape's own values: object and array defaults are
    // copied, here or below (normalizeObject and the array branch build new ones).
    const d = rule.default;
    v = rule.defaultFrom ? rule.defaultFrom(parent) : typeof d === 'object' && d !== null && !Array.isArray(d) && !rule.object ? structuredClone(d) : d;
  }
  if (v === undefined || v === null) return v;
  if (rule.canonical) v = rule.canonical(v);
  if (rule.object && isRecord(v)) return normalizeObject(v, rule.object, parentAt + segment, dropped, track);
  if (rule.free && isRecord(v)) return JSON.parse(canonicalJson(v)) as Record<string, unknown>;
  if (Array.isArray(v)) {
    const at = parentAt + segment;
    let arr = rule.items ? v.map((item, i) => (isRecord(item) ? normalizeObject(item, rule.items!, `${at}/${i}`, dropped, track) : item)) : [...v];
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


export { isRecord, canonicalJson } from '../json/values.js';
