import type { Plan, PlannedChange } from '../plan/types.js';
import { isOwnedKind } from '../schema/kinds.js';
import { Refused } from '../errors.js';
import { changeKey } from './graph.js';
import { ownershipTag } from '../plan/ownership.js';

/** The default of `--max-deletes`. */
export const DEFAULT_MAX_DELETES = 10;


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
  // Resources that stay managed after the run: updated or unchanged ones (creates are not live yet).
  const kept = plan.summary.update + plan.summary.noop;
  if (kept === 0) {
    throw new Refused(`the plan deletes every resource project "${plan.project}" manages (${listKeys(deletes)}) and keeps none`, {
      hint: 'check that DIR and the include patterns of mac.config.yaml find your definitions; pruning never empties a project (tombstone each resource with state: absent, or run mac destroy, to remove them all)',
    });
  }
}

/** A check delete whose live object lacks the project's ownership tag. */
export interface UnownedDelete {
  key: string;
  remoteId?: string | number;
}

/**
 * Refuses to delete a check that does not carry this project's ownership tag (created outside
 * mac, or by another project), judged on the live objects re-read just before the run.
 * `liveTags` gives the tags of each touched check by change key (absent when not found).
 */
export function checkDeleteOwnership(plan: Plan, liveTags: ReadonlyMap<string, readonly string[] | undefined>): void {
  const unowned: UnownedDelete[] = [];
  for (const c of plan.changes) {
    if (c.action !== 'delete' || !isOwnedKind(c.kind)) continue;
    const tags = liveTags.get(changeKey(c));
    // A check already gone needs no delete; the staleness check reports it.
    if (tags === undefined) continue;
    if (!tags.includes(ownershipTag(plan.project, c.id))) unowned.push({ key: changeKey(c), remoteId: c.remoteId });
  }
  if (unowned.length > 0) {
    const names = unowned.map((u) => (u.remoteId !== undefined ? `${u.key} (id ${u.remoteId})` : u.key)).join(', ');
    throw new Refused(`refusing to delete check${unowned.length > 1 ? 's' : ''} without the tag mac:${plan.project}/<id>: ${names}`, {
      hint: 'mac deletes only checks it created for this project; delete others in the monitoring app',
    });
  }
}
