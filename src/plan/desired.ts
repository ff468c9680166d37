import { escape } from '../json/values.js';
import type { Definition } from '../config/types.js';
import { isCheckKind, isOwnedKind, type Kind } from '../schema/kinds.js';
import { kindSpec } from '../kinds/index.js';
import { isRecord, normalizeShape } from '../kinds/shape.js';
import { ownershipTag } from './ownership.js';
import { getAt, setAt } from '../json/pointer.js';
import type { RefMarker, SecretSource } from './types.js';

/** What a secret value is shown as, everywhere. */
export const SENSITIVE = '(sensitive)';

/** Turns a reference "Kind/logical-id" into the live API id, or a marker when its target is yet to be created. */
export type ResolveRef = (ref: string) => string | number | RefMarker;

/** A definition turned into the normalized API body mac would send. */
export interface Desired {
  /** The normalized body with the real secret values (never printed, never written to a plan). */
  body: Record<string, unknown>;
  /** The same body with every secret value replaced by "(sensitive)": what a plan holds. */
  masked: Record<string, unknown>;
  /** Where the secret values are in `body`, and where they came from. */
  secrets: SecretSource[];
  /** Fields of the definition that mac does not know and therefore neither sends nor compares. */
  dropped: string[];
  /** "Kind/id" of references that are markers (their targets are created first). */
  dependsOn: string[];
  /**
   * Pointers of the fields of `body` that the definition does not set (server defaults made
   * explicit), at every object level and inside array members (at their index in `body`).
   */
  defaulted: string[];
}

/** Whether a value is a RefMarker. */
export function isRefMarker(v: unknown): v is RefMarker {
  return isRecord(v) && typeof v.$ref === 'string' && Object.keys(v).length === 1;
}

// A secret is swapped for a token before normalization so that wherever sorting moves it, its
// new pointer can be found again afterwards. The token cannot occur in YAML or JSON text by chance.
const TOKEN = '\u0000mac-secret:';

/**
 * Builds the desired body of a definition: the spec with references resolved (alertChannels ->
 * alertChannelSubscriptions, setupSnippet -> setupSnippetId), the ownership tag on checks, then
 * normalized by the kind's shape.
 */
export function buildDesired(def: Definition, project: string, resolve: ResolveRef, slugs: ReadonlyMap<string, string> = new Map()): Desired {
  // addCheckRefs only replaces top-level fields, so a shallow copy keeps def.spec intact; the
  // secret tokens below are set deep inside, so a definition with secrets is copied deeply.
  const spec: Record<string, unknown> = def.secretPaths.length > 0 ? structuredClone(def.spec) : { ...def.spec };
  const secretValues: unknown[] = [];
  const envOf: Array<string | undefined> = [];
  for (const pointer of def.secretPaths) {
    const before = JSON.stringify(spec);
    setAt(spec, pointer, `${TOKEN}${secretValues.length}`);
    if (JSON.stringify(spec) === before) continue;
    secretValues.push(getAt(def.spec, pointer));
    envOf.push(def.envSources[pointer]);
  }
  const dependsOn = new Set<string>();
  const ref = (target: string) => {
    const id = resolve(target);
    if (isRefMarker(id)) dependsOn.add(target);
    return id;
  };
  if (isOwnedKind(def.kind)) addOwnershipTag(def, spec, project);
  if (isCheckKind(def.kind)) addCheckRefs(def, spec, ref, slugs, dependsOn, resolve);
  if (def.kind === 'StatusPage' && Array.isArray(spec.cards)) {
    spec.cards = (spec.cards as Array<Record<string, unknown>>).map((card, i) => ({
      ...card,
      services: (def.refs.cardServices?.[i] ?? []).map((id) => ({ id: ref(`StatusPageService/${id}`) })),
    }));
  }

  const shape = kindSpec(def.kind).shapeOf(spec);
  const { value, dropped } = normalizeShape(spec, shape);
  // `spec` holds what the definition sets plus what mac adds to it (ownership tag, references):
  // the fields it leaves out are the defaulted ones. Only creates and updates need them, so
  // they are found (by normalizing once more, tracking defaults) when first asked for.
  const findDefaulted = () => normalizeShape(spec, shape, { defaulted: true }).defaulted ?? [];
  const body = value;
  const secrets: SecretSource[] = [];
  const sensitive = kindSpec(def.kind).sensitive(body);
  const envValues = envReadValues(def);
  const hasMissing = def.missingEnv !== undefined && Object.keys(def.missingEnv).length > 0;
  // Without anything to mask the masked body is the body itself (neither is modified afterwards).
  if (secretValues.length === 0 && sensitive.length === 0 && envValues.size === 0 && !hasMissing) {
    return withLazyDefaulted({ body, masked: body, secrets, dropped, dependsOn: [...dependsOn].sort() }, findDefaulted);
  }
  const masked = structuredClone(value);
  const add = (path: string, env: string | undefined) => {
    if (secrets.some((s) => s.path === path)) return;
    const source: SecretSource = env === undefined ? { path } : { path, env };
    secrets.push(source);
  };
  walkStrings(value, '', (pointer, s) => {
    if (!s.startsWith(TOKEN)) return;
    const i = Number(s.slice(TOKEN.length));
    setAt(body, pointer, secretValues[i]);
    setAt(masked, pointer, SENSITIVE);
    add(pointer, envOf[i]);
  });
  // Credentials the API does return (webhook secrets, integration keys) and locked values are
  // compared, but a plan shows and stores them no more than secret values: apply recovers them the same way.
  // The variable a value came from is named only where the value sits in place: normalization
  // sorts sets (variables by key), so a pointer of the body may name another item of the spec.
  const inPlace = (pointer: string) => (getAt(def.spec, pointer) === getAt(body, pointer) ? def.envSources[pointer] : undefined);
  for (const pointer of sensitive) {
    setAt(masked, pointer, SENSITIVE);
    add(pointer, inPlace(pointer));
  }
  // Every value read from the environment is masked wherever it lands (sorting may move it):
  // environment variables are how people bring sensitive values in.
  if (envValues.size > 0) {
    walkStrings(body, '', (pointer, s) => {
      if (!envValues.has(s)) return;
      setAt(masked, pointer, SENSITIVE);
      // Apply reads the variable again only where the value is that variable in place; a value
      // that moved, or another field that happens to be equal, comes back from the planned files.
      add(pointer, inPlace(pointer));
    });
  }
  // A masked value whose variable is not set still holds its `${{ env.NAME }}` text (the loader
  // warned): the plan says so, and apply refuses to write it.
  if (hasMissing) {
    walkStrings(body, '', (pointer, s) => {
      const names = unsetNames(s);
      if (names.length === 0) return;
      setAt(masked, pointer, notSet(names));
      add(pointer, undefined);
      const source = secrets.find((x) => x.path === pointer)!;
      source.missing = names;
    });
  }
  return withLazyDefaulted({ body, masked, secrets, dropped, dependsOn: [...dependsOn].sort() }, findDefaulted);
}

/** Attaches `defaulted`, found on its first read and kept. */
function withLazyDefaulted(d: Omit<Desired, 'defaulted'>, find: () => string[]): Desired {
  let list: string[] | undefined;
  return Object.defineProperty(d, 'defaulted', { enumerable: true, get: () => (list ??= find()) }) as Desired;
}

/** How a masked value whose environment variable is not set is shown. */
export function notSet(names: readonly string[]): string {
  return `(sensitive, not set: ${names.join(', ')})`;
}

/** The environment variables a value still names (left as text because they are not set). */
export function unsetNames(s: string): string[] {
  if (!s.includes('${{')) return [];
  return [...new Set([...s.matchAll(/\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((m) => m[1]))];
}

/**
 * The values of a definition read from the environment, each with the variable it is exactly
 * (undefined when it is built from more than the variable). Empty values are left out: there is
 * nothing to hide in them, and masking "" would hide every empty field.
 */
function envReadValues(def: Definition): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const pointer of def.envPaths ?? []) {
    const v = getAt(def.spec, pointer);
    if (typeof v !== 'string' || v === '' || v.includes('${{')) continue;
    const env = def.envSources[pointer];
    out.set(v, out.has(v) && out.get(v) !== env ? undefined : env);
  }
  return out;
}

function addOwnershipTag(def: Definition, spec: Record<string, unknown>, project: string): void {
  const tags = Array.isArray(spec.tags) ? spec.tags.filter((t) => typeof t === 'string') : [];
  const own = ownershipTag(project, def.id);
  spec.tags = tags.includes(own) ? tags : [...tags, own];
}

function addCheckRefs(
  def: Definition,
  spec: Record<string, unknown>,
  ref: (target: string) => unknown,
  slugs: ReadonlyMap<string, string>,
  dependsOn: Set<string>,
  resolve: ResolveRef,
): void {
  if (def.refs.group !== undefined) spec.groupId = ref(`CheckGroup/${def.refs.group}`);
  if (def.refs.incidentService !== undefined && isRecord(spec.triggerIncident)) {
    const { service: _service, ...rest } = spec.triggerIncident;
    spec.triggerIncident = { ...rest, serviceId: ref(`StatusPageService/${def.refs.incidentService}`) };
  }
  // A private location is named by its slug, which its definition holds: no API id is needed,
  // but a location still to be created must be created before the check.
  if (def.refs.privateLocations !== undefined) {
    spec.privateLocations = def.refs.privateLocations.map((id) => {
      const slug = slugs.get(id);
      if (slug === undefined) return id;
      if (isRefMarker(resolve(`PrivateLocation/${id}`))) dependsOn.add(`PrivateLocation/${id}`);
      return slug;
    });
  }
  if (def.refs.alertChannels !== undefined) {
    const raw = Array.isArray(spec.alertChannelSubscriptions) ? spec.alertChannelSubscriptions : [];
    spec.alertChannelSubscriptions = [
      ...raw,
      ...def.refs.alertChannels.map((id) => ({ alertChannelId: ref(`AlertChannel/${id}`), activated: true })),
    ];
  }
  if (def.refs.setupSnippet !== undefined) spec.setupSnippetId = ref(`Snippet/${def.refs.setupSnippet}`);
  if (def.refs.tearDownSnippet !== undefined) spec.tearDownSnippetId = ref(`Snippet/${def.refs.tearDownSnippet}`);
}

function walkStrings(v: unknown, at: string, visit: (pointer: string, s: string) => void): void {
  if (typeof v === 'string') visit(at, v);
  else if (Array.isArray(v)) v.forEach((x, i) => walkStrings(x, `${at}/${i}`, visit));
  else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walkStrings(x, `${at}/${escape(k)}`, visit);
}

/** Logical id -> slugName of the project's present PrivateLocation definitions (check bodies name locations by slug). */
export function privateLocationSlugs(definitions: readonly Definition[]): Map<string, string> {
  return new Map(
    definitions.filter((d) => d.kind === 'PrivateLocation' && d.state === 'present' && typeof d.spec.slugName === 'string').map((d) => [d.id, d.spec.slugName as string]),
  );
}

/** The logical reference "Kind/id" of a definition. */
export function refOf(kind: Kind, id: string): string {
  return `${kind}/${id}`;
}

/** The real values of a definition's secrets, keyed by their pointers in the desired body (for apply). */
export function secretValues(def: Definition, project: string): Map<string, unknown> {
  const desired = buildDesired(def, project, (ref) => ({ $ref: ref }));
  return new Map(desired.secrets.map((s) => [s.path, getAt(desired.body, s.path)]));
}

/**
 * The desired bodies of definitions with their real secret values, by "Kind/id" (references
 * left as markers: secrets never sit in them): where apply recovers what a plan left out.
 */
export function desiredBodies(definitions: readonly Definition[], project: string): Map<string, Record<string, unknown>> {
  const slugs = privateLocationSlugs(definitions);
  return new Map(
    definitions.map((d) => {
      const desired = buildDesired(d, project, (ref) => ({ $ref: ref }), slugs);
      // A value whose variable is not set is no value: recovering it must fail, never yield `${{ env.NAME }}`.
      for (const s of desired.secrets) if (s.missing) removeAt(desired.body, s.path);
      return [refOf(d.kind, d.id), desired.body];
    }),
  );
}

function removeAt(root: Record<string, unknown>, pointer: string): void {
  const i = pointer.lastIndexOf('/');
  const parent = getAt(root, pointer.slice(0, i));
  const last = pointer.slice(i + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  if (Array.isArray(parent)) parent[Number(last)] = undefined;
  else if (isRecord(parent)) delete parent[last];
}
