import { z } from 'zod';
import { LOCATIONS, PRIVATE_LOCATION_SLUG } from '../../schema/fields.js';
import { created, noContent, ok, route, type RouteModule } from '../http/route.js';
import { contentRange } from '../http/lists.js';
import { mustGet } from '../http/lookup.js';
import { conflict, invalid, notFound } from '../http/errors.js';
import { COLL } from '../kinds.js';
import type { StoredRecord } from '../store/store.js';
import { newKey, withRawKey, type StoredKey } from '../resources/keys.js';

// Private locations (api-decisions §3.6): slugName immutable, unique per account, never a public location.
const fields = {
  name: z.string().min(1).max(255),
  icon: z.string().min(1).optional(),
  proxyUrl: z.url().nullable().optional(),
};
const createBody = z.object({
  ...fields,
  slugName: z
    .string()
    .regex(PRIVATE_LOCATION_SLUG, 'must be 1..30 of [a-zA-Z0-9-]')
    .refine((s) => !(LOCATIONS as readonly string[]).includes(s), 'must not be the name of a public location'),
});
const updateBody = z.object({ ...fields, slugName: z.string().optional() });
const idParams = z.object({ id: z.string() });
const keyParams = z.object({ id: z.string(), keyId: z.string() });

type Location = StoredRecord & { id: string; slugName: string; keys: StoredKey[] };

/** Routes of `/v1/private-locations` and their keys (endpoint 18). */
export const privateLocationRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/private-locations',
    handle: ({ account }) => {
      const all = store.list(account, COLL.privateLocations);
      return ok(all, { 'content-range': contentRange(0, all.length, all.length) });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/private-locations',
    body: createBody,
    handle: ({ account, body }) => {
      const tx = store.begin(account);
      if (tx.list<Location>(COLL.privateLocations).some((p) => p.slugName === body.slugName)) {
        throw conflict(`Private location "${body.slugName}" already exists`);
      }
      const now = isoNow();
      const key = newKey('pl_', now);
      const location = {
        id: tx.uuid(),
        name: body.name,
        slugName: body.slugName,
        icon: body.icon ?? 'location',
        proxyUrl: body.proxyUrl ?? null,
        keys: [key.stored],
        created_at: now,
        updated_at: null,
      };
      tx.put(COLL.privateLocations, location.id, location);
      tx.commit();
      return created({ ...location, keys: [withRawKey(key.stored, key.rawKey)] });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/private-locations/:id',
    params: idParams,
    handle: ({ account, params }) => ok(mustGet(store.view(account), COLL.privateLocations, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/v1/private-locations/:id',
    params: idParams,
    body: updateBody,
    handle: ({ account, params, body }) => {
      const tx = store.begin(account);
      const stored = mustGet<Location>(tx, COLL.privateLocations, params.id);
      if (body.slugName !== undefined && body.slugName !== stored.slugName) throw invalid('payload', 'slugName', `cannot change; must be "${stored.slugName}"`);
      const location = { ...stored, name: body.name, icon: body.icon ?? 'location', proxyUrl: body.proxyUrl ?? null, updated_at: isoNow() };
      tx.put(COLL.privateLocations, params.id, location);
      tx.commit();
      return ok(location);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/private-locations/:id',
    params: idParams,
    handle: ({ account, params }) => {
      const tx = store.begin(account);
      const stored = mustGet<Location>(tx, COLL.privateLocations, params.id);
      const users = tx.list(COLL.checks).filter((c) => (c.privateLocations as string[]).includes(stored.slugName));
      if (users.length > 0) throw conflict(`Private location "${stored.slugName}" is used by ${users.length} check${users.length === 1 ? '' : 's'}`);
      tx.delete(COLL.privateLocations, params.id);
      tx.commit();
      return noContent();
    },
  }),
  // Endpoint 18: 201 with the new key; its rawKey is shown in this response only.
  route({
    method: 'POST',
    path: '/v1/private-locations/:id/keys',
    params: idParams,
    handle: ({ account, params }) => {
      const tx = store.begin(account);
      const stored = mustGet<Location>(tx, COLL.privateLocations, params.id);
      const key = newKey('pl_', isoNow());
      tx.put(COLL.privateLocations, params.id, { ...stored, keys: [...stored.keys, key.stored] });
      tx.commit();
      return created(withRawKey(key.stored, key.rawKey));
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/private-locations/:id/keys/:keyId',
    params: keyParams,
    handle: ({ account, params }) => {
      const tx = store.begin(account);
      const stored = mustGet<Location>(tx, COLL.privateLocations, params.id);
      if (!stored.keys.some((k) => k.id === params.keyId)) throw notFound();
      tx.put(COLL.privateLocations, params.id, { ...stored, keys: stored.keys.filter((k) => k.id !== params.keyId) });
      tx.commit();
      return noContent();
    },
  }),
];
