import { NotFoundError, type ApiClient } from '../api/index.js';
import { listAll, listCursor } from '../api/paginate.js';
import { isRecord } from '../json/values.js';
import type { Blocker, Plan, PlannedChange } from '../plan/types.js';
import type { ApplyAccount } from './apply.js';
import { changeKey } from './graph.js';

/**
 * What stops `mac destroy` from deleting a project's objects although they are the project's:
 * incidents (opened by hand or by a check's `triggerIncident`) on its status-page services,
 * which make the service delete answer 409, and the subscribers of its status pages. mac
 * manages neither, so `mac destroy` lists them in its plan and removes each one just before the
 * object it blocks: an incident that concerns only services being destroyed is deleted; one that
 * also concerns another project's service only loses this project's services (so nothing of
 * another project is deleted); a page's subscriptions are deleted with the page.
 */

const INCIDENTS = '/v1/status-pages/incidents';

type Live = Record<string, unknown>;

/** The API ids of the services an incident concerns. */
function incidentServices(incident: Live): string[] {
  return Array.isArray(incident.services) ? incident.services.filter(isRecord).map((s) => String(s.id)) : [];
}

/** The deletes of a plan of one kind, by API id. */
function deletesOf(plan: Plan, kind: PlannedChange['kind']): Map<string, PlannedChange> {
  return new Map(plan.changes.filter((c) => c.action === 'delete' && c.kind === kind && c.remoteId !== undefined).map((c) => [String(c.remoteId), c]));
}

/** The blockers of a destroy plan, read live (one incident list, one subscription list per page deleted). */
export async function findBlockers(client: ApiClient, plan: Plan): Promise<Blocker[]> {
  const services = deletesOf(plan, 'StatusPageService');
  const pages = deletesOf(plan, 'StatusPage');
  const blockers: Blocker[] = [];
  if (services.size > 0) {
    for (const incident of await listCursor<Live>(client, INCIDENTS, {}, { idOf: (i) => i.id })) {
      const ids = incidentServices(incident);
      const ours = ids.filter((id) => services.has(id));
      if (ours.length === 0) continue;
      blockers.push({
        type: 'Incident',
        action: ours.length === ids.length ? 'delete' : 'detach',
        remoteId: String(incident.id),
        ...(typeof incident.name === 'string' ? { name: incident.name } : {}),
        blocks: changeKey(services.get(ours[0]!)!),
      });
    }
  }
  await Promise.all(
    [...pages].map(async ([pageId, change]) => {
      for (const sub of await pageSubscriptions(client, pageId)) {
        blockers.push({ type: 'StatusPageSubscription', action: 'delete', remoteId: String(sub.id), blocks: changeKey(change) });
      }
    }),
  );
  return blockers;
}

async function pageSubscriptions(client: ApiClient, pageId: string): Promise<Live[]> {
  try {
    return await listAll<Live>(client, `/v1/status-pages/${encodeURIComponent(pageId)}/subscriptions`, {}, { idOf: (s) => s.id });
  } catch (err) {
    if (err instanceof NotFoundError) return [];
    throw err;
  }
}

const ignoreGone = (err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err));

/**
 * The account of a destroy: before deleting a status-page service it removes the incidents that
 * use it, and before deleting a status page its subscriptions, both read again at that moment
 * (an incident opened since the plan blocks as much as one listed). The plan's checks are deleted
 * in an earlier wave, so none of them can open a new incident on the service meanwhile.
 */
export function clearingBlockers(account: ApplyAccount, client: ApiClient, plan: Plan): ApplyAccount {
  const services = deletesOf(plan, 'StatusPageService');
  return {
    ...account,
    perform: async (change, input) => {
      if (change.action === 'delete' && change.remoteId !== undefined) {
        const notes: string[] = [];
        if (change.kind === 'StatusPageService') notes.push(...(await clearIncidents(client, String(change.remoteId), services)));
        if (change.kind === 'StatusPage') notes.push(...(await clearSubscriptions(client, String(change.remoteId))));
        const outcome = await account.perform(change, input);
        return notes.length > 0 ? { ...outcome, notes: [...notes, ...(outcome.notes ?? [])] } : outcome;
      }
      return account.perform(change, input);
    },
  };
}

async function clearIncidents(client: ApiClient, serviceId: string, services: ReadonlyMap<string, PlannedChange>): Promise<string[]> {
  let deleted = 0;
  let detached = 0;
  for (const incident of await listCursor<Live>(client, INCIDENTS, {}, { idOf: (i) => i.id })) {
    const ids = incidentServices(incident);
    if (!ids.includes(serviceId)) continue;
    const path = `${INCIDENTS}/${encodeURIComponent(String(incident.id))}`;
    const kept = ids.filter((id) => !services.has(id));
    if (kept.length === 0) {
      await client.delete(path).catch(ignoreGone);
      deleted++;
    } else {
      await client.put(path, { services: kept.map((id) => ({ id })) }).catch(ignoreGone);
      detached++;
    }
  }
  const notes: string[] = [];
  if (deleted > 0) notes.push(`deleted ${deleted} incident${deleted > 1 ? 's' : ''} on the service first`);
  if (detached > 0) notes.push(`took the service off ${detached} incident${detached > 1 ? 's' : ''} that also concern${detached > 1 ? '' : 's'} other services`);
  return notes;
}

async function clearSubscriptions(client: ApiClient, pageId: string): Promise<string[]> {
  const subs = await pageSubscriptions(client, pageId);
  for (const sub of subs) await client.delete(`/v1/status-pages/${encodeURIComponent(pageId)}/subscriptions/${encodeURIComponent(String(sub.id))}`).catch(ignoreGone);
  return subs.length > 0 ? [`deleted ${subs.length} subscription${subs.length > 1 ? 's' : ''} of the page first`] : [];
}
