import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { createRecord, deleteRecord, updateRecord } from '../http/write.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { intParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { COLL } from '../kinds.js';

// Snippets (api-decisions §3.6): `{name*, script*}`, integer ids, PUT replaces; names need not be unique.
const snippetBody = z.object({
  name: z.string().min(1),
  script: z.string().min(1),
});

const idParams = z.object({ id: intParam(1) });

/** A stored snippet, exactly as returned. */
export interface Snippet {
  [key: string]: unknown;
  id: number;
  name: string;
  script: string;
  created_at: string;
  updated_at: string | null;
}

/** Routes of `/v1/snippets`: the model of a resource route module. */
export const snippetRoutes: RouteModule = (ctx) => {
  const { store, isoNow } = ctx;
  return [
    route({
      method: 'GET',
      path: '/v1/snippets',
      query: pageQuery,
      handle: ({ account, query }) => {
        const page = pageOf(store.list<Snippet>(account, COLL.snippets), query);
        return ok(page.body, { 'content-range': page.contentRange });
      },
    }),
    route({
      method: 'POST',
      path: '/v1/snippets',
      body: snippetBody,
      handle: ({ account, body }) =>
        createRecord<Snippet>(store, account, COLL.snippets, (tx) => ({ id: tx.nextInt(COLL.snippets), ...body, created_at: isoNow(), updated_at: null })),
    }),
    route({
      method: 'GET',
      path: '/v1/snippets/:id',
      params: idParams,
      handle: ({ account, params }) => ok(mustGet<Snippet>(store.view(account), COLL.snippets, params.id)),
    }),
    route({
      method: 'PUT',
      path: '/v1/snippets/:id',
      params: idParams,
      body: snippetBody,
      handle: ({ account, params, body }) =>
        updateRecord<Snippet>(store, account, COLL.snippets, params.id, (stored) => ({ id: stored.id, ...body, created_at: stored.created_at, updated_at: isoNow() })),
    }),
    route({
      method: 'DELETE',
      path: '/v1/snippets/:id',
      params: idParams,
      // Checks clear their references to it in the same write (api-decisions §1.6).
      handle: ({ account, params }) => deleteRecord(store, account, COLL.snippets, params.id, (tx) => ctx.cascadeDelete(tx, COLL.snippets, String(params.id))),
    }),
  ];
};
