import type { Definition, LoadedProject } from '../config/types.js';
import { isCheckKind, KINDS, type Kind } from '../schema/kinds.js';
import { compareObjects, createPatch, fingerprint, fingerprintOf, normalizeLive, unmanagedFields } from './compare.js';
import { buildDesired, refOf, type ResolveRef } from './desired.js';
import type { LiveState } from './fetch.js';
import { kindSpec } from './kinds/index.js';
import { matchKind, type Pair } from './match.js';
import { ownedId } from './ownership.js';
import { rewriteSecretOps, secretNotes } from './secrets.js';
import { PLAN_VERSION, type ChangedSince, type Plan, type PlannedChange } from './types.js';

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
}

/** The kinds a plan must read live: those defined, plus every check kind when pruning. */
export function kindsToFetch(definitions: Definition[], prune: boolean): Kind[] {
  const kinds = new Set<Kind>(definitions.map((d) => d.kind));
  if (prune) for (const k of KINDS) if (isCheckKind(k)) kinds.add(k);
  return KINDS.filter((k) => kinds.has(k));
}

/** Compares definitions with the live state and assembles the plan document. */
export function assemblePlan(input: PlanInput): Plan {
  const project = input.project.config.project;
  const ids = new Map<string, string | number>();
  const resolve: ResolveRef = (ref) => ids.get(ref) ?? { $ref: ref };
  const warnings: string[] = [];
  const present: PlannedChange[] = [];
  const deletes: PlannedChange[] = [];
  const byRef = new Map<string, PlannedChange>();

  // KINDS lists referenced kinds first, so a reference's target is matched before its users.
  for (const kind of KINDS) {
    const defs = input.project.definitions.filter((d) => d.kind === kind);
    const live = input.live.get(kind) ?? [];
    if (defs.length === 0 && !input.live.has(kind)) continue;
    const candidates = defs.map((def) => ({ def, desired: buildDesired(def, project, resolve) }));
    const matched = matchKind(kind, project, candidates, live);
    warnings.push(...matched.warnings);
    for (const pair of matched.pairs) {
      if (pair.live !== undefined && pair.def.state === 'present') ids.set(refOf(kind, pair.def.id), kindSpec(kind).remoteId(pair.live));
      const change = planPair(kind, pair, input.rewriteSecrets === true);
      byRef.set(refOf(kind, pair.def.id), change);
      (change.action === 'delete' ? deletes : present).push(change);
    }
    if (isCheckKind(kind)) {
      for (const l of matched.unclaimed) {
        const id = ownedId(project, l.tags)!;
        if (input.prune) deletes.push(pruneChange(kind, id, l));
        else warnings.push(`${kind} "${String(l.name)}" (${String(l.id)}) carries the tag mac:${project}/${id} but is no longer defined; \`mac plan --prune\` deletes it`);
      }
    }
  }

  const scoped = scope([...present, ...deletes.reverse()], byRef, input.changedSince);
  const changes = scoped.changes.map(contractOrder);
  const summary = { create: 0, update: 0, delete: 0, noop: 0 };
  for (const c of changes) summary[c.action]++;
  return {
    version: PLAN_VERSION,
    project,
    createdAt: (input.now ?? new Date()).toISOString(),
    apiUrl: input.apiUrl,
    ...(input.git ? { git: input.git } : {}),
    summary,
    changes,
    dir: input.project.dir,
    ...(scoped.changedSince ? { changedSince: scoped.changedSince } : {}),
    warnings,
  };
}

function planPair(kind: Kind, pair: Pair, rewriteSecrets: boolean): PlannedChange {
  const spec = kindSpec(kind);
  const { def, desired, live } = pair;
  const base = { kind, id: def.id, file: def.file, line: def.line, dependsOn: [] as string[] };
  if (def.state === 'absent') {
    if (live === undefined) return { ...base, action: 'noop', patch: [], notes: ['marked absent and already gone'] };
    const liveN = normalizeLive(kind, live);
    return { ...base, action: 'delete', name: spec.displayName(liveN), remoteId: spec.remoteId(live), patch: [], liveFingerprint: fingerprintOf(liveN) };
  }
  const notes = [...spec.notes(desired.body), ...secretNotes(kind, desired.body, rewriteSecrets && live !== undefined)];
  const ignored = spec.ignored ?? {};
  for (const pointer of desired.dropped) {
    const reason = ignored[pointer.slice(1)];
    notes.push(reason ? `${pointer.slice(1)}: ${reason}` : `${pointer.slice(1)}: unknown to mac, neither sent nor compared`);
  }
  const writeBody = { desired: desired.masked, ...(desired.secrets.length > 0 ? { secrets: desired.secrets } : {}) };
  const name = spec.displayName(desired.body);
  if (live === undefined) {
    const defaulted = desired.defaulted.length > 0 ? { defaulted: desired.defaulted } : {};
    return { ...base, action: 'create', name, patch: createPatch(kind, desired.masked), dependsOn: desired.dependsOn, ...writeBody, ...defaulted, ...withNotes(notes) };
  }
  const liveN = normalizeLive(kind, live);
  for (const field of unmanagedFields(kind, desired.body, liveN)) {
    notes.push(`${field}: not set in the definition, so not managed: an update keeps the live value (${kind} updates merge and ${field} has no default); set it to change it`);
  }
  const { patch } = compareObjects(kind, desired.body, liveN, desired.secrets.map((s) => s.path));
  if (rewriteSecrets) patch.push(...rewriteSecretOps(kind, desired.body, liveN, patch));
  const common = { ...base, name, remoteId: spec.remoteId(live), liveFingerprint: fingerprintOf(liveN), ...withNotes(notes) };
  if (patch.length === 0) return { ...common, action: 'noop', patch };
  return { ...common, action: 'update', patch, dependsOn: desired.dependsOn, ...writeBody };
}

function withNotes(notes: string[]): { notes?: string[] } {
  return notes.length > 0 ? { notes } : {};
}

function pruneChange(kind: Kind, id: string, live: Record<string, unknown>): PlannedChange {
  const spec = kindSpec(kind);
  return {
    action: 'delete',
    kind,
    id,
    name: spec.displayName(normalizeLive(kind, live)),
    remoteId: spec.remoteId(live),
    patch: [],
    liveFingerprint: fingerprint(kind, live),
    dependsOn: [],
    notes: ['no longer defined (--prune)'],
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
  'action', 'kind', 'id', 'name', 'remoteId', 'file', 'line', 'patch', 'liveFingerprint', 'dependsOn', 'desired', 'defaulted', 'secrets', 'notes', 'inChangedFiles',
];

/** The same change with its keys in the contract's order (contract fields first), for readable plan files. */
function contractOrder(c: PlannedChange): PlannedChange {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if (c[k] !== undefined) out[k] = c[k];
  return out as unknown as PlannedChange;
}
