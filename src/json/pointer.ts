import { escape, isRecord } from './values.js';

/** Splits a JSON pointer (RFC 6901) into its unescaped segments. */
export function segments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a pointer, or undefined. */
export function getAt(root: unknown, pointer: string): unknown {
  let cur: unknown = root;
  for (const seg of segments(pointer)) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isRecord(cur)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/** Replaces the value at an existing pointer (no-op when the path does not exist). */
export function setAt(root: unknown, pointer: string, value: unknown): void {
  const segs = segments(pointer);
  const last = segs.pop();
  if (last === undefined) return;
  const parent = getAt(root, segs.map((s) => `/${escape(s)}`).join(''));
  if (Array.isArray(parent) && Number(last) < parent.length) parent[Number(last)] = value;
  else if (isRecord(parent) && last in parent) parent[last] = value;
}

/** Whether `inner` is `outer` or lies below it. */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(`${outer}/`);
}
