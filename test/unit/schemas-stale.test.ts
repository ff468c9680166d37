import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateJsonSchemas, schemaFileText } from '../../src/schema/json-schema.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

describe('committed schemas/', () => {
  const generated = generateJsonSchemas();
  it('holds exactly the generated files (run `mac schemas` when this fails)', () => {
    expect(readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')).sort()).toEqual(Object.keys(generated).sort());
  });
  it.each(Object.keys(generated))('%s is up to date (run `mac schemas` when this fails)', (name) => {
    expect(readFileSync(`${SCHEMAS}${name}`, 'utf8')).toBe(schemaFileText(generated[name]));
  });
  it('documents server defaults and descriptions in input mode', () => {
    // A kind's schema: a tombstone (state: absent) needs only its identity fields, anything else the whole kind.
    const kindSchema = generated['tcp-check.schema.json'] as { then: { required: string[] }; else: { properties: Record<string, { default?: unknown; description?: string }>; required: string[] } };
    expect(kindSchema.then.required).toEqual(['kind', 'id', 'state']);
    const tcp = kindSchema.else;
    expect(tcp.properties.frequency.default).toBe(10);
    expect(tcp.properties.request.description).toBeTruthy();
    expect(tcp.required).toEqual(expect.arrayContaining(['kind', 'id', 'name', 'request']));
    expect(generated['definition.schema.json'].oneOf).toHaveLength(17);
  });
});
