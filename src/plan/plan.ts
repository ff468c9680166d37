import type { ApiClient } from '../api/client.js';
import type { LoadedProject } from '../config/types.js';
import { KINDS, type Kind } from '../schema/kinds.js';
import { assemblePlanYielding, kindsToFetch, type PlanInput } from './assemble.js';
import { fetchLive, type LiveState } from './fetch.js';
import { kindSpec } from '../kinds/index.js';
import { listVariables, ownershipFrom, VARIABLES_LIST } from './record.js';
import type { Plan } from './types.js';

/** Options of a plan run (typed; the CLI maps flags to them). */
export type PlanOptions = Pick<PlanInput, 'prune' | 'rewriteSecrets' | 'changedSince' | 'git' | 'now'>;

/**
 * The live state of some kinds, being fetched while the project loads. Its failure is kept for
 * the plan (a project that turns out invalid reports its diagnostics, not the fetch's error).
 */
export interface LivePrefetch {
  /** The kinds being fetched (every kind sharing a list with one of them comes along). */
  kinds: ReadonlySet<Kind>;
  state: Promise<LiveState>;
  /** Every variable of the account (the ownership records are variables), listed once. */
  variables: Promise<Record<string, unknown>[]>;
}

/**
 * Starts fetching, before the definitions are parsed, the kinds they appear to define
 * (`named`, from a first look at their text; 'all' when it cannot tell) and every kind a plan
 * always reads (kindsToFetch of no definitions: the owned kinds).
 */
export function prefetchLive(client: ApiClient, named: ReadonlySet<Kind> | 'all'): LivePrefetch {
  const kinds = new Set<Kind>(named === 'all' ? KINDS : [...named, ...kindsToFetch([])]);
  const variables = listVariables(client);
  const state = fetchLive(client, kinds, new Map([[VARIABLES_LIST, variables]]));
  // Awaited by the plan; meanwhile (and when the project is invalid) not an unhandled rejection.
  state.catch(() => {});
  variables.catch(() => {});
  return { kinds, state, variables };
}

/**
 * Reads the ownership records, then the live state of the kinds the project defines or owns
 * (owned ones may be orphans), and assembles the plan. With `prefetch`, the kinds it holds are taken from it and the
 * others fetched now; the plan sees exactly the kinds it would have fetched itself, so that what
 * was fetched on a guess changes nothing.
 */
export async function createPlan(project: LoadedProject, client: ApiClient, options: PlanOptions, prefetch?: LivePrefetch): Promise<Plan> {
  // The variables are listed once: for the records, and as the live variables when the project has some.
  const variables = await (prefetch?.variables ?? listVariables(client));
  const ownership = ownershipFrom(project.config.project, variables);
  const kinds = kindsToFetch(project.definitions, ownership);
  const listed = new Map([[VARIABLES_LIST, variables]]);
  const live = prefetch ? await completeLive(client, kinds, prefetch, listed) : await fetchLive(client, kinds, listed);
  // Assembled in slices: the event loop is never held for the whole of a large plan.
  return assemblePlanYielding({ project, live, apiUrl: client.apiUrl, ownership, ...options });
}

/** The state fetchLive(kinds) would give, from a prefetch and a fetch of what it lacks. */
async function completeLive(client: ApiClient, kinds: Kind[], prefetch: LivePrefetch, listed: ReadonlyMap<string, Record<string, unknown>[]>): Promise<LiveState> {
  const lists = new Set(kinds.map((k) => kindSpec(k).api.list));
  const fetched = new Set([...prefetch.kinds].map((k) => kindSpec(k).api.list));
  const missing = kinds.filter((k) => !fetched.has(kindSpec(k).api.list));
  const [early, late] = await Promise.all([prefetch.state, missing.length > 0 ? fetchLive(client, missing, listed) : Promise.resolve(new Map() as LiveState)]);
  const state: LiveState = new Map();
  // fetchLive(kinds) holds every kind of each list it read, and nothing else.
  for (const source of [early, late]) for (const [kind, items] of source) if (lists.has(kindSpec(kind).api.list)) state.set(kind, items);
  return state;
}
