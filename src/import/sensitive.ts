import { isRecord } from '../kinds/shape.js';
import type { KindSpec } from '../kinds/types.js';

/** A value of a normalized body that import writes as `${{ env.NAME }}` instead of in clear. */
export interface SensitiveValue {
  /** JSON pointer into the body. */
  pointer: string;
  /** Words the environment name is built from, after the resource's id. */
  nameParts: string[];
  /** The API never returns the value (a secret): it can be named, not compared. */
  unreadable: boolean;
}

/**
 * The values not to write in clear: the plan table's secrets (unreadable) and credentials
 * (readable but masked), plus every `locked` value. Locked only hides a value in the UI, but its
 * owner chose to hide it, and a definition repository is shared more widely than a UI.
 */
export function sensitiveValues(spec: KindSpec, body: Record<string, unknown>): SensitiveValue[] {
  const out = new Map<string, SensitiveValue>();
  const add = (pointer: string, unreadable: boolean) => {
    if (!out.has(pointer)) out.set(pointer, { pointer, nameParts: nameParts(body, pointer), unreadable });
  };
  for (const p of spec.unreadableSecrets(body)) add(p, true);
  for (const p of spec.sensitive(body)) add(p, false);
  for (const p of lockedValues(body, '')) add(p, false);
  return [...out.values()].sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** Pointers of `value` fields of objects marked `locked: true`, anywhere in the body. */
function lockedValues(node: unknown, at: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => lockedValues(item, `${at}/${i}`));
  if (!isRecord(node)) return [];
  const here = node.locked === true && typeof node.value === 'string' && node.value !== '' ? [`${at}/value`] : [];
  return here.concat(...Object.entries(node).map(([k, v]) => lockedValues(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)));
}

/**
 * Names a value by what holds it: an item with a `key` (check variables, webhook headers) by
 * that key, a top-level `value` (account variables, whose id is the key) by nothing more, any
 * other field by its own name.
 */
function nameParts(body: Record<string, unknown>, pointer: string): string[] {
  const segments = pointerSegments(pointer);
  const field = segments[segments.length - 1];
  if (segments.length === 1) return field === 'value' ? [] : [field];
  const parent = getPointer(body, segments.slice(0, -1));
  return isRecord(parent) && typeof parent.key === 'string' ? [parent.key] : [field];
}

/** The segments of a JSON pointer, unescaped. */
export function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a pointer's segments, or undefined. */
export function getPointer(obj: unknown, segments: string[]): unknown {
  let cur = obj;
  for (const s of segments) cur = Array.isArray(cur) ? cur[Number(s)] : isRecord(cur) ? cur[s] : undefined;
  return cur;
}

/** Sets the value at a pointer's segments; every parent must exist. */
export function setPointer(obj: Record<string, unknown>, segments: string[], value: unknown): void {
  const parent = getPointer(obj, segments.slice(0, -1));
  const last = segments[segments.length - 1];
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else if (isRecord(parent)) parent[last] = value;
}
