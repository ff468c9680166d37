import { escape } from './json.js';
import type { Definition } from '../config/types.js';
import { isCheckKind, type Kind } from '../schema/kinds.js';
import { kindSpec } from './kinds/index.js';
import { isRecord, normalizeShape } from './kinds/shape.js';
import { ownershipTag } from './ownership.js';
import { getAt, setAt } from './pointer.js';
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
export function buildDesired(def: Definition, project: string, resolve: ResolveRef): Desired {
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
  if (isCheckKind(def.kind)) addCheckRefs(def, spec, project, ref);

  const shape = kindSpec(def.kind).shapeOf(spec);
  const { value, dropped } = normalizeShape(spec, shape);
  // `spec` holds what the definition sets plus what mac adds to it (ownership tag, references):
  // the fields it leaves out are the defaulted ones. Only creates and updates need them, so
  // they are found (by normalizing once more, tracking defaults) when first asked for.
  const findDefaulted = () => normalizeShape(spec, shape, { defaulted: true }).defaulted ?? [];
  const body = value;
  const secrets: SecretSource[] = [];
  const sensitive = kindSpec(def.kind).sensitive(body);
  // Without secrets or credentials the masked body is the body itself (neither is modified afterwards).
  if (secretValues.length === 0 && sensitive.length === 0) return withLazyDefaulted({ body, masked: body, secrets, dropped, dependsOn: [...dependsOn].sort() }, findDefaulted);
  const masked = structuredClone(value);
  walkStrings(value, '', (pointer, s) => {
    if (!s.startsWith(TOKEN)) return;
    const i = Number(s.slice(TOKEN.length));
    setAt(body, pointer, secretValues[i]);
    setAt(masked, pointer, SENSITIVE);
    secrets.push(envOf[i] === undefined ? { path: pointer } : { path: pointer, env: envOf[i] });
  });
  // Credentials the API does return (webhook secrets, integration keys) are compared, but a
  // plan shows and stores them no more than secret values: apply recovers them the same way.
  for (const pointer of sensitive) {
    if (secrets.some((s) => s.path === pointer)) continue;
    setAt(masked, pointer, SENSITIVE);
    const env = def.envSources[pointer];
    secrets.push(env === undefined ? { path: pointer } : { path: pointer, env });
  }
  return withLazyDefaulted({ body, masked, secrets, dropped, dependsOn: [...dependsOn].sort() }, findDefaulted);
}

/** Attaches `defaulted`, found on its first read and kept. */
function withLazyDefaulted(d: Omit<Desired, 'defaulted'>, find: () => string[]): Desired {
  let list: string[] | undefined;
  return Object.defineProperty(d, 'defaulted', { enumerable: true, get: () => (list ??= find()) }) as Desired;
}

function addCheckRefs(def: Definition, spec: Record<string, unknown>, project: string, ref: (target: string) => unknown): void {
  const tags = Array.isArray(spec.tags) ? spec.tags.filter((t) => typeof t === 'string') : [];
  const own = ownershipTag(project, def.id);
  spec.tags = tags.includes(own) ? tags : [...tags, own];
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
  return new Map(definitions.map((d) => [refOf(d.kind, d.id), buildDesired(d, project, (ref) => ({ $ref: ref })).body]));
}
