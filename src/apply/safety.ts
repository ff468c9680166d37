import type { Plan, PlannedChange } from '../plan/types.js';
import { isCheckKind, isOwnedKind } from '../schema/kinds.js';
import { Refused } from '../errors.js';
import { changeKey } from './graph.js';
import { ownedId, ownerProject, ownershipTag } from '../plan/ownership.js';
import type { Ownership } from '../plan/record.js';
import type { LiveObjects } from './stale.js';


/** Lists keys for a message, cut after a few so that a refusal stays readable. */
function listKeys(changes: readonly PlannedChange[], max = 10): string {
  const keys = changes.map(changeKey);
  return keys.length <= max ? keys.join(', ') : `${keys.slice(0, max).join(', ')} and ${keys.length - max} more`;
}

/** How a run came to delete: `plan` (a plan of the definitions, or a saved one) or `destroy`. */
export interface DeleteRules {
  /** `mac destroy` empties the project by design: only the count guard holds. */
  destroy?: boolean;
}

/**
 * A delete the plan decided by pruning: a check no longer defined. It has no defining file;
 * a tombstone (`state: absent`) always has one.
 */
export function isPruneDelete(c: PlannedChange): boolean {
  return c.action === 'delete' && c.file === undefined;
}

/**
 * Refuses a plan whose deletes exceed `maxDeletes` (tombstones, pruning and destroy alike), or
 * whose pruning would leave the project with nothing managed (what an emptied or mistyped
 * definitions folder looks like). The second rule guards pruning only: explicit tombstones of
 * every resource and `mac destroy` are the user's word. Holds in CI too.
 */
export function checkDeletes(plan: Plan, maxDeletes: number, rules: DeleteRules = {}): void {
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  if (deletes.length === 0) return;
  if (deletes.length > maxDeletes) {
    throw new Refused(`the plan deletes ${deletes.length} resources, more than --max-deletes ${maxDeletes}: ${listKeys(deletes)}`, {
      hint: `review the plan; if these deletes are intended, run again with --max-deletes ${deletes.length}`,
    });
  }
  if (rules.destroy || !deletes.some(isPruneDelete)) return;
  // Resources that stay managed after the run: updated or unchanged ones (creates are not live
  // yet). Counted from the changes themselves, never from the file's summary.
  const kept = plan.changes.filter((c) => c.action === 'update' || (c.action === 'noop' && c.remoteId !== undefined)).length;
  if (kept === 0) {
    throw new Refused(`the plan deletes every resource project "${plan.project}" manages (${listKeys(deletes)}) and keeps none`, {
      hint: 'check that DIR and the include patterns of mac.config.yaml find your definitions; pruning never empties a project (tombstone each resource with state: absent, or run mac destroy, to remove them all)',
    });
  }
}

/**
 * Refuses a plan (a saved one may have been edited) that writes to something this project does
 * not own, judged on the live objects and the ownership records re-read just before the run:
 * - a check or group to delete must carry the tag `mac:<project>/<id>` of the change;
 * - a check or group to update must carry a tag of this project, or no project's tag (the
 *   adoption `mac import` writes);
 * - an object of another kind to update or delete must not be in another project's ownership
 *   record, and a pruned one (a delete without a defining file) must be in this project's.
 * The message names every refused operation.
 */
export function checkOwnership(plan: Plan, live: LiveObjects, ownership?: Ownership): void {
  const refused: string[] = [];
  const own = plan.project;
  // API ids this project records, per kind (a set: plans may hold many changes).
  const recorded = new Map([...(ownership?.own ?? [])].map(([kind, ids]) => [kind, new Set(ids.values())]));
  for (const c of plan.changes) {
    if (c.action !== 'update' && c.action !== 'delete') continue;
    const what = `${c.action} ${changeKey(c)}${c.remoteId !== undefined ? ` (id ${c.remoteId})` : ''}`;
    const obj = live.get(changeKey(c)) ?? null;
    if (isOwnedKind(c.kind)) {
      // An object already gone needs no write; the staleness check reports it.
      if (obj === null) continue;
      const tags = Array.isArray(obj.tags) ? obj.tags.map(String) : [];
      const owner = ownerProject(tags);
      if (c.action === 'delete' && !tags.includes(ownershipTag(own, c.id))) {
        refused.push(`${what}: the live ${isCheckKind(c.kind) ? 'check' : c.kind} lacks the tag ${ownershipTag(own, c.id)}${owner && owner !== own ? ` (it belongs to project "${owner}")` : ''}`);
      } else if (c.action === 'update' && owner !== undefined && ownedId(own, tags) === undefined) {
        refused.push(`${what}: the live ${isCheckKind(c.kind) ? 'check' : c.kind} belongs to project "${owner}"`);
      }
      continue;
    }
    if (c.remoteId === undefined || !ownership) continue;
    const other = ownership.foreign.get(c.kind)?.get(String(c.remoteId));
    if (other !== undefined) refused.push(`${what}: project "${other}" records it as its own`);
    else if (isPruneDelete(c) && !recorded.get(c.kind)?.has(String(c.remoteId))) {
      refused.push(`${what}: a delete without a definition (pruned) must target an object this project's ownership record lists, and it does not`);
    }
  }
  if (refused.length > 0) {
    throw new Refused(`refusing a plan that writes to objects project "${own}" does not own:\n  ${refused.slice(0, 20).join('\n  ')}${refused.length > 20 ? `\n  and ${refused.length - 20} more` : ''}`, {
      hint: 'mac changes and deletes only what the project owns; plan again (mac plan DIR --out FILE) and apply the plan unedited',
    });
  }
}
