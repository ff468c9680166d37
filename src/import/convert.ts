import type { KindSpec } from '../kinds/types.js';
import { DEFINITIONS } from '../schema/definitions.js';
import type { Kind } from '../schema/kinds.js';
import type { EnvNameAllocator } from './ids.js';
import { omitRedundant } from './omit.js';
import { getPointer, pointerSegments, sensitiveValues, setPointer } from './sensitive.js';
import { IMPORT_KINDS } from './table.js';

/** Maps live ids of referenced resources to the logical ids they have (or get) in the project. */
export interface RefIndex {
  alertChannel(remoteId: number): string | undefined;
  snippet(remoteId: number): string | undefined;
  checkGroup(remoteId: number): string | undefined;
  /** A status-page service's API id -> its logical id. */
  service(remoteId: string): string | undefined;
  /** A private location's slug -> its logical id. */
  privateLocation(slug: string): string | undefined;
}

/** A value written as `${{ env.NAME }}`; `value` is kept in memory only, for the round-trip plan. */
export interface EnvPlaceholder {
  name: string;
  kind: Kind;
  id: string;
  /** Field path inside the definition, dot-joined. */
  path: string;
  /** The live value when the API returns it; absent for secrets, which cannot be read back. */
  value?: string;
}

/** A script body to write to its own `.js` file. */
export interface ScriptOut {
  /** Field of the definition it stands for (`script`). */
  field: string;
  content: string;
}

/** One definition document ready to be placed in a file, plus what goes beside it. */
export interface ImportedDoc {
  kind: Kind;
  id: string;
  /** Keys in the order they are written. */
  doc: Record<string, unknown>;
  script?: ScriptOut;
  env: EnvPlaceholder[];
}

/** What converting needs besides the resource itself. */
export interface ConvertContext {
  /** The plan's table entry of the kind: shape (defaults), secrets and credentials. */
  spec: KindSpec;
  /** The project's `defaults.check` for checks, `{}` otherwise. */
  projectDefaults: Record<string, unknown>;
  refs: RefIndex;
  envNames: EnvNameAllocator;
}

/**
 * Converts one live resource, normalized by the plan's shape, into its definition document under
 * the logical id `id`: sensitive values as placeholders, defaults left out, references by logical
 * id, the script set apart for its own file.
 */
export function toDefinition(kind: Kind, normalized: Record<string, unknown>, id: string, ctx: ConvertContext): ImportedDoc {
  const spec = IMPORT_KINDS[kind];
  let body = structuredClone(normalized);
  const env: EnvPlaceholder[] = [];
  for (const s of sensitiveValues(ctx.spec, body)) {
    const segments = pointerSegments(s.pointer);
    const value = getPointer(body, segments);
    const name = ctx.envNames.allocate(id, ...s.nameParts);
    const readable = !s.unreadable && typeof value === 'string';
    env.push({ name, kind, id, path: segments.join('.'), ...(readable ? { value } : {}) });
    setPointer(body, segments, `\${{ env.${name} }}`);
  }
  const { alertChannels: defaultChannels, ...projectDefaults } = ctx.projectDefaults;
  // References first: the omission below reads `activated` on subscriptions before it drops it as a default.
  const full = rewriteReferences(body, ctx.refs);
  body = omitRedundant(full, ctx.spec.shapeOf(full), projectDefaults);
  if (Array.isArray(defaultChannels)) body = againstDefaultChannels(body, defaultChannels.map(String));

  let script: ScriptOut | undefined;
  if (spec.scriptField && typeof body[spec.scriptField] === 'string' && body[spec.scriptField] !== '') {
    script = { field: spec.scriptField, content: body[spec.scriptField] as string };
  }
  return { kind, id, doc: keepRequired(kind, id, body, full), script, env };
}

/**
 * The document in reading order (kind, id, name, then the body). A default the plan would fill in
 * may still be required by the definition schema (`activated` of a subscription item): any
 * top-level field the reduced document fails on is written whole, as the account has it.
 */
function keepRequired(kind: Kind, id: string, reduced: Record<string, unknown>, full: Record<string, unknown>): Record<string, unknown> {
  const build = (body: Record<string, unknown>) => {
    const idField = DEFINITIONS[kind].idField;
    const { name, key: _key, ...rest } = body;
    return { kind, [idField]: id, ...(name === undefined ? {} : { name }), ...rest };
  };
  const doc = build(reduced);
  const failed = DEFINITIONS[kind].schema.safeParse(doc).error?.issues.map((i) => String(i.path[0])) ?? [];
  const restore = [...new Set(failed)].filter((key) => key in full && !(key in reduced && jsonEqual(reduced[key], full[key])));
  if (restore.length === 0) return doc;
  // Keys keep their place: restored fields replace the reduced ones where they stood.
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(full)) if (key in reduced || restore.includes(key)) merged[key] = restore.includes(key) ? full[key] : reduced[key];
  for (const key of Object.keys(reduced)) if (!(key in merged)) merged[key] = reduced[key];
  return build(merged);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The project's `defaults.check.alertChannels` apply to every check that names none: a check
 * with the same channels leaves them out, any other says its own, `[]` included.
 */
function againstDefaultChannels(body: Record<string, unknown>, defaults: string[]): Record<string, unknown> {
  const own = Array.isArray(body.alertChannels) ? (body.alertChannels as string[]) : [];
  const same = own.length === defaults.length && [...own].sort().every((c, i) => c === [...defaults].sort()[i]);
  const { alertChannels: _drop, ...rest } = body;
  return same ? rest : { ...body, alertChannels: own };
}

/**
 * References by logical id where the target is known to the project: activated alert
 * subscriptions become `alertChannels`, DNS snippet ids `setupSnippet` / `tearDownSnippet`.
 * Targets outside the project (not imported, or deactivated subscriptions, which `alertChannels`
 * cannot express) keep their raw API form.
 */
export function rewriteReferences(body: Record<string, unknown>, refs: RefIndex): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'alertChannelSubscriptions' && Array.isArray(value)) {
      const logical: string[] = [];
      const raw: unknown[] = [];
      for (const sub of value as Array<{ alertChannelId: number; activated: boolean }>) {
        const id = sub.activated ? refs.alertChannel(sub.alertChannelId) : undefined;
        if (id === undefined) raw.push(sub);
        else logical.push(id);
      }
      if (logical.length > 0) out.alertChannels = logical;
      if (raw.length > 0) out.alertChannelSubscriptions = raw;
    } else if (key === 'groupId' && typeof value === 'number') {
      const id = refs.checkGroup(value);
      if (id === undefined) out[key] = value;
      else out.group = id;
    } else if (key === 'triggerIncident' && value !== null && typeof value === 'object' && typeof (value as { serviceId?: unknown }).serviceId === 'string') {
      const { serviceId, ...rest } = value as { serviceId: string };
      const id = refs.service(serviceId);
      out[key] = id === undefined ? value : { service: id, ...rest };
    } else if (key === 'cards' && Array.isArray(value)) {
      // Status-page cards name their services by logical id (a definition has no other form).
      out[key] = value.map((card: { services?: Array<{ id: string }> }) => ({
        ...card,
        services: (card.services ?? []).map((s) => refs.service(s.id) ?? s.id),
      }));
    } else if (key === 'privateLocations' && Array.isArray(value)) {
      // Same field, both forms: ids of the project's locations, slugs of the others.
      out[key] = value.map((slug) => (typeof slug === 'string' ? (refs.privateLocation(slug) ?? slug) : slug));
    } else if ((key === 'setupSnippetId' || key === 'tearDownSnippetId') && typeof value === 'number') {
      const id = refs.snippet(value);
      if (id === undefined) out[key] = value;
      else out[key === 'setupSnippetId' ? 'setupSnippet' : 'tearDownSnippet'] = id;
    } else {
      out[key] = value;
    }
  }
  return out;
}
