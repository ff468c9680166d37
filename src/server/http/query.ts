import { z } from 'zod';

/**
 * The query of a URL as an object: a key given once maps to its string, a repeated key to an
 * array; `tag[]=a` counts as `tag=a` (both array forms are accepted, api-decisions §1.1).
 */
export function readQuery(url: string): Record<string, string | string[]> {
  const q = url.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (q < 0) return out;
  for (const [rawKey, value] of new URLSearchParams(url.slice(q + 1))) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    const prev = out[key];
    if (prev === undefined) out[key] = rawKey.endsWith('[]') ? [value] : value;
    else out[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

const single = z.union([z.string(), z.array(z.string()).transform((a) => a[a.length - 1])]);

/** An integer query or path parameter within min..max. */
export function intParam(min: number, max = Number.MAX_SAFE_INTEGER) {
  return single
    .pipe(z.string().regex(/^-?\d+$/, { error: 'must be an integer' }))
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A `true`/`false` query parameter. */
export function boolParam() {
  return single.pipe(z.enum(['true', 'false'])).transform((v) => v === 'true');
}

/** A query parameter that may repeat; always read as an array. */
export function arrayParam<T extends z.ZodType<unknown, string>>(item: T) {
  return z.union([z.string().transform((s) => [s]), z.array(z.string())]).pipe(z.array(item));
}

/** A single string query parameter (the last one wins when repeated). */
export function stringParam() {
  return single;
}
