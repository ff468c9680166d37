import type { Definition } from '../config/types.js';
import { isCheckKind, isOwnedKind, type Kind } from '../schema/kinds.js';
import { normalizeLive } from './compare.js';
import type { Desired } from './desired.js';
import { kindSpec } from '../kinds/index.js';
import { ownedId, ownerProject } from './ownership.js';
import type { Ownership } from './record.js';

/** A definition with its desired body, ready to be matched. */
export interface Candidate {
  def: Definition;
  desired: Desired;
}

/** A definition and the live object it stands for, if one exists. */
export interface Pair extends Candidate {
  live?: Record<string, unknown>;
  /** How the live object was found when not by the definition's own identity (renamedFrom, a moved channel). */
  notes?: string[];
}

type Live = Record<string, unknown>;

/** What matching one kind may need of the others: alert channels are followed through the checks subscribed to them. */
export interface MatchContext {
  /** Every live check of the account (all check kinds). */
  liveChecks: readonly Live[];
  /** The project's check definitions. */
  checkDefinitions: readonly Definition[];
  /** The ownership records of the account (kinds without tags); absent = none read (imports). */
  ownership?: Ownership;
}

/** How the definitions of one kind matched the live objects of that kind. */
export interface KindMatch {
  pairs: Pair[];
  /**
   * Live objects the project owns (its tag, or its ownership record) that no definition claimed,
   * with the logical id they are owned under: the orphans of a plan, deleted by --prune and destroy.
   */
  unclaimed: Array<{ id: string; live: Live }>;
  warnings: string[];
}

/**
 * Matches definitions to live objects. Checks and check groups: by the ownership tag
 * `mac:<project>/<id>` (a same-named check without it is reported, never adopted). Other kinds:
 * first by the project's ownership record (logical id -> API id; the immutable fields of the
 * kind must agree), then by their natural key among the objects nothing claimed and no other
 * project records. When several live objects claim one natural key, the first in list order
 * (the oldest) wins.
 */
export function matchKind(kind: Kind, project: string, candidates: Candidate[], live: Live[], context?: MatchContext): KindMatch {
  const spec = kindSpec(kind);
  const warnings: string[] = [];
  const owned = isOwnedKind(kind);
  const identity = owned ? (l: Live) => ownedId(project, l.tags) : (l: Live) => spec.naturalKey?.(normalizeLive(kind, l));
  const byIdentity = new Map<string, Live>();
  for (const l of live) {
    const key = identity(l);
    if (key === undefined) continue;
    const first = byIdentity.get(key);
    if (first === undefined) byIdentity.set(key, l);
    else warnings.push(`${kind} ${describeKey(kind, key, project)}: ${kind} ${String(spec.remoteId(l))} has the same identity as ${String(spec.remoteId(first))}; mac manages ${String(spec.remoteId(first))} only`);
  }
  const recorded = !owned ? context?.ownership?.own.get(kind) : undefined;
  const foreign = !owned ? context?.ownership?.foreign.get(kind) : undefined;
  const liveById = new Map(live.map((l) => [String(spec.remoteId(l)), l]));
  const foreignOf = (l: Live) => foreign?.get(String(spec.remoteId(l)));
  // Which candidate took which live object, in order of precedence.
  const taken = new Map<Live, Candidate>();
  const found = new Map<Candidate, { live: Live; notes?: string[] }>();
  const claimed = new Set<Live>();
  const take = (c: Candidate, l: Live, notes?: string[]) => {
    taken.set(l, c);
    claimed.add(l);
    found.set(c, notes ? { live: l, notes } : { live: l });
  };
  // 1. The ownership record: the logical id names the live object, whatever its name became.
  if (recorded) {
    for (const c of candidates) {
      const remote = recorded.get(c.def.id);
      const l = remote === undefined ? undefined : liveById.get(remote);
      if (l === undefined || taken.has(l) || !sameImmutable(kind, c.desired.body, l)) continue;
      const key = spec.naturalKey?.(c.desired.body);
      const liveKey = identity(l);
      const moved = key !== undefined && liveKey !== undefined && key !== liveKey;
      take(c, l, moved && c.def.state === 'present' ? [`matched by its logical id (ownership record): the live ${kind} keeps its API id; its ${spec.naturalKeyLabel ?? 'identity'} changes`] : undefined);
    }
  }
  // 2. The natural key (or the tag), among the objects nothing claimed and no other project records.
  for (const c of candidates) {
    if (found.has(c)) continue;
    const key = owned ? c.def.id : spec.naturalKey?.(c.desired.body);
    const l = key === undefined ? undefined : byIdentity.get(key);
    if (l === undefined || taken.has(l)) continue;
    const other = foreignOf(l);
    if (other !== undefined) {
      warnings.push(`${kind}/${c.def.id} (${c.def.file}:${c.def.line}): the live ${kind} ${describeKey(kind, key!, project)} (${String(spec.remoteId(l))}) belongs to project "${other}"; mac will create a new one`);
      continue;
    }
    take(c, l);
  }
  // Keys some definition claims as its own: a previous name still in use by a definition never moves.
  const ownKeys = new Set(candidates.map((c) => (owned ? undefined : spec.naturalKey?.(c.desired.body))).filter((k) => k !== undefined));
  const pairs: Pair[] = candidates.map((c) => {
    const hit = found.get(c);
    if (hit) return { ...c, live: hit.live, ...(hit.notes ? { notes: hit.notes } : {}) };
    const key = owned ? c.def.id : spec.naturalKey?.(c.desired.body);
    if (key === undefined) {
      warnings.push(`${kind}/${c.def.id} (${c.def.file}:${c.def.line}): no ${spec.naturalKeyLabel ?? 'identity'} to match it by; it is planned as new`);
      return { ...c };
    }
    const previous = !owned ? previousNamed(c, byIdentity, claimed, ownKeys, foreignOf) : undefined;
    if (previous) {
      claimed.add(previous.live);
      return { ...c, live: previous.live, notes: [`renamed from "${previous.from}" (previousNames): the live ${kind} keeps its API id and history`] };
    }
    if (!owned) return { ...c };
    const renamed = renamedLive(c, byIdentity, claimed);
    const l = renamed?.live ?? adopted(kind, c, live, claimed, warnings);
    if (l !== undefined) claimed.add(l);
    if (l === undefined && c.def.state === 'present' && c.def.adopt === undefined) warnings.push(...lookAlikes(kind, project, c, live));
    if (l === undefined) return { ...c };
    return renamed ? { ...c, live: l, notes: [`renamed from ${renamed.from}: the live ${isCheckKind(kind) ? 'check' : 'object'} keeps its API id; its ownership tag becomes mac:${project}/${c.def.id}`] } : { ...c, live: l };
  });
  if (kind === 'AlertChannel' && context) warnings.push(...matchMovedChannels(project, pairs, live, claimed, context));
  const unclaimed: Array<{ id: string; live: Live }> = [];
  if (owned) {
    for (const l of live) {
      const id = identity(l);
      if (id !== undefined && !claimed.has(l) && byIdentity.get(id) === l) unclaimed.push({ id, live: l });
    }
  } else if (recorded) {
    const defined = new Set(candidates.map((c) => c.def.id));
    const listed = new Set<Live>();
    for (const [id, remote] of recorded) {
      const l = liveById.get(remote);
      if (l === undefined || claimed.has(l) || listed.has(l)) continue;
      listed.add(l);
      // A definition of that id took another object (a new key): the old one is named apart.
      unclaimed.push({ id: defined.has(id) ? `${id}@${remote}` : id, live: l });
    }
  }
  return { pairs, unclaimed, warnings };
}

/** Whether a definition's body and a live object agree on the fields the API never lets change (a record match cannot change them). */
function sameImmutable(kind: Kind, body: Record<string, unknown>, live: Live): boolean {
  const fields = kindSpec(kind).immutable ?? [];
  if (fields.length === 0) return true;
  const liveN = normalizeLive(kind, live);
  return fields.every((f) => body[f] === undefined || body[f] === liveN[f]);
}

/**
 * The live object a present definition (a status-page service) takes over through
 * `previousNames`: the first previous name that an unclaimed live object still has and that no
 * definition has as its own. Only used when no live object has the definition's own name.
 */
function previousNamed(
  c: Candidate,
  byIdentity: ReadonlyMap<string, Live>,
  claimed: ReadonlySet<Live>,
  ownKeys: ReadonlySet<string>,
  foreignOf: (l: Live) => string | undefined,
): { live: Live; from: string } | undefined {
  if (c.def.state !== 'present') return undefined;
  for (const from of c.def.previousNames ?? []) {
    const l = byIdentity.get(from);
    if (l !== undefined && !claimed.has(l) && !ownKeys.has(from) && foreignOf(l) === undefined) return { live: l, from };
  }
  return undefined;
}

/**
 * The live check a present definition takes over through `renamedFrom`: the first old id whose
 * tag a live check still carries (and that nothing claimed). Only used when no live check
 * carries the definition's own tag, so a half-applied rename never yields two matches.
 */
function renamedLive(c: Candidate, byIdentity: ReadonlyMap<string, Live>, claimed: ReadonlySet<Live>): { live: Live; from: string } | undefined {
  if (c.def.state !== 'present') return undefined;
  for (const from of c.def.renamedFrom ?? []) {
    const l = byIdentity.get(from);
    if (l !== undefined && !claimed.has(l)) return { live: l, from };
  }
  return undefined;
}

/**
 * An alert channel whose address changed has no live twin by type + address. It is matched to
 * its previous live channel L (an update of L's config, keeping L's id and subscriptions) when:
 * L has the same type and no definition claims it; every subscription of L is a check this
 * project owns (so the change reaches no one else's alerts); a check whose definition references
 * the channel by logical id is among them; no check definition names L by raw id; and the
 * pairing is one to one (the only such L for the definition, and the only definition for L).
 * Other unclaimed channels that only this project's checks subscribe to are reported: mac cannot
 * prove the project created them, so they are neither orphaned nor pruned.
 */
function matchMovedChannels(project: string, pairs: Pair[], live: readonly Live[], claimed: Set<Live>, context: MatchContext): string[] {
  const spec = kindSpec('AlertChannel');
  const ownedCheck = new Map<string, string>();
  for (const check of context.liveChecks) {
    const id = ownedId(project, check.tags);
    if (id !== undefined) ownedCheck.set(String(check.id), id);
  }
  const rawIds = new Set<string>();
  for (const d of context.checkDefinitions) {
    const subs = d.spec.alertChannelSubscriptions;
    if (Array.isArray(subs)) for (const s of subs) if (s && typeof s === 'object') rawIds.add(String((s as { alertChannelId?: unknown }).alertChannelId));
  }
  // Live channels subscribed only by this project's checks, with the logical ids of those checks.
  const exclusive = new Map<Live, Set<string>>();
  const foreign = context.ownership?.foreign.get('AlertChannel');
  const recorded = new Set(context.ownership?.own.get('AlertChannel')?.values() ?? []);
  for (const l of live) {
    const remote = String(spec.remoteId(l));
    // Channels another project records are never taken; those this project records are its orphans when unclaimed.
    if (claimed.has(l) || rawIds.has(remote) || foreign?.has(remote) || recorded.has(remote)) continue;
    const subs = Array.isArray(l.subscriptions) ? (l.subscriptions as Array<Record<string, unknown>>) : [];
    const owners = subs.map((s) => (s.checkId == null || s.groupId != null ? undefined : ownedCheck.get(String(s.checkId))));
    if (owners.length > 0 && owners.every((o) => o !== undefined)) exclusive.set(l, new Set(owners as string[]));
  }
  // For each unmatched channel definition: the channels its referencing checks are subscribed to.
  const candidatesOf = new Map<Pair, Live[]>();
  for (const pair of pairs) {
    if (pair.live !== undefined || pair.def.state !== 'present') continue;
    const users = new Set<string>();
    for (const d of context.checkDefinitions) {
      if (d.state !== 'present' || !d.refs.alertChannels?.includes(pair.def.id)) continue;
      users.add(d.id);
      for (const old of d.renamedFrom ?? []) users.add(old);
    }
    const found = [...exclusive].filter(([l, owners]) => l.type === pair.desired.body.type && [...owners].some((o) => users.has(o))).map(([l]) => l);
    if (found.length > 0) candidatesOf.set(pair, found);
  }
  const wanted = new Map<Live, number>();
  for (const found of candidatesOf.values()) for (const l of found) wanted.set(l, (wanted.get(l) ?? 0) + 1);
  for (const [pair, found] of candidatesOf) {
    if (found.length !== 1 || wanted.get(found[0]!) !== 1) continue;
    const l = found[0]!;
    pair.live = l;
    pair.notes = [
      `the address changed: matched to live channel ${String(spec.remoteId(l))}, which only this project's checks referencing ${pair.def.id} are subscribed to; it is updated in place (same id, same subscriptions), not re-created`,
    ];
    claimed.add(l);
  }
  const warnings: string[] = [];
  for (const [l] of exclusive) {
    if (claimed.has(l)) continue;
    const name = spec.displayName(normalizeLive('AlertChannel', l));
    warnings.push(
      `AlertChannel ${String(spec.remoteId(l))} (${String(l.type)}${name && name !== l.type ? ` ${name}` : ''}) matches no definition and only this project's checks are subscribed to it; mac cannot prove the project created it, so it is neither orphaned nor pruned: delete it in the app, or with a state: absent tombstone of its type and address`,
    );
  }
  return warnings;
}

/**
 * The live check a definition adopts by API id (`adopt`, written by `mac import`), when no check
 * carries its tag yet. A check owned by a project (this one under another id, or another one) is
 * never taken over: that is reported instead.
 */
function adopted(
  kind: Kind,
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
      const what = isCheckKind(kind) ? 'check' : kind;
      return `${kind}/${c.def.id}: a live ${what} named "${String(name)}" (${String(l.id)}) ${whose}; mac will create a new one. To manage the existing ${what} instead, adopt it with \`mac import\``;
    });
}

function describeKey(kind: Kind, key: string, project: string): string {
  return isOwnedKind(kind) ? `tagged mac:${project}/${key}` : `"${key}"`;
}
