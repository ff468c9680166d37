/**
 * Leaves out of an imported body the fields that equal what the loader and the plan would fill
 * in anyway, so the written definitions say only what differs from the defaults.
 */

type Json = unknown;

/** Structural equality of JSON values (object key order ignored, array order kept). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Whether a value is a plain (JSON) object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Returns `body` without the fields equal to their defaults. `projectDefaults` (the project's
 * `defaults.check`, merged under every check by the loader) are compared first and whole: a
 * field the project sets must be written whenever it differs, even when it equals the server's
 * default. Server defaults are compared recursively, and an object left empty is dropped.
 */
export function omitDefaults(
  body: Record<string, unknown>,
  serverDefaults: Record<string, unknown>,
  projectDefaults: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key in projectDefaults) {
      if (!jsonEqual(value, projectDefaults[key])) out[key] = value;
      continue;
    }
    if (!(key in serverDefaults)) {
      out[key] = value;
      continue;
    }
    const dflt = serverDefaults[key];
    if (jsonEqual(value, dflt)) continue;
    if (isPlainObject(value) && isPlainObject(dflt)) {
      const rest = omitDefaults(value, dflt);
      if (Object.keys(rest).length > 0) out[key] = rest;
      continue;
    }
    out[key] = value;
  }
  return out;
}
