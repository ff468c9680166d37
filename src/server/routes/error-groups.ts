import { MAX_RUN_READ } from '../store/store.js';
import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { invalid } from '../http/errors.js';
import { mustGet } from '../http/lookup.js';
import { updateRecord } from '../http/write.js';
import { RUN_COLL } from '../rundata/collections.js';
import { mustCheck } from '../rundata/query.js';
import { applyArchivePatch, compareByLastSeenDesc, errorGroupView, isContradictoryPatch } from '../rundata/error-groups.js';
import type { StoredErrorGroup } from '../rundata/types.js';

// Error groups (endpoints 20, 21 and GET one; decisions §5.4).
type Group = StoredErrorGroup & Record<string, unknown>;

const patchBody = z.object({
  archiveForEver: z.boolean().optional(),
  archivedUntilNextEvent: z.boolean().optional(),
});

/** Routes of `/v1/error-groups`. */
export const errorGroupRoutes: RouteModule = ({ store }) => [
  route({
    method: 'GET',
    path: '/v1/error-groups/checks/:checkId',
    params: z.object({ checkId: z.string() }),
    query: pageQuery,
    handle: ({ account, params, query }) => {
      mustCheck(store, account, params.checkId);
      // The most recently seen MAX_RUN_READ groups of the check (by the index on lastSeen).
      const groups = store.query<Group>(account, RUN_COLL.errorGroups, { checkId: params.checkId, order: 'time-desc', limit: MAX_RUN_READ }).sort(compareByLastSeenDesc);
      const page = pageOf(groups.map(errorGroupView), query);
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/error-groups/:id',
    params: z.object({ id: z.string() }),
    handle: ({ account, params }) => ok(errorGroupView(mustGet<Group>(store.view(account), RUN_COLL.errorGroups, params.id))),
  }),
  route({
    method: 'PATCH',
    path: '/v1/error-groups/:id',
    params: z.object({ id: z.string() }),
    body: patchBody,
    handle: ({ account, params, body }) => {
      if (isContradictoryPatch(body)) {
        throw invalid('payload', 'archivedUntilNextEvent', 'cannot be false when "archiveForEver" is true');
      }
      return updateRecord<Group>(store, account, RUN_COLL.errorGroups, params.id, (group) => applyArchivePatch(group, body) as Group, errorGroupView);
    },
  }),
];
