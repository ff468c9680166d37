/**
 * The small JSON path dialect of assertion `property` values: `$`, `.key`, `[0]`, `['key']`
 * and `["key"]`, e.g. `$[0].data`; `.length` of an array is its size. The leading `$` may be left out.
 */

/** A `property` that is not a path of the supported dialect. */
export class JsonPathError extends Error {}

/** Splits a path into keys (strings) and indices (numbers). */
export function parseJsonPath(path: string): Array<string | number> {
  const steps: Array<string | number> = [];
  let rest = path.trim().replace(/^\$/, '');
  const token = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;
  // A bare leading key (`data` or `0.data`) reads as `$.data` / `$[0].data`.
  if (rest && !/^[.[]/.test(rest)) rest = `.${rest}`;
  while (rest) {
    const m = token.exec(rest) ?? /^\.(\d+)/.exec(rest);
    if (!m) throw new JsonPathError(`unsupported JSON path "${path}" at "${rest}"`);
    if (m.length === 2) steps.push(Number(m[1])); // `.0` form
    else if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push((m[3] ?? m[4]).replace(/\\(.)/g, '$1'));
    rest = rest.slice(m[0].length);
  }
  return steps;
}

/** The value at `path` in `value`, or undefined when any step is missing. */
export function readJsonPath(value: unknown, path: string): unknown {
  let current = value;
  for (const step of parseJsonPath(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      // `.length` of an array is its number of items, as in JavaScript.
      if (step === 'length') {
        current = current.length;
        continue;
      }
      if (typeof step !== 'number' && !/^\d+$/.test(step)) return undefined;
      current = current[Number(step)];
    } else {
      if (!Object.hasOwn(current, String(step))) return undefined;
      current = (current as Record<string, unknown>)[String(step)];
    }
  }
  return current;
}
