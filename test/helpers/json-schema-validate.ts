/**
 * A validator of JSON values against the draft-07 subset mac's generated schemas use (type,
 * const, enum, properties, required, additionalProperties, items, min/max items and lengths,
 * pattern, minimum/maximum/exclusiveMinimum, multipleOf, anyOf/oneOf/allOf, if/then/else), as an
 * editor's YAML language server applies them. Formats and defaults are documentation. Returns the
 * problems, each with its JSON path.
 */
export type JsonSchema = Record<string, any>;

const TYPE_OF = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);

export function validateJson(value: unknown, s: JsonSchema | boolean | undefined, at = '$'): string[] {
  const out: string[] = [];
  if (s === true || s === undefined) return out;
  if (s === false) return [`${at}: not allowed`];
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const t = TYPE_OF(value);
    if (!types.some((x) => x === t || (x === 'number' && t === 'integer'))) return [`${at}: expected ${types.join('|')}, got ${t}`];
  }
  if ('const' in s && JSON.stringify(value) !== JSON.stringify(s.const)) out.push(`${at}: must be ${JSON.stringify(s.const)}`);
  if (s.enum && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) out.push(`${at}: must be one of ${JSON.stringify(s.enum)}`);
  if (typeof value === 'string') {
    if (s.minLength !== undefined && [...value].length < s.minLength) out.push(`${at}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && [...value].length > s.maxLength) out.push(`${at}: longer than ${s.maxLength}`);
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(value)) out.push(`${at}: does not match ${s.pattern}`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) out.push(`${at}: below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) out.push(`${at}: above ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) out.push(`${at}: not above ${s.exclusiveMinimum}`);
    if (s.multipleOf !== undefined && Math.abs(value / s.multipleOf - Math.round(value / s.multipleOf)) > 1e-9) out.push(`${at}: not a multiple of ${s.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) out.push(`${at}: fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) out.push(`${at}: more than ${s.maxItems} items`);
    if (s.items && !Array.isArray(s.items)) value.forEach((v, i) => out.push(...validateJson(v, s.items, `${at}[${i}]`)));
  }
  if (TYPE_OF(value) === 'object') {
    const obj = value as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in obj)) out.push(`${at}: missing ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      if (s.properties && k in s.properties) out.push(...validateJson(v, s.properties[k], `${at}.${k}`));
      else if (s.additionalProperties === false) out.push(`${at}: unknown property ${k}`);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(...validateJson(v, s.additionalProperties, `${at}.${k}`));
    }
  }
  for (const sub of s.allOf ?? []) out.push(...validateJson(value, sub, at));
  if (s.anyOf) {
    const results = s.anyOf.map((sub: JsonSchema) => validateJson(value, sub, at));
    if (!results.some((r: string[]) => r.length === 0)) out.push(`${at}: matches none of anyOf (${results.map((r: string[]) => r[0]).join('; ')})`);
  }
  if (s.oneOf) {
    const results = s.oneOf.map((sub: JsonSchema) => validateJson(value, sub, at));
    const ok = results.filter((r: string[]) => r.length === 0).length;
    if (ok !== 1) out.push(`${at}: matches ${ok} of oneOf${ok === 0 ? ` (closest: ${closest(results).join('; ')})` : ''}`);
  }
  if (s.if !== undefined) {
    const branch = validateJson(value, s.if, at).length === 0 ? s.then : s.else;
    if (branch !== undefined) out.push(...validateJson(value, branch, at));
  }
  return out;
}

function closest(results: string[][]): string[] {
  return results.reduce((a, b) => (b.length < a.length ? b : a)).slice(0, 3);
}
