import { MAX_RUN_READ } from '../store/store.js';
import { z } from 'zod';
import { ok, route, type RouteModule } from '../http/route.js';
import { intParam } from '../http/query.js';
import { invalid } from '../http/errors.js';
import { RUN_COLL } from '../rundata/collections.js';
import { dateParam, mustCheck } from '../rundata/query.js';
import { heartbeatStats } from '../rundata/heartbeat-stats.js';
import type { HeartbeatEvent } from '../rundata/types.js';

// Endpoint 12 (decisions §5.5): newest events first, at most `limit` (1..10, default 10),
// narrowed by startTime/endTime; stats always cover the last 24 h and 7 d.
const eventsQuery = z.object({
  limit: intParam(1, 10).default(10),
  startTime: dateParam().optional(),
  endTime: dateParam().optional(),
});

const STATS_LOOKBACK_MS = 14 * 86_400_000;

/** Route of `/v1/checks/heartbeats/{checkId}/events`. */
export const heartbeatEventRoutes: RouteModule = ({ store, options }) => [
  route({
    method: 'GET',
    path: '/v1/checks/heartbeats/:checkId/events',
    params: z.object({ checkId: z.string() }),
    query: eventsQuery,
    handle: ({ account, params, query }) => {
      if (query.startTime !== undefined && query.endTime !== undefined && query.startTime > query.endTime) {
        throw invalid('query', 'startTime', 'must not be after "endTime"');
      }
      mustCheck(store, account, params.checkId);
      const nowMs = options.now();
      const events = store
        .query<HeartbeatEvent & Record<string, unknown>>(account, RUN_COLL.heartbeatEvents, {
          checkId: params.checkId,
          fromMs: query.startTime,
          toMs: query.endTime,
          order: 'time-desc',
          limit: query.limit,
        })
        .map(({ id, state, timestamp, source, userAgent }) => ({ id, state, timestamp, source, userAgent }));
      // The stats look back two 7-day periods at most.
      const recent = store.query<HeartbeatEvent & Record<string, unknown>>(account, RUN_COLL.heartbeatEvents, {
        checkId: params.checkId,
        fromMs: nowMs - STATS_LOOKBACK_MS,
        order: 'time-desc',
        limit: MAX_RUN_READ,
      });
      return ok([{ events, stats: heartbeatStats(recent, nowMs) }]);
    },
  }),
];
