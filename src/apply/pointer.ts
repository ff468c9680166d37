/** Splits an RFC 6901 JSON pointer into unescaped tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a JSON pointer, or undefined when any step is missing. */
export function getAt(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const token of pointerTokens(pointer)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** A copy of `doc` with `value` at `pointer`; the parent must exist. Returns undefined when it does not. */
export function setAt<T>(doc: T, pointer: string, value: unknown): T | undefined {
  const tokens = pointerTokens(pointer);
  if (tokens.length === 0) return value as T;
  const copy = structuredClone(doc);
  let node: unknown = copy;
  for (const token of tokens.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  if (typeof node !== 'object' || node === null) return undefined;
  (node as Record<string, unknown>)[tokens[tokens.length - 1]] = value;
  return copy;
}
