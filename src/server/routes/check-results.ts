import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { boolParam, stringParam } from '../http/query.js';
import { invalid, notFound } from '../http/errors.js';
import { COLL } from '../kinds.js';
import { RUN_COLL } from '../rundata/collections.js';
import { purgeCheckRunData } from '../rundata/recorder.js';
import { mustCheck, unixParam } from '../rundata/query.js';
import { resultsWindow } from '../rundata/time-window.js';
import { sessionView } from '../rundata/views.js';
import type { CheckResult, StoredSession } from '../rundata/types.js';

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
      // The check and the window narrow the indexed query; the other filters apply to its rows.
      const results = store
        .query<CheckResult & Record<string, unknown>>(account, RUN_COLL.checkResults, { checkId: params.checkId, fromMs, toMs, order: 'time-desc' })
        .filter((r) => {
          if (query.resultType !== 'ALL' && r.resultType !== query.resultType) return false;
          if (query.location !== undefined && r.runLocation !== query.location) return false;
          return query.hasFailures === undefined || r.hasFailures === query.hasFailures;
        });
      const page = pageOf(results, query);
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
