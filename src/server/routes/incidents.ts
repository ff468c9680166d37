import { z } from 'zod';
import { created, noContent, ok, route, type RouteModule } from '../http/route.js';
import { cursorOf, cursorQuery, contentRange } from '../http/lists.js';
import { conflict, notFound } from '../http/errors.js';
import { mustGet } from '../http/lookup.js';
import { deleteRecord, inTransaction, updateRecord } from '../http/write.js';
import { STATUS_COLL } from '../rundata/collections.js';
import {
  incidentCreateBody,
  incidentPatchBody,
  incidentUpdateCreateBody,
  incidentUpdatePatchBody,
  type IncidentUpdateCreateBody,
} from '../status-pages/schemas.js';
import { checkServiceRefs, incidentView, type IncidentUpdate, type StoredIncident } from '../status-pages/model.js';
import type { Transaction } from '../store/store.js';
import { kickMail, notifySubscribers } from '../status-pages/mails.js';

// Incidents and their updates (spec endpoints 1-3, decisions §2 and §4). PUT and PATCH merge.
const incidentParams = z.object({ incidentId: z.string() });
const updateParams = z.object({ incidentId: z.string(), incidentUpdateId: z.string() });

/** A new update: status defaults to the incident's current one (INVESTIGATING for the first). */
function newUpdate(tx: Transaction, body: IncidentUpdateCreateBody, lastStatus: string | undefined, now: string): IncidentUpdate {
  return {
    id: tx.uuid(),
    description: body.description,
    status: body.status ?? lastStatus ?? 'INVESTIGATING',
    publicIncidentUpdateDate: body.publicIncidentUpdateDate ? new Date(body.publicIncidentUpdateDate).toISOString() : now,
    notifySubscribers: body.notifySubscribers,
    created_at: now,
    updated_at: null,
  };
}

/** Finds an update of the incident or 404 (an update of another incident is not found here). */
function mustUpdate(incident: StoredIncident, updateId: string): IncidentUpdate {
  const update = incident.incidentUpdates.find((u) => u.id === updateId);
  if (!update) throw notFound();
  return update;
}

/** Routes of `/v1/status-pages/incidents`; registered before `/v1/status-pages/:statusPageId`. */
export const incidentRoutes: RouteModule = (ctx) => {
  const { store, isoNow } = ctx;
  const mergeIncident = route({
    method: 'PUT',
    path: '/v1/status-pages/incidents/:incidentId',
    params: incidentParams,
    body: incidentPatchBody,
    // Lookup first, then references, as for every other resource (docs/serve.md, order of checks).
    handle: ({ account, params, body }) =>
      updateRecord<StoredIncident>(
        store,
        account,
        STATUS_COLL.incidents,
        params.incidentId,
        (stored, tx) => {
          if (body.services) checkServiceRefs(tx, body.services.map((s, i) => ({ path: `services.${i}.id`, id: s.id })));
          return {
            ...stored,
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.severity !== undefined ? { severity: body.severity } : {}),
            ...(body.services !== undefined ? { services: body.services.map((s) => ({ id: s.id })) } : {}),
            updated_at: isoNow(),
          };
        },
        (incident, tx) => incidentView(tx, incident),
      ),
  });
  const mergeUpdate = route({
    method: 'PUT',
    path: '/v1/status-pages/incidents/:incidentId/incident-updates/:incidentUpdateId',
    params: updateParams,
    body: incidentUpdatePatchBody,
    handle: ({ account, params, body }) => {
      let update: IncidentUpdate | undefined;
      updateRecord<StoredIncident>(store, account, STATUS_COLL.incidents, params.incidentId, (incident) => {
        const stored = mustUpdate(incident, params.incidentUpdateId);
        const changed: IncidentUpdate = {
          ...stored,
          ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
          ...(body.publicIncidentUpdateDate ? { publicIncidentUpdateDate: new Date(body.publicIncidentUpdateDate).toISOString() } : {}),
          updated_at: isoNow(),
        };
        update = changed;
        return { ...incident, incidentUpdates: incident.incidentUpdates.map((u) => (u.id === changed.id ? changed : u)) };
      });
      return ok(update);
    },
  });
  return [
    route({
      method: 'GET',
      path: '/v1/status-pages/incidents',
      query: cursorQuery(100),
      handle: ({ account, query }) => {
        const src = store.view(account);
        const newest = store.list<StoredIncident>(account, STATUS_COLL.incidents).reverse();
        const page = cursorOf(newest, query, (i) => i.id);
        return ok({ ...page, entries: page.entries.map((i) => incidentView(src, i)) });
      },
    }),
    route({
      method: 'POST',
      path: '/v1/status-pages/incidents',
      body: incidentCreateBody,
      handle: ({ account, body }) => {
        const { reply, mails } = inTransaction(store, account, (tx) => {
          checkServiceRefs(tx, body.services.map((s, i) => ({ path: `services.${i}.id`, id: s.id })));
          const now = isoNow();
          const incident: StoredIncident = {
            id: tx.uuid(),
            name: body.name,
            severity: body.severity,
            services: body.services.map((s) => ({ id: s.id })),
            incidentUpdates: [newUpdate(tx, body.incidentUpdates[0], undefined, now)],
            created_at: now,
            updated_at: null,
          };
          tx.put(STATUS_COLL.incidents, incident.id, incident);
          // The subscribers' mails are queued with the incident, in its transaction.
          const mails = incident.incidentUpdates[0].notifySubscribers ? notifySubscribers(ctx, tx, incident, incident.incidentUpdates[0], ctx.options.now()) : null;
          return { reply: () => created(incidentView(tx, incident)), mails };
        });
        if (mails) kickMail(ctx, mails);
        return reply();
      },
    }),
    route({
      method: 'GET',
      path: '/v1/status-pages/incidents/:incidentId',
      params: incidentParams,
      handle: ({ account, params }) =>
        ok(incidentView(store.view(account), mustGet<StoredIncident>(store.view(account), STATUS_COLL.incidents, params.incidentId))),
    }),
    mergeIncident,
    { ...mergeIncident, method: 'PATCH' },
    route({
      method: 'DELETE',
      path: '/v1/status-pages/incidents/:incidentId',
      params: incidentParams,
      handle: ({ account, params }) => deleteRecord(store, account, STATUS_COLL.incidents, params.incidentId),
    }),
    route({
      method: 'POST',
      path: '/v1/status-pages/incidents/:incidentId/incident-updates',
      params: incidentParams,
      body: incidentUpdateCreateBody,
      handle: ({ account, params, body }) => {
        const { update, mails } = inTransaction(store, account, (tx) => {
          const incident = mustGet<StoredIncident>(tx, STATUS_COLL.incidents, params.incidentId);
          const last = incident.incidentUpdates[incident.incidentUpdates.length - 1];
          const update = newUpdate(tx, body, last?.status, isoNow());
          const next = { ...incident, incidentUpdates: [...incident.incidentUpdates, update] };
          tx.put(STATUS_COLL.incidents, incident.id, next);
          // The subscribers' mails are queued with the update, in its transaction.
          return { update, mails: update.notifySubscribers ? notifySubscribers(ctx, tx, next, update, ctx.options.now()) : null };
        });
        if (mails) kickMail(ctx, mails);
        // 200, not 201: the reference answers this creation with 200 (decisions §0, endpoint 1).
        return ok(update);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/status-pages/incidents/:incidentId/incident-updates',
      params: incidentParams,
      handle: ({ account, params }) => {
        const { incidentUpdates } = mustGet<StoredIncident>(store.view(account), STATUS_COLL.incidents, params.incidentId);
        return ok(incidentUpdates, { 'content-range': contentRange(0, incidentUpdates.length, incidentUpdates.length) });
      },
    }),
    route({
      method: 'GET',
      path: '/v1/status-pages/incidents/:incidentId/incident-updates/:incidentUpdateId',
      params: updateParams,
      handle: ({ account, params }) =>
        ok(mustUpdate(mustGet<StoredIncident>(store.view(account), STATUS_COLL.incidents, params.incidentId), params.incidentUpdateId)),
    }),
    mergeUpdate,
    { ...mergeUpdate, method: 'PATCH' },
    route({
      method: 'DELETE',
      path: '/v1/status-pages/incidents/:incidentId/incident-updates/:incidentUpdateId',
      params: updateParams,
      handle: ({ account, params }) => {
        updateRecord<StoredIncident>(store, account, STATUS_COLL.incidents, params.incidentId, (incident) => {
          mustUpdate(incident, params.incidentUpdateId);
          // An incident always has an update: its status is its newest update's.
          if (incident.incidentUpdates.length === 1) throw conflict('The last update of an incident cannot be deleted');
          return { ...incident, incidentUpdates: incident.incidentUpdates.filter((u) => u.id !== params.incidentUpdateId) };
        });
        return noContent();
      },
    }),
  ];
};
