import { MAX_RUN_READ } from '../store/store.js';
import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { contentRange, pageOf, pageQuery } from '../http/lists.js';
import { boolParam, intParam, stringParam } from '../http/query.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { AlertNotification } from '../rundata/types.js';

/** `from` / `to`: a UNIX timestamp in seconds, or an ISO 8601 date or date-time; read as epoch ms. */
const instant = stringParam().pipe(
  z.union([
    z
      .string()
      .regex(/^\d+(?:\.\d+)?$/)
      .transform((s) => Number(s) * 1000),
    z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((s) => Date.parse(s)),
  ], { error: 'must be a unix timestamp or an ISO 8601 date' }),
);

// The reference's filters (defect D2 of issue 16: they were ignored). Without from/to every
// notification is listed: the outbox is small, and hiding older entries by default would make a
// delivery failure disappear after six hours.
const listQuery = pageQuery.extend({
  alertChannelId: intParam(1).optional(),
  hasFailures: boolParam().optional(),
  from: instant.optional(),
  to: instant.optional(),
});

/** Route of `/v1/alert-notifications`: the alert outbox, newest first (decisions §5.7). */
export const alertNotificationRoutes: RouteModule = ({ store }) => [
  route({
    method: 'GET',
    path: '/v1/alert-notifications',
    query: listQuery,
    handle: ({ account, query }) => {
      // Newest recorded first (same-millisecond entries in reverse recording order). The time
      // range is an indexed query (`to` is exclusive); channel and failure filters are applied to
      // what it reads, which retention bounds.
      const range = {
        ...(query.from !== undefined ? { fromMs: query.from } : {}),
        ...(query.to !== undefined ? { toMs: query.to - 1 } : {}),
      };
      if (query.alertChannelId === undefined && query.hasFailures === undefined) {
        const start = (query.page - 1) * query.limit;
        const body = store.query<AlertNotification & Record<string, unknown>>(account, RUN_COLL.alertNotifications, {
          ...range,
          order: 'created-desc',
          limit: query.limit,
          offset: start,
        });
        const total = store.countQuery(account, RUN_COLL.alertNotifications, range);
        return ok(body, { 'content-range': contentRange(start, body.length, total) });
      }
      const newest = store
        // The filters apply to the newest MAX_RUN_READ notifications of the range.
        .query<AlertNotification & Record<string, unknown>>(account, RUN_COLL.alertNotifications, { ...range, order: 'created-desc', limit: MAX_RUN_READ })
        .filter(
          (n) =>
            (query.alertChannelId === undefined || n.alertChannelId === query.alertChannelId) &&
            (query.hasFailures === undefined || (n.status === 'FAILURE') === query.hasFailures),
        );
      const page = pageOf(newest, query);
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
];
