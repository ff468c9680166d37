import type { ApiClient } from '../api/client.js';
import type { LoadedProject } from '../config/types.js';
import { assemblePlan, kindsToFetch, type PlanInput } from './assemble.js';
import { fetchLive } from './fetch.js';
import type { Plan } from './types.js';

/** Options of a plan run (typed; the CLI maps flags to them). */
export type PlanOptions = Pick<PlanInput, 'prune' | 'rewriteSecrets' | 'changedSince' | 'git' | 'now'>;

/** Fetches the live state of the kinds the project defines, plus every check (owned ones may be orphans), and assembles the plan. */
export async function createPlan(project: LoadedProject, client: ApiClient, options: PlanOptions): Promise<Plan> {
  const kinds = kindsToFetch(project.definitions);
  const live = await fetchLive(client, kinds);
  return assemblePlan({ project, live, apiUrl: client.apiUrl, ...options });
}
