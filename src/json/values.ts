/** Small JSON helpers shared by the plan stages. */

// A copy with sorted keys at every level, then one plain stringify: about three times faster
// than a stringify replacer, which matters when a plan fingerprints every live object.
function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortDeep(v[k]);
  return out;
}

/** Whether a value is a plain JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortDeep(v)) ?? 'null';
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function escape(segment: string): string {
  // Nearly every segment is a plain field name; the plan escapes hundreds of thousands of them.
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
