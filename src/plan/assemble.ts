import type { Definition, LoadedProject } from '../config/types.js';
import { isCheckKind, isOwnedKind, KINDS, type Kind } from '../schema/kinds.js';
import { compareObjects, createPatch, fingerprintOf, normalizeLive, unmanagedFields } from './compare.js';
import { buildDesired, notSet, privateLocationSlugs, refOf, type ResolveRef } from './desired.js';
import type { LiveState } from './fetch.js';
import { kindSpec } from '../kinds/index.js';
import { matchKind, type Candidate, type MatchContext, type Pair } from './match.js';
import type { Ownership } from './record.js';
import { rewriteSecretOps, secretNotes } from './secrets.js';
import { defaultLabel, type MemberLabel } from './sets.js';
import { isRecord } from '../json/values.js';
import { isWithin } from '../json/pointer.js';
import { PLAN_VERSION, type ChangedSince, type OrphanedResource, type Plan, type PlannedChange } from './types.js';

/** Everything a plan is computed from; assembling is pure (no I/O). */
export interface PlanInput {
  project: LoadedProject;
  live: LiveState;
  apiUrl: string;
  /** Delete checks that carry this project's tag and are no longer defined. */
  prune: boolean;
  /** Write every secret value again: resources with secrets become updates (values cannot be read back to compare). */
  rewriteSecrets?: boolean;
  /**
   * Files changed since a git ref (relative to the project dir). The changes of their
   * definitions are marked `inChangedFiles`; with `only`, the plan is narrowed to them.
   */
  changedSince?: { ref: string; files: string[]; only?: boolean };
  git?: { commit?: string; branch?: string };
  now?: Date;
  /** The ownership records of the account (kinds without tags); absent = none (nothing of those kinds is orphaned). */
  ownership?: Ownership;
}

/**
 * The kinds a plan must read live: those defined, every tagged kind (checks, check groups) and
 * every kind the project's ownership record lists, since owned objects that are no longer
 * defined are reported (orphaned) or pruned. The check kinds share one list.
 */
export function kindsToFetch(definitions: Definition[], ownership?: Ownership): Kind[] {
  const kinds = new Set<Kind>(definitions.map((d) => d.kind));
  for (const k of KINDS) if (isOwnedKind(k)) kinds.add(k);
  for (const [k, ids] of ownership?.own ?? []) if (ids.size > 0) kinds.add(k);
  return KINDS.filter((k) => kinds.has(k));
}

/** Compares definitions with the live state and assembles the plan document. */
export function assemblePlan(input: PlanInput): Plan {
  const steps = assembleSteps(input, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * assemblePlan in slices of about `every` resources, the event loop free between them (`mac
 * plan` assembles tens of thousands of resources; meanwhile timers, signals and the answers of
 * requests still under way are taken). The plan is the same: the same steps run in the same order.
 */
export async function assemblePlanYielding(input: PlanInput, every = ASSEMBLY_SLICE): Promise<Plan> {
  const steps = assembleSteps(input, every);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Resources assembled between two turns of the event loop (a few milliseconds of work). */
export const ASSEMBLY_SLICE = 250;

/** The steps of assemblePlan; yields (nothing) after every `every` resources handled. */
function* assembleSteps(input: PlanInput, every: number): Generator<void, Plan, void> {
  let handled = 0;
  const slice = () => ++handled % every === 0;
  const project = input.project.config.project;
  const ids = new Map<string, string | number>();
  const resolve: ResolveRef = (ref) => ids.get(ref) ?? { $ref: ref };
  // Subscriptions hold API ids; the plan names each subscribed channel by its logical id.
  const channels = new Map<string | number, string>();
  const labelOf: MemberLabel = (pointer, key) => (pointer === '/alertChannelSubscriptions' && (typeof key === 'string' || typeof key === 'number') ? channels.get(key) : undefined);
  const warnings: string[] = [...(input.ownership?.warnings ?? [])];
  const present: PlannedChange[] = [];
  const deletes: PlannedChange[] = [];
  const orphaned: OrphanedResource[] = [];
  const byRef = new Map<string, PlannedChange>();
  const context = matchContext(input);
  const slugs = privateLocationSlugs(input.project.definitions);

  // KINDS lists referenced kinds first, so a reference's target is matched before its users.
  for (const kind of KINDS) {
    const defs = input.project.definitions.filter((d) => d.kind === kind);
    const live = input.live.get(kind) ?? [];
    if (defs.length === 0 && !input.live.has(kind)) continue;
    const candidates: Candidate[] = [];
    for (const def of defs) {
      candidates.push({ def, desired: buildDesired(def, project, resolve, slugs) });
      if (slice()) yield;
    }
    const matched = matchKind(kind, project, candidates, live, context);
    warnings.push(...matched.warnings);
    if (candidates.length > 0) yield;
    for (const pair of matched.pairs) {
      if (slice()) yield;
      if (pair.live !== undefined && pair.def.state === 'present') {
        const remoteId = kindSpec(kind).remoteId(pair.live);
        ids.set(refOf(kind, pair.def.id), remoteId);
        if (kind === 'AlertChannel') channels.set(remoteId, pair.def.id);
      }
      const change = planPair(kind, pair, input.rewriteSecrets === true, labelOf);
      byRef.set(refOf(kind, pair.def.id), change);
      (change.action === 'delete' ? deletes : present).push(change);
    }
    // What the project owns (its tag, or its ownership record) and no longer defines. docs/plan.md.
    for (const { id, live: l } of matched.unclaimed) {
      if (input.prune) deletes.push(pruneChange(kind, id, l));
      else orphaned.push(orphanOf(kind, id, l));
    }
  }

  const scoped = scope([...present, ...deletes.reverse()], byRef, input.changedSince);
  const changes: PlannedChange[] = [];
  for (const change of scoped.changes) {
    changes.push(contractOrder(change));
    if (slice()) yield;
  }
  warnings.push(...missingWarnings(changes));
  const summary = { create: 0, update: 0, delete: 0, noop: 0, orphaned: orphaned.length };
  for (const c of changes) summary[c.action]++;
  return {
    ...planHeader(input, project),
    summary,
    changes,
    ...(orphaned.length > 0 ? { orphaned } : {}),
    dir: input.project.dir,
    ...(scoped.changedSince ? { changedSince: scoped.changedSince } : {}),
    warnings,
  };
}

/** The fields every plan starts with, in the plan JSON's order: `mac plan`'s and `mac destroy`'s. */
export function planHeader(input: Pick<PlanInput, 'now' | 'apiUrl' | 'git'>, project: string): Pick<Plan, 'version' | 'project' | 'createdAt' | 'apiUrl' | 'git'> {
  return {
    version: PLAN_VERSION,
    project,
    createdAt: (input.now ?? new Date()).toISOString(),
    apiUrl: input.apiUrl,
    ...(input.git ? { git: input.git } : {}),
  };
}

function planPair(kind: Kind, pair: Pair, rewriteSecrets: boolean, labelOf: MemberLabel): PlannedChange {
  const spec = kindSpec(kind);
  const { def, desired, live } = pair;
  const base = { kind, id: def.id, file: def.file, line: def.line, dependsOn: [] as string[] };
  if (def.state === 'absent') {
    if (live === undefined) return { ...base, action: 'noop', patch: [], notes: ['marked absent and already gone'] };
    const liveN = normalizeLive(kind, live);
    return { ...base, action: 'delete', name: spec.displayName(liveN), remoteId: spec.remoteId(live), patch: [], liveFingerprint: fingerprintOf(liveN) };
  }
  const notes = [...(pair.notes ?? []), ...spec.notes(desired.body), ...secretNotes(kind, desired.body, rewriteSecrets && live !== undefined)];
  const ignored = spec.ignored ?? {};
  for (const pointer of desired.dropped) {
    const reason = ignored[pointer.slice(1)];
    notes.push(reason ? `${pointer.slice(1)}: ${reason}` : `${pointer.slice(1)}: unknown to mac, neither sent nor compared`);
  }
  const writeBody = { desired: desired.masked, ...(desired.secrets.length > 0 ? { secrets: desired.secrets } : {}) };
  // From the masked body: a name read from the environment is shown no more than any env value.
  const name = spec.displayName(desired.masked);
  if (live === undefined) {
    const defaulted = desired.defaulted.length > 0 ? { defaulted: desired.defaulted } : {};
    const labels = referenceLabels(desired.masked, labelOf);
    return { ...base, action: 'create', name, patch: createPatch(kind, desired.masked), dependsOn: desired.dependsOn, ...writeBody, ...defaulted, ...labels, ...withNotes(notes) };
  }
  const liveN = normalizeLive(kind, live);
  for (const field of unmanagedFields(kind, desired.body, liveN)) {
    notes.push(`${field}: not set in the definition, so not managed: an update keeps the live value (${kind} updates merge and ${field} has no default); set it to change it`);
  }
  const missing = desired.secrets.filter((s) => s.missing);
  const { patch } = compareObjects(kind, desired.body, liveN, desired.secrets.map((s) => s.path), { labelOf, missing: missing.map((s) => s.path) });
  for (const s of missing) notes.push(`${s.path.slice(1)}: ${notSet(s.missing!)}: not compared; mac apply refuses until ${s.missing!.join(', ')} ${s.missing!.length > 1 ? 'are' : 'is'} set`);
  if (rewriteSecrets) patch.push(...rewriteSecretOps(kind, desired.body, liveN, patch));
  const common = { ...base, name, remoteId: spec.remoteId(live), liveFingerprint: fingerprintOf(liveN), ...withNotes(notes) };
  if (patch.length === 0) return { ...common, action: 'noop', patch };
  // Server defaults inside the values an update adds (a new assertion's `regex: ""`, a new
  // subscription's `activated`): the definition never wrote them, so renderers count them.
  const inAdded = desired.defaulted.filter((d) => patch.some((op) => 'value' in op && d !== op.path && isWithin(d, op.path)));
  const defaulted = inAdded.length > 0 ? { defaulted: inAdded } : {};
  return { ...common, action: 'update', patch, dependsOn: desired.dependsOn, ...writeBody, ...defaulted };
}

/**
 * A create's subscriptions hold API ids (or markers): `labels` names each subscribed channel by
 * its logical id, by the member's pointer in `desired`, for renderers. Updates name them on
 * their set operations (`label`).
 */
function referenceLabels(desired: Record<string, unknown>, labelOf: MemberLabel): { labels?: Record<string, string> } {
  const subs = desired.alertChannelSubscriptions;
  if (!Array.isArray(subs) || subs.length === 0) return {};
  const labels: Record<string, string> = {};
  subs.forEach((s, i) => {
    const key = isRecord(s) ? s.alertChannelId : undefined;
    labels[`/alertChannelSubscriptions/${i}`] = labelOf('/alertChannelSubscriptions', key) ?? defaultLabel(key);
  });
  return { labels };
}

/** One warning per change whose masked values wait for unset environment variables. */
function missingWarnings(changes: readonly PlannedChange[]): string[] {
  return changes.flatMap((c) => {
    const missing = (c.secrets ?? []).filter((s) => s.missing);
    if (missing.length === 0 || c.action === 'delete') return [];
    const names = [...new Set(missing.flatMap((s) => s.missing!))];
    const where = missing.map((s) => s.path.slice(1)).join(', ');
    return [`${c.kind}/${c.id}: ${where} ${notSet(names)}: mac apply refuses until ${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} set`];
  });
}

function withNotes(notes: string[]): { notes?: string[] } {
  return notes.length > 0 ? { notes } : {};
}

/** What matching needs across kinds: every live check and the project's check definitions. */
export function matchContext(input: Pick<PlanInput, 'project' | 'live' | 'ownership'>): MatchContext {
  const liveChecks = KINDS.filter(isCheckKind).flatMap((k) => input.live.get(k) ?? []);
  return { liveChecks, checkDefinitions: input.project.definitions.filter((d) => isCheckKind(d.kind)), ...(input.ownership ? { ownership: input.ownership } : {}) };
}

function orphanOf(kind: Kind, id: string, live: Record<string, unknown>): OrphanedResource {
  const spec = kindSpec(kind);
  const name = spec.displayName(normalizeLive(kind, live));
  return { kind, id, ...(name !== undefined ? { name } : {}), remoteId: spec.remoteId(live) };
}

function pruneChange(kind: Kind, id: string, live: Record<string, unknown>): PlannedChange {
  return liveDeleteChange(kind, id, live, 'no longer defined (--prune)');
}

/**
 * The delete of one live object that no present definition plans (a pruned check, everything of
 * `mac destroy`): named and fingerprinted from the live object, with the defining place when known.
 */
export function liveDeleteChange(kind: Kind, id: string, live: Record<string, unknown>, note: string, where: { file?: string; line?: number } = {}): PlannedChange {
  const spec = kindSpec(kind);
  const normalized = normalizeLive(kind, live);
  const name = spec.displayName(normalized);
  return {
    action: 'delete',
    kind,
    id,
    ...(name !== undefined ? { name } : {}),
    remoteId: spec.remoteId(live),
    ...where,
    patch: [],
    liveFingerprint: fingerprintOf(normalized),
    dependsOn: [],
    notes: [note],
  };
}

/**
 * With changedSince, marks the changes of definitions in the changed files (and those without
 * a file: a pruned check's definition is gone, so it counts as changed) as `inChangedFiles`;
 * the plan still covers everything. With `only`, keeps just those plus what they depend on (a
 * create of a target they reference) so the plan can still be applied, and counts what it left out.
 */
function scope(
  changes: PlannedChange[],
  byRef: Map<string, PlannedChange>,
  changedSince: PlanInput['changedSince'],
): { changes: PlannedChange[]; changedSince?: ChangedSince } {
  if (!changedSince) return { changes };
  const files = new Set(changedSince.files);
  const inChanged = changes.filter((c) => c.file === undefined || files.has(c.file));
  for (const c of inChanged) c.inChangedFiles = true;
  const recorded = { ref: changedSince.ref, files: changedSince.files };
  if (!changedSince.only) return { changes, changedSince: recorded };
  const keep = new Set(inChanged);
  const queue = [...keep];
  while (queue.length > 0) {
    for (const dep of queue.pop()!.dependsOn) {
      const target = byRef.get(dep);
      if (target && !keep.has(target)) {
        keep.add(target);
        target.notes = [...(target.notes ?? []), 'planned although its file did not change: a changed resource references it'];
        queue.push(target);
      }
    }
  }
  const leftOut = changes.filter((c) => !keep.has(c) && c.action !== 'noop').length;
  return { changes: changes.filter((c) => keep.has(c)), changedSince: { ...recorded, only: true, leftOut } };
}

const FIELD_ORDER: Array<keyof PlannedChange> = [
  'action', 'kind', 'id', 'name', 'remoteId', 'file', 'line', 'patch', 'liveFingerprint', 'dependsOn', 'desired', 'defaulted', 'labels', 'secrets', 'notes', 'inChangedFiles',
];

/** The same change with its keys in the contract's order (contract fields first), for readable plan files. */
function contractOrder(c: PlannedChange): PlannedChange {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if (c[k] !== undefined) out[k] = c[k];
  return out as unknown as PlannedChange;
}
