import { z } from 'zod';
import { apiFields, VARIABLE_KEY, VARIABLE_KEY_RULE } from '../../schema/fields.js';
import { created, ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { mustGet } from '../http/lookup.js';
import { deleteRecord, inTransaction, updateRecord } from '../http/write.js';
import { conflict, invalid } from '../http/errors.js';
import { COLL } from '../kinds.js';
import type { StoredRecord } from '../store/store.js';

// Variables (api-decisions §3.6, §1.7): keyed by `key`; PUT is strict and replaces; secret is one-way.
const f = apiFields('strip');
const createBody = z.object(f.variable);
const updateBody = z.strictObject({
  key: f.variable.key.optional(),
  value: f.variable.value,
  locked: z.boolean().optional(),
  secret: z.boolean().optional(),
});
const keyParams = z.object({ key: z.string().regex(VARIABLE_KEY, VARIABLE_KEY_RULE) });

/** A variable as read back: a secret's value is null. */
function readBack(v: StoredRecord): StoredRecord {
  return v.secret === true ? { ...v, value: null } : v;
}

/** Routes of `/v1/variables`. */
export const variableRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/variables',
    query: pageQuery,
    handle: ({ account, query }) => {
      const page = pageOf(store.list(account, COLL.variables), query);
      return ok(page.body.map(readBack), { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/variables',
    body: createBody,
    handle: ({ account, body }) =>
      inTransaction(store, account, (tx) => {
        if (tx.get(COLL.variables, body.key)) throw conflict(`Variable "${body.key}" already exists`);
        const variable = { key: body.key, value: body.value, locked: body.locked ?? false, secret: body.secret ?? false, created_at: isoNow(), updated_at: null };
        tx.put(COLL.variables, body.key, variable);
        return created(variable);
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/variables/:key',
    params: keyParams,
    handle: ({ account, params }) => ok(readBack(mustGet(store.view(account), COLL.variables, params.key))),
  }),
  route({
    method: 'PUT',
    path: '/v1/variables/:key',
    params: keyParams,
    body: updateBody,
    handle: ({ account, params, body }) => {
      if (body.key !== undefined && body.key !== params.key) throw invalid('payload', 'key', `cannot change; must be "${params.key}"`);
      return updateRecord(store, account, COLL.variables, params.key, (stored) => {
        if (stored.secret === true && body.secret === false) throw invalid('payload', 'secret', 'cannot be turned off once set');
        return { key: params.key, value: body.value, locked: body.locked ?? false, secret: body.secret ?? stored.secret, created_at: stored.created_at, updated_at: isoNow() };
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/variables/:key',
    params: keyParams,
    handle: ({ account, params }) => deleteRecord(store, account, COLL.variables, params.key),
  }),
];
