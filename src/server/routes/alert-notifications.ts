import { ok, route, type RouteModule } from '../http/route.js';
import { contentRange, pageQuery } from '../http/lists.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { AlertNotification } from '../rundata/types.js';

/** Route of `/v1/alert-notifications`: the alert outbox, newest first (decisions §5.7). */
export const alertNotificationRoutes: RouteModule = ({ store }) => [
  route({
    method: 'GET',
    path: '/v1/alert-notifications',
    query: pageQuery,
    handle: ({ account, query }) => {
      // Newest recorded first (same-millisecond entries in reverse recording order); one page read.
      const start = (query.page - 1) * query.limit;
      const body = store.query<AlertNotification & Record<string, unknown>>(account, RUN_COLL.alertNotifications, {
        order: 'created-desc',
        limit: query.limit,
        offset: start,
      });
      const total = store.countQuery(account, RUN_COLL.alertNotifications);
      return ok(body, { 'content-range': contentRange(start, body.length, total) });
    },
  }),
];
