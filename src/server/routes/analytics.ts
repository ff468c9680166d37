import { asyncResultsReducer } from '../rundata/figures.js';
import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { arrayParam, intParam, stringParam } from '../http/query.js';
import { invalid } from '../http/errors.js';
import { RUN_COLL } from '../rundata/collections.js';
import { mustCheck, unixParam } from '../rundata/query.js';
import { metricMetadata, parseMetrics } from '../rundata/analytics-metrics.js';
import { analyticsSeries, BROWSER_RESULT_FIELDS, BROWSER_ROWS_INDEX, browserSeriesRows, type SeriesQuery } from '../rundata/analytics.js';
import { aggregateRecords, type AggregateQuery, type AggregateRow } from '../store/aggregate.js';
import type { MetricTable } from '../rundata/analytics-metrics.js';
import { QUICK_RANGES, analyticsWindow } from '../rundata/time-window.js';

// Endpoint 13 (decisions §5.6): any check of the account, series as JSON strings.
const analyticsQuery = z.object({
  metrics: arrayParam(z.string()).optional(),
  from: unixParam().optional(),
  to: unixParam().optional(),
  quickRange: stringParam().pipe(z.enum(QUICK_RANGES)).default('last24Hours'),
  aggregationInterval: intParam(1, 43_200).optional(),
  groupBy: stringParam().pipe(z.enum(['runLocation', 'statusCode', 'pageIndex'])).optional(),
  filterByStatus: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')))
    .pipe(z.array(z.enum(['success', 'failure'])))
    .default([]),
  limit: intParam(1, 100).default(10),
  page: intParam(1).default(1),
});

/**
 * Routes of `/v1/analytics/url-monitors/{id}` and `/v1/analytics/api-checks/{id}`: the same
 * query parameters and metric names in the reference, and here the same answer, for any check
 * of the account (decisions §5.6).
 */
/**
 * `/v1/analytics/browser-checks/{id}` reads the web vitals and error counts of browser results
 * (reference AnalyticsBrowserCheckMetadata; groupBy runLocation or pageIndex). Those are not
 * figure columns of the database: the window's results are read (only the fields the series
 * need, at most BROWSER_MAX_RESULTS) and reduced here by the same reduction.
 */
const BROWSER_MAX_RESULTS = 50_000;

/** The analytics routes and the metric names each accepts (the reference's, as far as they are recorded). */
const ROUTES: Array<{ path: string; table: MetricTable }> = [
  { path: '/v1/analytics/url-monitors/:id', table: 'http' },
  { path: '/v1/analytics/api-checks/:id', table: 'http' },
  { path: '/v1/analytics/browser-checks/:id', table: 'browser' },
  { path: '/v1/analytics/icmp/:id', table: 'icmp' },
];

export const analyticsRoutes: RouteModule = ({ store, options }) =>
  ROUTES.map(({ path, table }) =>
    route({
      method: 'GET',
      path,
      params: z.object({ id: z.string() }),
      query: analyticsQuery,
      handle: async ({ account, params, query }) => {
        const parsed = parseMetrics(query.metrics ?? [], table);
        if (!parsed.ok) throw invalid('query', 'metrics', parsed.message);
        if ((table === 'browser') !== (query.groupBy === 'pageIndex') && query.groupBy !== undefined && query.groupBy !== 'runLocation') {
          throw invalid('query', 'groupBy', table === 'browser' ? 'must be runLocation or pageIndex for browser checks' : 'must be runLocation or statusCode');
        }
        const w = analyticsWindow(query, options.now());
        if (!w.ok) throw invalid('query', w.path, w.message);
        const check = mustCheck(store, account, params.id);
        const series: SeriesQuery = {
          metrics: parsed.metrics,
          window: w.window,
          aggregationIntervalMin: query.aggregationInterval,
          groupBy: query.groupBy,
          filterByStatus: query.filterByStatus,
          limit: query.limit,
          page: query.page,
        };
        return ok({
          checkId: check.id,
          name: check.name,
          checkType: check.checkType,
          activated: check.activated,
          muted: check.muted,
          frequency: check.frequency,
          from: new Date(w.window.fromMs).toISOString(),
          to: new Date(w.window.toMs).toISOString(),
          tags: check.tags,
          // Buckets, groups and sums are computed by the database: only the figures leave it.
          series:
            table !== 'browser'
              ? await seriesOffThread(asyncResultsReducer(store, account), check.id, series)
              : analyticsSeries((agg) => {
                  const results = store.query(account, RUN_COLL.checkResults, { checkId: check.id, fromMs: agg.fromMs, toMs: agg.toMs - 1, fields: BROWSER_RESULT_FIELDS, limit: BROWSER_MAX_RESULTS, order: 'time-desc' });
                  return aggregateRecords(browserSeriesRows(results, series.groupBy), BROWSER_ROWS_INDEX, agg);
                }, check.id, series),
          pagination: { page: query.page, limit: query.limit },
          metadata: Object.fromEntries(parsed.metrics.map((m) => [m.name, metricMetadata(m)])),
        });
      },
    }),
  );

/**
 * `analyticsSeries` with its reductions answered off the main thread: the reductions a series
 * asks depend on the query only, never on what an earlier one answered, so they are collected
 * first (a pass that answers nothing), read side by side (Store.aggregateAsync), and the series
 * built from their answers.
 */
async function seriesOffThread(reduce: (q: AggregateQuery) => AggregateRow[] | Promise<AggregateRow[]>, checkId: string, series: SeriesQuery): Promise<string[]> {
  const asked = new Map<string, AggregateQuery>();
  analyticsSeries((q) => {
    asked.set(JSON.stringify(q), q);
    return [];
  }, checkId, series);
  const answers = new Map(await Promise.all([...asked].map(async ([key, q]) => [key, await reduce(q)] as const)));
  return analyticsSeries((q) => answers.get(JSON.stringify(q)) ?? [], checkId, series);
}
