import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { cursorOf, cursorQuery } from '../http/lists.js';
import { conflict } from '../http/errors.js';
import { mustGet } from '../http/lookup.js';
import { createRecord, deleteRecord, updateRecord } from '../http/write.js';
import { COLL } from '../kinds.js';
import { STATUS_COLL } from '../rundata/collections.js';
import { serviceBody } from '../status-pages/schemas.js';
import type { Service, StoredIncident, StoredStatusPage } from '../status-pages/model.js';

// Status-page services (decisions §4): cursor list, POST 201, PUT replaces, DELETE 409 when used.
const idParams = z.object({ serviceId: z.string() });

/** Routes of `/v1/status-pages/services`; registered before `/v1/status-pages/:statusPageId`. */
export const statusPageServiceRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/status-pages/services',
    query: cursorQuery(20),
    handle: ({ account, query }) => ok(cursorOf(store.list<Service>(account, STATUS_COLL.services).reverse(), query, (s) => s.id)),
  }),
  route({
    method: 'POST',
    path: '/v1/status-pages/services',
    body: serviceBody,
    handle: ({ account, body }) =>
      createRecord<Service>(store, account, STATUS_COLL.services, (tx) => ({ id: tx.uuid(), name: body.name, accountId: account, created_at: isoNow(), updated_at: null })),
  }),
  route({
    method: 'GET',
    path: '/v1/status-pages/services/:serviceId',
    params: idParams,
    handle: ({ account, params }) => ok(mustGet<Service>(store.view(account), STATUS_COLL.services, params.serviceId)),
  }),
  route({
    method: 'PUT',
    path: '/v1/status-pages/services/:serviceId',
    params: idParams,
    body: serviceBody,
    handle: ({ account, params, body }) => updateRecord<Service>(store, account, STATUS_COLL.services, params.serviceId, (stored) => ({ ...stored, name: body.name, updated_at: isoNow() })),
  }),
  route({
    method: 'DELETE',
    path: '/v1/status-pages/services/:serviceId',
    params: idParams,
    handle: ({ account, params }) =>
      deleteRecord<Service>(store, account, STATUS_COLL.services, params.serviceId, (tx, service) => {
        const user = serviceUser(tx.list<StoredStatusPage>(STATUS_COLL.statusPages), tx.list<StoredIncident>(STATUS_COLL.incidents), tx.list(COLL.checks), service.id);
        if (user) throw conflict(`Service "${service.name}" is used by ${user}`);
      }),
  }),
];

/** What still uses a service (a card, an incident, a check's triggerIncident), or undefined. */
function serviceUser(pages: StoredStatusPage[], incidents: StoredIncident[], checks: Array<Record<string, unknown>>, id: string): string | undefined {
  for (const page of pages) {
    const card = page.cards.find((c) => c.services.some((s) => s.id === id));
    if (card) return `card "${card.name}" of status page "${page.name}"`;
  }
  const incident = incidents.find((i) => i.services.some((s) => s.id === id));
  if (incident) return `incident "${incident.name}"`;
  const check = checks.find((c) => (c.triggerIncident as { serviceId?: unknown } | null | undefined)?.serviceId === id);
  if (check) return `the triggerIncident of check "${String(check.name)}"`;
  return undefined;
}
