/** Small JSON helpers shared by the plan stages. */

function sortKeys(v: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]));
}

/** Whether a value is a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_key, value: unknown) => (isRecord(value) ? sortKeys(value) : value)) ?? 'null';
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
