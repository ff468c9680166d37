import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { contentRange, pageQuery } from '../http/lists.js';
import type { FigureFilter } from '../store/aggregate.js';
import { boolParam, stringParam } from '../http/query.js';
import { invalid, notFound } from '../http/errors.js';
import { COLL } from '../kinds.js';
import { RUN_COLL } from '../rundata/collections.js';
import { purgeCheckRunData } from '../rundata/recorder.js';
import { mustCheck, unixParam } from '../rundata/query.js';
import { resultsWindow } from '../rundata/time-window.js';
import { sessionView } from '../rundata/views.js';
import type { CheckResult, StoredAsset, StoredSession } from '../rundata/types.js';

// Check results (endpoint 10 and the list of decisions §4) and check sessions (endpoint 11).
const listQuery = pageQuery.extend({
  from: unixParam().optional(),
  to: unixParam().optional(),
  location: stringParam().optional(),
  hasFailures: boolParam().optional(),
  resultType: stringParam().pipe(z.enum(['FINAL', 'ATTEMPT', 'ALL'])).default('FINAL'),
});

/** Routes of `/v1/check-results` and `/v1/check-sessions`. */
export const checkResultRoutes: RouteModule = ({ store, options, onDelete }) => {
  // A deleted check takes its results, sessions, error groups and events along (decisions §1.6).
  onDelete(COLL.checks, purgeCheckRunData);
  return [
  route({
    method: 'GET',
    path: '/v1/check-results/:checkId',
    params: z.object({ checkId: z.string() }),
    query: listQuery,
    handle: ({ account, params, query }) => {
      const w = resultsWindow(query, options.now());
      if (!w.ok) throw invalid('query', w.path, w.message);
      mustCheck(store, account, params.checkId);
      const { fromMs, toMs } = w.window;
      // The check, the window and the filters are one indexed query (the filters on the figure
      // columns), one page of it read: the work is a page's, whatever the window holds.
      const where: FigureFilter[] = [];
      if (query.resultType !== 'ALL') where.push({ path: 'resultType', in: [query.resultType] });
      if (query.location !== undefined) where.push({ path: 'runLocation', in: [query.location] });
      if (query.hasFailures !== undefined) where.push({ path: 'hasFailures', in: [query.hasFailures] });
      const start = (query.page - 1) * query.limit;
      const range = { checkId: params.checkId, fromMs, toMs, where };
      const body = store.query<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, { ...range, order: 'time-desc', limit: query.limit, offset: start });
      const page = { body, contentRange: contentRange(start, body.length, store.countQuery(account, RUN_COLL.checkResults, range)) };
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/check-results/:checkId/:checkResultId',
    params: z.object({ checkId: z.string(), checkResultId: z.string() }),
    handle: ({ account, params }) => {
      const result = store.get<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, params.checkResultId);
      // A result addressed under another check is as missing as an unknown one (decisions §5.8).
      if (!result || result.checkId !== params.checkId) throw notFound();
      return ok(result);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/check-results/:checkId/:checkResultId/assets',
    params: z.object({ checkId: z.string(), checkResultId: z.string() }),
    query: z.object({ type: z.union([stringParam(), z.array(z.string())]).optional(), name: stringParam().pipe(z.string().max(200)).optional() }),
    handle: ({ account, params, query, c }) => {
      const result = store.get<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, params.checkResultId);
      if (!result || result.checkId !== params.checkId) throw notFound();
      const types = query.type === undefined ? null : new Set(Array.isArray(query.type) ? query.type : [query.type]);
      const pattern = query.name ? globPattern(query.name) : null;
      const origin = new URL(c.req.url).origin;
      // The result names its assets; those dropped since (older results, retention) are left out.
      const assets = (result.browserCheckResult?.jobAssets ?? [])
        .map((name) => store.get<StoredAsset & Record<string, unknown>>(account, RUN_COLL.checkResultAssets, `${result.id}/${name}`))
        .filter((a): a is StoredAsset & Record<string, unknown> => a !== undefined && a.checkId === result.checkId)
        .filter((a) => (types === null || types.has(a.type)) && (pattern === null || pattern.test(a.name)))
        .map((a) => ({
          type: a.type,
          name: a.name,
          url: `${origin}/v1/check-results/${encodeURIComponent(result.checkId)}/${encodeURIComponent(result.id)}/assets/${encodeURIComponent(a.name)}`,
          contentType: a.contentType,
          source: { type: 'check-result', checkId: result.checkId, checkName: result.name, checkType: 'BROWSER', resultId: result.id },
        }));
      return ok({ assets });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/check-results/:checkId/:checkResultId/assets/:name',
    params: z.object({ checkId: z.string(), checkResultId: z.string(), name: z.string() }),
    handle: ({ account, params }) => {
      // Ids are per account: another account's key finds nothing here (404, like an unknown id).
      const asset = store.get<StoredAsset & Record<string, unknown>>(account, RUN_COLL.checkResultAssets, `${params.checkResultId}/${params.name}`);
      if (!asset || asset.checkId !== params.checkId || asset.resultId !== params.checkResultId) throw notFound();
      const bytes = Buffer.from(asset.data, 'base64');
      return {
        status: 200,
        file: { bytes, contentType: asset.contentType },
        headers: { 'content-disposition': `attachment; filename="${asset.name}"`, 'x-content-type-options': 'nosniff', 'cache-control': 'private, max-age=0' },
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/check-sessions/:checkSessionId',
    params: z.object({ checkSessionId: z.string() }),
    handle: ({ account, params, c }) => {
      const session = store.get<StoredSession & Record<string, unknown>>(account, RUN_COLL.checkSessions, params.checkSessionId);
      if (!session) throw notFound();
      const results = session.resultIds
        .map((id) => store.get<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, id))
        .filter((r): r is CheckResult & Record<string, unknown> => r !== undefined);
      return ok(sessionView(session, results, new URL(c.req.url).origin, options.now()));
    },
  }),
];
};

/** A case-insensitive glob (`*`, `?`) over a whole asset name (the reference's `name` filter). */
function globPattern(glob: string): RegExp {
  const body = [...glob].map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'i');
}
