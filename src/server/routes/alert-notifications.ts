import { ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { AlertNotification } from '../rundata/types.js';

/** Route of `/v1/alert-notifications`: the alert outbox, newest first (decisions §5.7). */
export const alertNotificationRoutes: RouteModule = ({ store }) => [
  route({
    method: 'GET',
    path: '/v1/alert-notifications',
    query: pageQuery,
    handle: ({ account, query }) => {
      // Stored oldest first; reversing keeps same-millisecond entries in reverse recording order.
      const newest = store.list<AlertNotification & Record<string, unknown>>(account, RUN_COLL.alertNotifications).reverse();
      const page = pageOf(newest, query);
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
];
