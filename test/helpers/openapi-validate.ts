/**
 * A validator of JSON values against the OpenAPI 3.0 schema subset the reference document uses
 * (type, nullable, enum, properties, required, additionalProperties, items, min/max lengths and
 * items, minimum/maximum, allOf/anyOf/oneOf, $ref). Descriptions, examples, defaults and formats
 * are documentation and are not checked. Returns the problems, each with its JSON path.
 */
export type Schema = Record<string, any>;

export class OpenApiValidator {
  constructor(private readonly doc: Schema) {}

  resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; s && typeof s.$ref === 'string' && i < 50; i++) {
      const path = (s.$ref as string).replace(/^#\//, '').split('/');
      s = path.reduce((node: any, key) => node?.[key], this.doc);
    }
    return s;
  }

  validate(value: unknown, schema: Schema, at = '$', out: string[] = []): string[] {
    const s = this.resolve(schema);
    if (!s || typeof s !== 'object') return out;
    if (value === null) {
      if (s.nullable === true || s.type === undefined && !s.allOf && !s.anyOf && !s.oneOf && !s.properties) return out;
      if (s.anyOf || s.oneOf) {
        if ((s.anyOf ?? s.oneOf).some((x: Schema) => this.resolve(x)?.nullable === true)) return out;
      }
      out.push(`${at}: null where the reference does not allow it`);
      return out;
    }
    if (Array.isArray(s.allOf)) for (const part of s.allOf) this.validate(value, part, at, out);
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives) && alternatives.length > 0) {
      const fits = alternatives.some((alt: Schema) => this.validate(value, alt, at, []).length === 0);
      if (!fits) out.push(`${at}: matches none of the ${s.anyOf ? 'anyOf' : 'oneOf'} alternatives`);
    }
    if (s.enum && !s.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
    const type = s.type as string | undefined;
    const actual = Array.isArray(value) ? 'array' : typeof value;
    if (type) {
      const okType =
        type === 'integer' ? Number.isInteger(value) : type === 'number' ? typeof value === 'number' : type === 'array' ? Array.isArray(value) : type === 'object' ? actual === 'object' : actual === type;
      if (!okType) {
        out.push(`${at}: ${actual} where the reference has ${type}`);
        return out;
      }
    }
    if (typeof value === 'string') {
      if (typeof s.minLength === 'number' && value.length < s.minLength) out.push(`${at}: shorter than ${s.minLength}`);
      if (typeof s.maxLength === 'number' && value.length > s.maxLength) out.push(`${at}: longer than ${s.maxLength}`);
    }
    if (typeof value === 'number') {
      if (typeof s.minimum === 'number' && value < s.minimum) out.push(`${at}: below ${s.minimum}`);
      if (typeof s.maximum === 'number' && value > s.maximum) out.push(`${at}: above ${s.maximum}`);
    }
    if (Array.isArray(value)) {
      if (typeof s.maxItems === 'number' && value.length > s.maxItems) out.push(`${at}: more than ${s.maxItems} items`);
      if (s.items) value.forEach((v, i) => this.validate(v, s.items, `${at}[${i}]`, out));
    } else if (actual === 'object') {
      const obj = value as Record<string, unknown>;
      for (const key of s.required ?? []) if (!(key in obj)) out.push(`${at}.${key}: required by the reference, missing`);
      for (const [key, v] of Object.entries(obj)) {
        if (s.properties?.[key]) this.validate(v, s.properties[key], `${at}.${key}`, out);
        else if (s.additionalProperties && typeof s.additionalProperties === 'object') this.validate(v, s.additionalProperties, `${at}.${key}`, out);
      }
    }
    return out;
  }
}
