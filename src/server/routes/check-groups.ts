import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { location } from '../../schema/fields.js';
import { created, noContent, ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { arrayParam, intParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { createRecord, deleteRecord, inTransaction, updateRecord } from '../http/write.js';
import { conflict, notFound } from '../http/errors.js';
import { COLL } from '../kinds.js';
import type { AccountView, StoredRecord } from '../store/store.js';
import { deleteSubscriptionsWhere } from '../resources/subscriptions.js';

// Check groups, minimal (api-decisions §3.3): enough for groupId, subscriptions and endpoint 19.
const groupFields = {
  name: z.string().min(1),
  activated: z.boolean().optional(),
  muted: z.boolean().optional(),
  tags: z.array(z.string()).optional(),
  locations: z.array(location).optional(),
  concurrency: z.number().int().min(1).max(10).optional(),
};
const createBody = z.object(groupFields);
const updateBody = z.object({ ...groupFields, name: groupFields.name.optional() });
const GROUP_DEFAULTS = { activated: true, muted: false, tags: [], locations: [], concurrency: 3 };
const idParams = z.object({ id: intParam(1) });
// The reference's filters of the list: groups with at least one of the tags, groups whose name
// is exactly one of the names (each repeatable, `tag[]=` accepted too); both together must hold.
const listQuery = pageQuery.extend({
  tag: arrayParam(z.string()).optional(),
  name: arrayParam(z.string()).optional(),
});

/** Whether a group passes the list's filters (an empty or absent filter passes every group). */
function listed(group: StoredRecord, query: z.output<typeof listQuery>): boolean {
  const tags = Array.isArray(group.tags) ? (group.tags as unknown[]) : [];
  if (query.tag && query.tag.length > 0 && !query.tag.some((t) => tags.includes(t))) return false;
  if (query.name && query.name.length > 0 && !query.name.includes(String(group.name))) return false;
  return true;
}
const groupParams = z.object({ groupId: intParam(1) });

function triggerOf(view: AccountView, groupId: number): StoredRecord | undefined {
  return view.list(COLL.groupTriggers).find((t) => t.groupId === groupId);
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Routes of `/v1/check-groups` and the deprecated group triggers (endpoint 19). */
export const checkGroupRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/check-groups',
    query: listQuery,
    handle: ({ account, query }) => {
      const page = pageOf(
        store.list(account, COLL.checkGroups).filter((g) => listed(g, query)),
        query,
      );
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/check-groups',
    body: createBody,
    handle: ({ account, body }) =>
      createRecord(store, account, COLL.checkGroups, (tx) => ({ id: tx.nextInt(COLL.checkGroups), ...GROUP_DEFAULTS, ...defined(body), created_at: isoNow(), updated_at: null })),
  }),
  route({
    method: 'GET',
    path: '/v1/check-groups/:id',
    params: idParams,
    handle: ({ account, params }) => ok(mustGet(store.view(account), COLL.checkGroups, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/v1/check-groups/:id',
    params: idParams,
    body: updateBody,
    handle: ({ account, params, body }) => updateRecord(store, account, COLL.checkGroups, params.id, (stored) => ({ ...stored, ...defined(body), updated_at: isoNow() })),
  }),
  route({
    method: 'DELETE',
    path: '/v1/check-groups/:id',
    params: idParams,
    handle: ({ account, params }) =>
      deleteRecord(store, account, COLL.checkGroups, params.id, (tx, group) => {
        const members = tx.list(COLL.checks).filter((c) => c.groupId === params.id).length;
        if (members > 0) throw conflict(`Check group "${String(group.name)}" still has ${members} check${members === 1 ? '' : 's'}`);
        deleteSubscriptionsWhere(tx, (s) => s.groupId === params.id);
        const trigger = triggerOf(tx, params.id);
        if (trigger) tx.delete(COLL.groupTriggers, trigger.id as number);
      }),
  }),
  // Endpoint 19: 201 with a new trigger; 200 with the existing one, unchanged (api-decisions §0).
  route({
    method: 'POST',
    path: '/v1/triggers/check-groups/:groupId',
    params: groupParams,
    handle: ({ account, params }) =>
      inTransaction(store, account, (tx) => {
        mustGet(tx, COLL.checkGroups, params.groupId);
        const existing = triggerOf(tx, params.groupId);
        if (existing) return ok(existing);
        const trigger = {
          id: tx.nextInt(COLL.groupTriggers),
          token: randomBytes(16).toString('hex'),
          created_at: isoNow(),
          called_at: null,
          updated_at: null,
          groupId: params.groupId,
        };
        tx.put(COLL.groupTriggers, trigger.id, trigger);
        return created(trigger);
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/triggers/check-groups/:groupId',
    params: groupParams,
    handle: ({ account, params }) => {
      const trigger = triggerOf(store.view(account), params.groupId);
      if (!trigger) throw notFound();
      return ok(trigger);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/triggers/check-groups/:groupId',
    params: groupParams,
    handle: ({ account, params }) =>
      inTransaction(store, account, (tx) => {
        const trigger = triggerOf(tx, params.groupId);
        if (!trigger) throw notFound();
        tx.delete(COLL.groupTriggers, trigger.id as number);
        return noContent();
      }),
  }),
];
