import type { Kind } from '../schema/kinds.js';
import type { EnvNameAllocator } from './ids.js';
import { omitDefaults } from './omit.js';
import { IMPORT_KINDS } from './table.js';

/** A live resource as import reads it: the normalized API body (server-owned fields removed). */
export interface LiveResource {
  kind: Kind;
  /** The API's id (a variable's key). */
  remoteId: string | number;
  body: Record<string, unknown>;
}

/** Maps live ids of referenced resources to the logical ids they have (or get) in the project. */
export interface RefIndex {
  alertChannel(remoteId: number): string | undefined;
  snippet(remoteId: number): string | undefined;
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
  /** Server defaults of this kind, from the plan's table (fields equal to them are left out). */
  serverDefaults: Record<string, unknown>;
  /** The project's `defaults.check` for checks, `{}` otherwise. */
  projectDefaults: Record<string, unknown>;
  refs: RefIndex;
  envNames: EnvNameAllocator;
}

/** Converts one live resource into its definition document under the logical id `id`. */
export function toDefinition(live: LiveResource, id: string, ctx: ConvertContext): ImportedDoc {
  const spec = IMPORT_KINDS[live.kind];
  // Placeholders first: the paths of sensitive values are paths of the full body.
  const env: EnvPlaceholder[] = [];
  let body = structuredClone(live.body);
  for (const s of spec.sensitive(body)) {
    const value = getPath(body, s.path);
    const name = ctx.envNames.allocate(id, ...s.nameParts);
    env.push({ name, kind: live.kind, id, path: s.path.join('.'), ...(s.unreadable || typeof value !== 'string' ? {} : { value }) });
    setPath(body, s.path, `\${{ env.${name} }}`);
  }
  body = omitDefaults(body, ctx.serverDefaults, ctx.projectDefaults);
  body = rewriteReferences(body, ctx.refs);

  let script: ScriptOut | undefined;
  if (spec.scriptField && typeof body[spec.scriptField] === 'string' && body[spec.scriptField] !== '') {
    script = { field: spec.scriptField, content: body[spec.scriptField] as string };
  }

  const idField = live.kind === 'EnvironmentVariable' ? 'key' : 'id';
  const { name, key: _key, ...rest } = body;
  const doc: Record<string, unknown> = { kind: live.kind, [idField]: id };
  if (name !== undefined) doc.name = name;
  Object.assign(doc, rest);
  return { kind: live.kind, id, doc, script, env };
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

function getPath(obj: unknown, path: Array<string | number>): unknown {
  let cur = obj;
  for (const p of path) cur = (cur as Record<string | number, unknown> | undefined)?.[p];
  return cur;
}

function setPath(obj: Record<string, unknown>, path: Array<string | number>, value: unknown): void {
  let cur = obj as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  cur[path[path.length - 1]] = value;
}
