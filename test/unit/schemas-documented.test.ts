import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { docExamples } from '../helpers/doc-examples.js';
import { validateJson, type JsonSchema } from '../helpers/json-schema-validate.js';

// What an editor shows for the documented forms: the committed JSON Schemas (as
// `# yaml-language-server: $schema=` names them) must accept every documented definition, and a
// tombstone (`state: absent`) of every kind, without an error.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'schemas', name), 'utf8')) as JsonSchema;
const DOCUMENT = schema('definition.schema.json');
const CONFIG = schema('mac-config.schema.json');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'workflows' ? [] : yamlFiles(p);
    return /\.ya?ml$/.test(f) ? [p] : [];
  });
}

interface Doc {
  where: string;
  data: Record<string, unknown>;
}

function documents(): Doc[] {
  const out: Doc[] = [];
  const add = (where: string, file: string, text: string) => {
    for (const [i, d] of parseAllDocuments(text).entries()) {
      const data = d.toJS() as Record<string, unknown> | null;
      if (data && typeof data === 'object') out.push({ where: `${where} (${file}) #${i + 1}`, data });
    }
  };
  for (const f of yamlFiles(join(ROOT, 'examples'))) add(f.slice(ROOT.length), f.split('/').pop()!, readFileSync(f, 'utf8'));
  for (const page of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))) {
    for (const ex of docExamples(join(ROOT, 'docs', page))) if (/\.ya?ml$/.test(ex.path)) add(`docs/${page}:${ex.line}`, ex.path.split('/').pop()!, ex.text);
  }
  return out;
}

const docs = documents();
const definitions = docs.filter((d) => !d.where.includes('mac.config.yaml'));

describe('the JSON Schemas accept every documented form', () => {
  it('finds the documented definitions', () => {
    expect(definitions.length).toBeGreaterThan(20);
  });

  it('every example definition and every definition of the docs validates', () => {
    const problems = definitions.flatMap((d) => validateJson(d.data, DOCUMENT).map((p) => `${d.where}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('every mac.config.yaml of the examples and docs validates', () => {
    const configs = docs.filter((d) => d.where.includes('mac.config.yaml'));
    expect(configs.length).toBeGreaterThan(0);
    expect(configs.flatMap((d) => validateJson(d.data, CONFIG).map((p) => `${d.where}: ${p}`))).toEqual([]);
  });

  it('a tombstone of every kind (state: absent, its identity fields only) shows no error, in the document and the kind schema', () => {
    const kinds = new Map<string, Record<string, unknown>>();
    for (const d of definitions) if (typeof d.data.kind === 'string' && !kinds.has(d.data.kind)) kinds.set(d.data.kind, d.data);
    expect(kinds.size).toBeGreaterThanOrEqual(15);
    for (const [kind, example] of kinds) {
      const kindSchema = schema(`${kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`);
      // A kind matched on more than its id (an alert channel: type and address) keeps those fields.
      const required: string[] = (kindSchema.then as JsonSchema).properties?.kind ? (kindSchema.then as JsonSchema).required : Object.keys(example);
      const tombstone = Object.fromEntries(required.filter((k) => k !== 'state').map((k) => [k, example[k]]));
      tombstone.state = 'absent';
      expect(validateJson(tombstone, DOCUMENT), `${kind} ${JSON.stringify(tombstone)}`).toEqual([]);
      expect(validateJson(tombstone, kindSchema), kind).toEqual([]);
      if (kind !== 'AlertChannel') expect(Object.keys(tombstone).length, kind).toBeLessThanOrEqual(4);
    }
  });

  it('still marks what is wrong: a present check without its request, a tombstone without its id', () => {
    expect(validateJson({ kind: 'TcpCheck', id: 'db', name: 'db' }, DOCUMENT).join('\n')).toMatch(/matches 0 of oneOf.*missing request/);
    expect(validateJson({ kind: 'TcpCheck', id: 'db', name: 'db', state: 'present' }, DOCUMENT)).not.toEqual([]);
    expect(validateJson({ kind: 'TcpCheck', state: 'absent' }, DOCUMENT)).not.toEqual([]);
    expect(validateJson({ kind: 'TcpCheck', id: 'db', state: 'absent', port: 'x' }, DOCUMENT)).not.toEqual([]);
  });
});
