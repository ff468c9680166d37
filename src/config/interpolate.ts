/**
 * `${{ env.NAME }}` interpolation in every string value of a document, at load time. Only names
 * declared under `env:` in mac.config.yaml are read; mac's own connection settings and CI
 * credentials never are, whatever `env:` says.
 */
import type { Definition, Diagnostic, Position } from './types.js';
import { errorAt, pointer, type PathSegment, type SourceDocument } from './source.js';
import { KIND_SPECS, kindSpec } from '../kinds/index.js';
import type { Kind } from '../schema/kinds.js';
import { isWithin } from '../json/pointer.js';
import { CONFIG_FILE } from './discover.js';

const EXPRESSION = /\$\{\{\s*(.*?)\s*\}\}/g;
const ENV_REF = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;
const WHOLE_REF = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** What an environment variable name must look like (under `env:` and in `${{ env.NAME }}`). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names no definition may read, declared or not: the engine's own connection settings (`MAC_*`:
 * the API key, URL and account) and the credentials of a CI runner (`GITHUB_TOKEN`, the
 * Action's inputs `INPUT_*`, the runner's `ACTIONS_*` / `RUNNER_*`). Compared without case, as
 * Windows reads environment names.
 */
export function forbiddenEnvName(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (upper.startsWith('MAC_')) return "it is one of mac's own settings (MAC_*), which hold the API key and account";
  if (upper === 'GITHUB_TOKEN') return 'it is the CI token (GITHUB_TOKEN)';
  for (const prefix of ['ACTIONS_', 'INPUT_', 'RUNNER_']) {
    if (upper.startsWith(prefix)) return `it belongs to the CI runner (${prefix}*), which holds its credentials`;
  }
  return undefined;
}

/** Which environment variables a document may read: those declared under `env:` and not forbidden. */
export interface EnvPolicy {
  declared: ReadonlySet<string>;
  /**
   * Top-level fields of the document that identify it and may never read the environment (the
   * kind, the logical id, the names mac matches on). Default: those of a definition.
   */
  identityFields?: (data: Record<string, unknown>) => readonly string[];
}

/** Fields of every definition that say what it is and which live object it is. */
const IDENTITY_FIELDS = ['kind', 'id', 'key', 'previousNames', 'renamedFrom'] as const;

/**
 * The top-level fields of a definition that identify it: its kind, logical id, key, the names it
 * was known by, and the field the kind's live objects are matched on (a snippet's `name`, a
 * status page's `url`, ...). A value read from the environment is a value (a secret, a host):
 * in these fields it would be printed by every plan, `--out` file and error, and make the
 * object's identity depend on where mac runs.
 */
export function definitionIdentityFields(data: Record<string, unknown>): string[] {
  const fields: string[] = [...IDENTITY_FIELDS];
  const kind = typeof data.kind === 'string' ? data.kind : undefined;
  const spec = kind !== undefined && Object.hasOwn(KIND_SPECS, kind) ? kindSpec(kind as Kind) : undefined;
  const label = spec?.naturalKeyLabel;
  // A single field (`name`, `url`, `customUrl`, `slugName`); an alert channel's "type + address" is
  // its destination, which is often a secret webhook URL read from the environment on purpose.
  if (label !== undefined && /^\w+$/.test(label)) fields.push(label);
  return fields;
}

/** A value that names an environment variable that is not set (judged once the definition is known). */
export interface UnsetEnv {
  /** JSON pointer of the value in the document. */
  pointer: string;
  path: PathSegment[];
  at: Position;
  names: string[];
}

/** What interpolating one document found. */
export interface Interpolated {
  /** JSON pointer -> NAME, for the values that are exactly one reference (set or not). */
  envSources: Record<string, string>;
  /** Pointers of every value that holds a value read from the environment, in part or whole. */
  envPaths: string[];
  /** Values that reference a declared but unset variable; they keep their `${{ env.NAME }}` text. */
  unset: UnsetEnv[];
}

/**
 * Replaces every `${{ env.NAME }}` in the string values of `source.data` (in place). A name that
 * is not declared, a forbidden name or another expression is a diagnostic at the value; an unset
 * name is returned in `unset` (an error or a warning depending on where it lands, see
 * `judgeUnsetEnv`).
 */
export function interpolateEnv(
  source: SourceDocument,
  env: Record<string, string | undefined>,
  policy: EnvPolicy,
  diagnostics: Diagnostic[],
): Interpolated {
  const out: Interpolated = { envSources: {}, envPaths: [], unset: [] };
  const data = source.data;
  const identity = new Set(data !== null && typeof data === 'object' && !Array.isArray(data) ? (policy.identityFields ?? definitionIdentityFields)(data as Record<string, unknown>) : []);
  // One shared path stack: most documents have no reference, so paths are copied only on a hit.
  const path: PathSegment[] = [];
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return value.includes('${{') ? replace(value, [...path]) : value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        value[i] = visit(value[i]);
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        path.push(key);
        record[key] = visit(record[key]);
        path.pop();
      }
    }
    return value;
  };
  const replace = (text: string, path: PathSegment[]): string => {
    const at = pointer(path);
    const whole = WHOLE_REF.exec(text);
    if (whole) out.envSources[at] = whole[1];
    const unset: string[] = [];
    let read = false;
    const result = text.replace(EXPRESSION, (match, expression: string) => {
      const ref = ENV_REF.exec(expression);
      if (!ref) {
        diagnostics.push(errorAt(source.locate(path), path, `unsupported expression "${match}"`, 'only ${{ env.NAME }} is supported'));
        return match;
      }
      const name = ref[1];
      const field = path[0];
      if (typeof field === 'string' && identity.has(field)) {
        // Refused before the value is read: it is never resolved, so never printed.
        diagnostics.push(
          errorAt(
            source.locate(path),
            path,
            `"${field}" cannot read the environment (\${{ env.${name} }}): it identifies the ${field === 'kind' ? 'definition' : 'resource'}, and plans, --out files and errors print it in clear`,
            `write "${field}" as text; only value fields (a variable's value, a header, a host, a message) may read environment variables`,
          ),
        );
        return match;
      }
      const forbidden = forbiddenEnvName(name);
      if (forbidden !== undefined) {
        diagnostics.push(
          errorAt(source.locate(path), path, `environment variable ${name} is never readable by definitions: ${forbidden}`, 'pass the value through a variable of your own, declared under env: in mac.config.yaml'),
        );
        return match;
      }
      if (!policy.declared.has(name)) {
        diagnostics.push(
          errorAt(source.locate(path), path, `environment variable ${name} is not declared under env: in ${CONFIG_FILE}`, `add ${name} under env: in ${CONFIG_FILE}`),
        );
        return match;
      }
      // Own properties only: a declared `constructor` or `toString` is unset, never Object's own.
      const resolved = Object.hasOwn(env, name) ? env[name] : undefined;
      if (resolved === undefined) {
        unset.push(name);
        return match;
      }
      read = true;
      return resolved;
    });
    if (read || unset.length > 0) out.envPaths.push(at);
    if (unset.length > 0) out.unset.push({ pointer: at, path, at: source.locate(path), names: [...new Set(unset)] });
    return result;
  };
  source.data = visit(source.data);
  return out;
}

/**
 * Judges the unset variables of a document: behind a value that is only ever written (a secret,
 * a credential, a locked value) it is a warning, since validate, plan and test never need the
 * value, and apply refuses until it is set; behind any other value it is an error. Returns the
 * masked pointers that wait for a variable, with the variables' names.
 */
export function judgeUnsetEnv(unset: readonly UnsetEnv[], definition: Definition | undefined, diagnostics: Diagnostic[]): Record<string, string[]> {
  const missing: Record<string, string[]> = {};
  // Nearly every document reads no unset variable: its masked pointers are not worked out then.
  if (unset.length === 0) return missing;
  const masked = definition ? maskedPointers(definition) : [];
  for (const u of unset) {
    const names = u.names.join(', ');
    const verb = u.names.length > 1 ? 'are' : 'is';
    if (definition?.state === 'absent') {
      // A tombstone deletes the resource: none of its values is ever sent.
      diagnostics.push({ ...errorAt(u.at, u.path, `environment variable ${names} ${verb} not set (not needed: the resource is marked absent)`), severity: 'warning' });
    } else if (definition && masked.some((m) => isWithin(u.pointer, m))) {
      missing[u.pointer] = u.names;
      diagnostics.push({
        ...errorAt(u.at, u.path, `environment variable ${names} ${verb} not set: the value is masked and only written, so validate, plan and test go on; apply refuses until it is set`, `set ${names} where mac apply runs`),
        severity: 'warning',
      });
    } else {
      diagnostics.push(errorAt(u.at, u.path, `environment variable ${names} ${verb} not set`, `set ${names} before running mac`));
    }
  }
  return missing;
}

/**
 * Pointers (into a definition's spec) of the values a plan masks and never needs to read: secret
 * values, credentials and locked values of the kind's table.
 */
export function maskedPointers(definition: Pick<Definition, 'kind' | 'spec' | 'secretPaths'>): string[] {
  const spec = kindSpec(definition.kind);
  return [...new Set([...definition.secretPaths, ...spec.unreadableSecrets(definition.spec), ...spec.sensitive(definition.spec)])];
}
