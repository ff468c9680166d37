import type { PlannedChange } from '../plan/types.js';
import type { Kind } from '../schema/kinds.js';
import { InternalError } from '../errors.js';
import { refsIn } from './refs.js';

/** "Kind/id": how a change is named in `dependsOn`, `$ref` markers and reports. */
export type ChangeKey = string;

/** The key of a change. */
export function changeKey(change: Pick<PlannedChange, 'kind' | 'id'>): ChangeKey {
  return `${change.kind}/${change.id}`;
}

/**
 * Where a kind sits in the create/update order. Referenced kinds (variables, snippets, alert
 * channels, private locations, check groups) come before the checks that reference them;
 * dashboards select checks by tag, so they come after the checks exist. Deletes run after every
 * create and update, in reverse: a check leaves its group (or is deleted) before the group is
 * deleted, and stops using a private location before the location is, which the service requires (409).
 */
const KIND_TIER: Record<Kind, number> = {
  EnvironmentVariable: 0,
  Snippet: 0,
  AlertChannel: 0,
  PrivateLocation: 0,
  CheckGroup: 0,
  StatusPageService: 0,
  TcpCheck: 1,
  DnsCheck: 1,
  MultiStepCheck: 1,
  BrowserCheck: 1,
  HeartbeatCheck: 1,
  UrlMonitor: 1,
  ApiCheck: 1,
  IcmpMonitor: 1,
  Dashboard: 2,
  StatusPage: 2,
  // Before the checks: a check created in the same apply is covered from its first run.
  MaintenanceWindow: 0,
};
const TOP_TIER = 2;

/** The tier a change starts from before its own dependencies push it later. */
function baseTier(change: PlannedChange): number {
  const tier = KIND_TIER[change.kind];
  // Deletes go last, and in reverse: dashboards first, then checks, then what checks referenced.
  return change.action === 'delete' ? TOP_TIER + 1 + (TOP_TIER - tier) : tier;
}

/** Changes grouped into waves: every change runs after all changes of earlier waves. */
export interface Waves {
  waves: PlannedChange[][];
  /** For each change key, the keys of the changes in this plan it depends on (dangling ones dropped). */
  deps: Map<ChangeKey, ChangeKey[]>;
}

/**
 * Orders the non-noop changes of a plan into waves: a change sits in the first wave after its
 * kind's tier and after every change it depends on (`dependsOn` and `$ref` markers).
 * Dependencies on resources this plan does not change are already satisfied.
 * A cycle is a bug in the plan.
 */
export function buildWaves(changes: readonly PlannedChange[]): Waves {
  const active = changes.filter((c) => c.action !== 'noop');
  const byKey = new Map<ChangeKey, PlannedChange>();
  for (const change of active) {
    const key = changeKey(change);
    if (byKey.has(key)) throw new InternalError(`the plan changes ${key} twice`);
    byKey.set(key, change);
  }
  const deps = new Map<ChangeKey, ChangeKey[]>();
  for (const [key, change] of byKey) {
    // A `$ref` in the body is a dependency even if the plan forgot to list it in dependsOn.
    const wanted = new Set([...change.dependsOn, ...refsIn(change.desired)]);
    deps.set(key, [...wanted].filter((d) => d !== key && byKey.has(d)));
  }

  const level = new Map<ChangeKey, number>();
  const visiting = new Set<ChangeKey>();
  const levelOf = (key: ChangeKey, path: ChangeKey[]): number => {
    const known = level.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) {
      const cycle = [...path.slice(path.indexOf(key)), key].join(' -> ');
      throw new InternalError(`the plan's dependencies form a cycle: ${cycle}`);
    }
    visiting.add(key);
    let result = baseTier(byKey.get(key)!);
    for (const dep of deps.get(key)!) result = Math.max(result, levelOf(dep, [...path, key]) + 1);
    visiting.delete(key);
    level.set(key, result);
    return result;
  };

  const buckets = new Map<number, PlannedChange[]>();
  for (const [key, change] of byKey) {
    const l = levelOf(key, []);
    let bucket = buckets.get(l);
    if (!bucket) buckets.set(l, (bucket = []));
    bucket.push(change);
  }
  const waves = [...buckets.keys()].sort((a, b) => a - b).map((l) => buckets.get(l)!);
  return { waves, deps };
}
