import type { Definition } from '../config/types.js';
import { isCheckKind, type Kind } from '../schema/kinds.js';
import { normalizeLive } from './compare.js';
import type { Desired } from './desired.js';
import { kindSpec } from './kinds/index.js';
import { ownedId, ownerProject } from './ownership.js';

/** A definition with its desired body, ready to be matched. */
export interface Candidate {
  def: Definition;
  desired: Desired;
}

/** A definition and the live object it stands for, if one exists. */
export interface Pair extends Candidate {
  live?: Record<string, unknown>;
}

/** How the definitions of one kind matched the live objects of that kind. */
export interface KindMatch {
  pairs: Pair[];
  /** Live objects no definition claimed. */
  unclaimed: Record<string, unknown>[];
  warnings: string[];
}

/**
 * Matches definitions to live objects: checks by the ownership tag `mac:<project>/<id>` (a
 * same-named check without it is reported, never adopted), other kinds by their natural key.
 * When several live objects claim one identity, the first in list order (the oldest) wins.
 */
export function matchKind(kind: Kind, project: string, candidates: Candidate[], live: Record<string, unknown>[]): KindMatch {
  const spec = kindSpec(kind);
  const warnings: string[] = [];
  const identity = isCheckKind(kind)
    ? (l: Record<string, unknown>) => ownedId(project, l.tags)
    : (l: Record<string, unknown>) => spec.naturalKey?.(normalizeLive(kind, l));
  const byIdentity = new Map<string, Record<string, unknown>>();
  for (const l of live) {
    const key = identity(l);
    if (key === undefined) continue;
    const first = byIdentity.get(key);
    if (first === undefined) byIdentity.set(key, l);
    else warnings.push(`${kind} ${describeKey(kind, key, project)}: ${kind} ${String(spec.remoteId(l))} has the same identity as ${String(spec.remoteId(first))}; mac manages ${String(spec.remoteId(first))} only`);
  }
  const claimed = new Set<Record<string, unknown>>();
  const pairs: Pair[] = candidates.map((c) => {
    const key = isCheckKind(kind) ? c.def.id : spec.naturalKey?.(c.desired.body);
    if (key === undefined) {
      warnings.push(`${kind}/${c.def.id} (${c.def.file}:${c.def.line}): no ${spec.naturalKeyLabel ?? 'identity'} to match it by; it is planned as new`);
      return { ...c };
    }
    const l = byIdentity.get(key) ?? (isCheckKind(kind) ? adopted(kind, project, c, live, claimed, warnings) : undefined);
    if (l !== undefined) claimed.add(l);
    if (l === undefined && isCheckKind(kind) && c.def.state === 'present' && c.def.adopt === undefined) warnings.push(...lookAlikes(kind, project, c, live));
    return l === undefined ? { ...c } : { ...c, live: l };
  });
  return { pairs, unclaimed: live.filter((l) => !claimed.has(l) && identity(l) !== undefined && byIdentity.get(identity(l)!) === l), warnings };
}

/**
 * The live check a definition adopts by API id (`adopt`, written by `mac import`), when no check
 * carries its tag yet. A check owned by a project (this one under another id, or another one) is
 * never taken over: that is reported instead.
 */
function adopted(
  kind: Kind,
  project: string,
  c: Candidate,
  live: Record<string, unknown>[],
  claimed: Set<Record<string, unknown>>,
  warnings: string[],
): Record<string, unknown> | undefined {
  if (c.def.adopt === undefined) return undefined;
  const l = live.find((x) => String(kindSpec(kind).remoteId(x)) === c.def.adopt);
  const where = `${kind}/${c.def.id} (${c.def.file}:${c.def.line})`;
  if (l === undefined) {
    warnings.push(`${where}: adopts ${c.def.adopt}, which is not a live ${kind}; it is planned as new`);
    return undefined;
  }
  const owner = ownerProject(l.tags);
  if (owner !== undefined || claimed.has(l)) {
    warnings.push(`${where}: adopts ${c.def.adopt}, which is already managed${owner ? ` (tag of project "${owner}")` : ''}; it is planned as new`);
    return undefined;
  }
  return l;
}

function lookAlikes(kind: Kind, project: string, c: Candidate, live: Record<string, unknown>[]): string[] {
  const name = c.desired.body.name;
  return live
    .filter((l) => l.name === name && ownedId(project, l.tags) === undefined)
    .map((l) => {
      const owner = ownerProject(l.tags);
      const whose = owner ? `belongs to project "${owner}"` : `is not managed by mac`;
      return `${kind}/${c.def.id}: a live check named "${String(name)}" (${String(l.id)}) ${whose}; mac will create a new one. To manage the existing check instead, adopt it with \`mac import\``;
    });
}

function describeKey(kind: Kind, key: string, project: string): string {
  return isCheckKind(kind) ? `tagged mac:${project}/${key}` : `"${key}"`;
}
