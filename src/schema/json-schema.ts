/**
 * JSON Schemas (draft-07) of every kind, of a definition document and of mac.config.yaml (input
 * mode, for editors), and of the plan document (output mode: what `mac plan --out` writes).
 */
import { z } from 'zod';
import { KINDS, type Kind } from './kinds.js';
import { DEFINITIONS, DefinitionDocumentSchema } from './definitions.js';
import { ProjectConfigSchema } from './config.js';
import { PlanSchema } from './saved-plan.js';

/** File name of a kind's schema: `TcpCheck` -> `tcp-check.schema.json`. */
export function schemaFileName(kind: Kind): string {
  return `${kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;
}

/** Schema of any definition document (oneOf by kind): the one to name in `# yaml-language-server: $schema=`. */
export const DOCUMENT_SCHEMA_FILE = 'definition.schema.json';
/** Schema of mac.config.yaml. */
export const CONFIG_SCHEMA_FILE = 'mac-config.schema.json';
/** Schema of a saved plan (`mac plan --out`, `--format json`), generated from the schema `mac apply` parses plans with. */
export const PLAN_SCHEMA_FILE = 'plan.schema.json';

function toJson(schema: z.ZodType, title: string, description: string, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema, ...rest } = json;
  return { $schema, title, description, ...rest };
}

/** The kind a generated schema is for (its `kind` property's const). */
function kindOf(schema: Record<string, unknown>): Kind | undefined {
  const kind = (schema.properties as Record<string, { const?: unknown }> | undefined)?.kind?.const;
  return typeof kind === 'string' && (KINDS as readonly string[]).includes(kind) ? (kind as Kind) : undefined;
}

/**
 * A kind's schema as editors check it: a tombstone (`state: absent`) needs only the fields that
 * identify the resource, every other document the kind's full schema. Without this an editor
 * marks a valid tombstone as missing `name`, `request`, ... (mac itself validates it so).
 */
function presentOrAbsent(kind: Kind, present: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _p, title: _t, description: _d, ...whole } = present;
  const { $schema: _a, title: _at, description: _ad, ...absent } = toJson(DEFINITIONS[kind].absentSchema, kind, '');
  const absentProps = { ...(absent.properties as Record<string, unknown>), state: { description: 'absent deletes the live resource (a tombstone)', const: 'absent' } };
  const required = [...new Set([...((absent.required as string[] | undefined) ?? []), 'state'])];
  return {
    if: { properties: { kind: { const: kind }, state: { const: 'absent' } }, required: ['kind', 'state'] },
    then: { ...absent, properties: absentProps, required },
    else: whole,
  };
}

/** Every JSON Schema mac ships, by file name, in a stable order. */
export function generateJsonSchemas(): Record<string, Record<string, unknown>> {
  const document = toJson(DefinitionDocumentSchema, 'mac definition', `One resource definition: ${KINDS.join(', ')}.`);
  document.oneOf = (document.oneOf as Array<Record<string, unknown>>).map((alt) => {
    const kind = kindOf(alt);
    return kind === undefined ? alt : presentOrAbsent(kind, alt);
  });
  const out: Record<string, Record<string, unknown>> = {
    [DOCUMENT_SCHEMA_FILE]: document,
    [CONFIG_SCHEMA_FILE]: toJson(ProjectConfigSchema, 'mac.config.yaml', 'Project settings of a mac monitoring repository.'),
    [PLAN_SCHEMA_FILE]: toJson(PlanSchema, 'mac plan', 'A plan as `mac plan --out FILE` (or `--format json`) writes it and `mac apply FILE` reads it.', 'output'),
  };
  for (const kind of KINDS) {
    const present = toJson(DEFINITIONS[kind].schema, kind, DEFINITIONS[kind].description);
    out[schemaFileName(kind)] = { $schema: present.$schema, title: kind, description: DEFINITIONS[kind].description, ...presentOrAbsent(kind, present) };
  }
  return out;
}

/** The text a schema file holds (stable formatting, trailing newline). */
export function schemaFileText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
