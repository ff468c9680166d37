import type { ApiClient } from '../api/client.js';
import type { LoadedProject } from '../config/types.js';
import { assemblePlan, kindsToFetch, type PlanInput } from './assemble.js';
import { fetchLive } from './fetch.js';
import { listVariables, ownershipFrom, VARIABLES_LIST } from './record.js';
import type { Plan } from './types.js';

/** Options of a plan run (typed; the CLI maps flags to them). */
export type PlanOptions = Pick<PlanInput, 'prune' | 'rewriteSecrets' | 'changedSince' | 'git' | 'now'>;

/** Reads the ownership records, then the live state of the kinds the project defines or owns (owned ones may be orphans), and assembles the plan. */
export async function createPlan(project: LoadedProject, client: ApiClient, options: PlanOptions): Promise<Plan> {
  // The variables are listed once: for the records, and as the live variables when the project has some.
  const variables = await listVariables(client);
  const ownership = ownershipFrom(project.config.project, variables);
  const live = await fetchLive(client, kindsToFetch(project.definitions, ownership), new Map([[VARIABLES_LIST, variables]]));
  return assemblePlan({ project, live, apiUrl: client.apiUrl, ownership, ...options });
}
