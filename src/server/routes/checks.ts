import { z } from 'zod';
import { created, ok, route, type RouteModule, type RouteSpec } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { PageCache } from '../http/page-cache.js';
import { arrayParam, boolParam, stringParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { deleteRecord, inTransaction } from '../http/write.js';
import { invalid } from '../http/errors.js';
import { parseOrThrow } from '../http/validation.js';
import { COLL } from '../kinds.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { Store, Transaction } from '../store/store.js';
import { CHECK_TYPE_LIST, CHECK_TYPES, SPEC_CHECK_TYPES, type CheckTypeSpec } from '../checks/types.js';
import { checkRulesAndReferences, createCheck, mergeCheck, type StoredCheck } from '../checks/build.js';
import { checkJsonReader, checkViewer } from '../checks/view.js';
import { deleteSubscriptionsWhere, replaceCheckSubscriptions } from '../resources/subscriptions.js';
import type { ApiCheckType } from '../../schema/fields.js';

type Obj = Record<string, unknown>;

const listQuery = pageQuery.extend({
  tag: arrayParam(z.string()).optional(),
  checkType: stringParam().pipe(z.enum(SPEC_CHECK_TYPES)).optional(),
  search: stringParam().optional(),
  // The reference's other filters (defect D3 of issue 16: they were ignored). A URL pattern
  // returns only API checks whose request URL contains it (case-sensitive, as a substring).
  status: stringParam().pipe(z.enum(['passing', 'failing', 'degraded'])).optional(),
  apiCheckUrlFilterPattern: stringParam().pipe(z.string().min(1)).optional(),
});

/** "a TCP check", "an API check", "an ICMP check": a check type in a message. */
function aCheck(checkType: string): string {
  return `${checkType === 'API' || checkType === 'ICMP' ? 'an' : 'a'} ${checkType} check`;
}

/** Whether a check is an API check whose request URL contains `pattern`. */
function apiUrlMatches(check: StoredCheck, pattern: string): boolean {
  const request = check.request as { url?: unknown } | undefined;
  return check.checkType === 'API' && typeof request?.url === 'string' && request.url.includes(pattern);
}

/** A check's current status: that of its newest result (one indexed read of one row); undefined before its first result. */
function currentStatus(store: Store, account: string, checkId: string): 'passing' | 'failing' | 'degraded' | undefined {
  const [r] = store.query(account, RUN_COLL.checkResults, { checkId, order: 'time-desc', limit: 1, fields: ['hasFailures', 'hasErrors', 'isDegraded'] });
  if (!r) return undefined;
  return r.hasFailures === true || r.hasErrors === true ? 'failing' : r.isDegraded === true ? 'degraded' : 'passing';
}
const writeQuery = z.object({ autoAssignAlerts: boolParam().default(true) });
const idParams = z.object({ id: z.string() });
// The deprecated PUT learns the schema from the stored check; only checkType is read up front.
const deprecatedBody = z.looseObject({ checkType: z.enum(SPEC_CHECK_TYPES).optional() });

/** Routes of `/v1/checks`: list, read and delete any check; create and update per type. */
export const checkRoutes: RouteModule = (ctx) => {
  const { store, isoNow } = ctx;
  // A page shows checks with their subscriptions and the channels those point at.
  const listPages = new PageCache(store, [COLL.checks, COLL.alertSubscriptions, COLL.alertChannels]);
  // A deleted snippet is cleared from the DNS and API checks that reference it (api-decisions §1.6).
  ctx.onDelete(COLL.snippets, (tx, snippetId) => {
    for (const check of tx.list<StoredCheck>(COLL.checks)) {
      const patch: Obj = {};
      for (const field of ['setupSnippetId', 'tearDownSnippetId']) if (String(check[field]) === snippetId) patch[field] = null;
      if (Object.keys(patch).length > 0) tx.put(COLL.checks, check.id, { ...check, ...patch });
    }
  });

  const update = (tx: Transaction, type: CheckTypeSpec, stored: StoredCheck, body: Obj) => {
    if (stored.checkType !== type.checkType) {
      throw invalid('params', 'id', `is ${aCheck(stored.checkType)}; update it with PUT /v1/checks/${CHECK_TYPES[stored.checkType as ApiCheckType].segment}/{id}`);
    }
    const check = mergeCheck(stored, body, type, isoNow());
    checkRulesAndReferences(check, body, tx);
    tx.put(COLL.checks, check.id, check);
    if (Array.isArray(body.alertChannelSubscriptions)) replaceCheckSubscriptions(tx, check.id, body.alertChannelSubscriptions as never);
    return checkViewer(tx)(check, { echoSecrets: true });
  };

  const perType = CHECK_TYPE_LIST.flatMap((type): RouteSpec<any, any, any>[] => [
    route({
      method: 'POST',
      path: `/v1/checks/${type.segment}`,
      query: writeQuery,
      body: type.create,
      handle: ({ account, query, body }) =>
        created(
          inTransaction(store, account, (tx) => {
            const check = createCheck(body, type, tx.uuid(), isoNow());
            checkRulesAndReferences(check, body, tx);
            const subs = [...((body.alertChannelSubscriptions as Array<{ alertChannelId: number; activated: boolean }>) ?? [])];
            if (query.autoAssignAlerts) {
              // api-decisions §1.6: every channel not already listed, appended in id order.
              const listed = new Set(subs.map((s) => s.alertChannelId));
              const ids = tx.list(COLL.alertChannels).map((c) => c.id as number).sort((a, b) => a - b);
              for (const id of ids) if (!listed.has(id)) subs.push({ alertChannelId: id, activated: true });
            }
            tx.put(COLL.checks, check.id, check);
            replaceCheckSubscriptions(tx, check.id, subs);
            return checkViewer(tx)(check, { echoSecrets: true });
          }),
        ),
    }),
    route({
      method: 'PUT',
      path: `/v1/checks/${type.segment}/:id`,
      params: idParams,
      query: writeQuery,
      body: type.update,
      handle: ({ account, params, body }) =>
        ok(inTransaction(store, account, (tx) => update(tx, type, mustGet<StoredCheck>(tx, COLL.checks, params.id), body))),
    }),
  ]);

  return [
    route({
      method: 'GET',
      path: '/v1/checks',
      query: listQuery,
      handle: ({ account, query }) => {
        // A status filter reads run data, which the page cache does not follow: computed each time.
        const build = () => {
          const search = query.search?.toLowerCase();
          const tags = query.tag;
          const checks = store.list<StoredCheck>(account, COLL.checks).filter(
            (c) =>
              (query.apiCheckUrlFilterPattern === undefined || apiUrlMatches(c, query.apiCheckUrlFilterPattern)) &&
              (query.checkType === undefined || c.checkType === query.checkType) &&
              (search === undefined || c.name.toLowerCase().includes(search)) &&
              (tags === undefined || tags.length === 0 || (c.tags as string[]).some((t) => tags.includes(t))) &&
              // Last: the status reads one result of each check the other filters keep.
              (query.status === undefined || currentStatus(store, account, c.id as string) === query.status),
          );
          const { body, contentRange } = pageOf(checks, query);
          const json = checkJsonReader(store, account);
          return { json: `[${body.map(json).join(',')}]`, headers: { 'content-range': contentRange } };
        };
        const page = query.status === undefined ? listPages.get(account, JSON.stringify(query), build) : build();
        return { status: 200, json: page.json, headers: page.headers };
      },
    }),
    ...perType,
    route({
      method: 'GET',
      path: '/v1/checks/:id',
      params: idParams,
      handle: ({ account, params }) => ({
        status: 200,
        json: checkJsonReader(store, account)(mustGet<StoredCheck>(store.view(account), COLL.checks, params.id)),
      }),
    }),
    route({
      method: 'PUT',
      path: '/v1/checks/:id',
      params: idParams,
      query: writeQuery,
      body: deprecatedBody,
      handle: ({ account, params, body }) =>
        ok(
          inTransaction(store, account, (tx) => {
            const stored = mustGet<StoredCheck>(tx, COLL.checks, params.id);
            if (body.checkType !== undefined && body.checkType !== stored.checkType) {
              throw invalid('payload', 'checkType', `must be ${stored.checkType}, the type of this check`);
            }
            const type = CHECK_TYPES[stored.checkType as ApiCheckType];
            return update(tx, type, stored, parseOrThrow('payload', type.update, body));
          }),
        ),
    }),
    route({
      method: 'DELETE',
      path: '/v1/checks/:id',
      params: idParams,
      handle: ({ account, params }) =>
        deleteRecord(store, account, COLL.checks, params.id, (tx) => {
          deleteSubscriptionsWhere(tx, (s) => s.checkId === params.id);
          ctx.cascadeDelete(tx, COLL.checks, params.id);
        }),
    }),
  ];
};
