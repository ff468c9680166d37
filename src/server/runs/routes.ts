import { z } from 'zod';
import type { Hono } from 'hono';
import { created, route, type RouteModule } from '../http/route.js';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/env.js';
import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { sessionView } from '../rundata/views.js';
import { ALERT_STATE_COLL, SSL_ALERT_COLL, type CheckRecord } from './alerts.js';
import { HEARTBEAT_STATE_COLL } from './heartbeats.js';
import { isTargeted } from './target.js';
import { runsOf } from './runs.js';

const triggerBody = z
  .object({
    target: z
      .object({
        checkId: z.array(z.string()).optional(),
        matchTags: z.array(z.array(z.string())).optional(),
      })
      .optional(),
  })
  .optional();

// Heartbeat checks are fed by pings: there is nothing to trigger.
const TRIGGERABLE = new Set(['TCP', 'DNS', 'URL', 'API', 'ICMP', 'MULTI_STEP', 'BROWSER']);

/** Routes of the runs (the trigger endpoint), and the cascade of a check delete onto run state. */
export const runRoutes: RouteModule = (ctx) => {
  // A deleted check takes its alert memory and heartbeat timing along.
  ctx.onDelete(COLL.checks, (tx, checkId) => {
    for (const kind of [ALERT_STATE_COLL, SSL_ALERT_COLL, HEARTBEAT_STATE_COLL]) if (tx.get(kind, checkId)) tx.delete(kind, checkId);
  });
  return [triggerRoute(ctx)];
};

/** POST /v1/check-sessions/trigger (api-decisions §4, §5.1): run the targeted activated checks now. */
function triggerRoute(ctx: ServerContext) {
  return route({
    method: 'POST',
    path: '/v1/check-sessions/trigger',
    body: triggerBody,
    handle: ({ account, body, c }) => {
      const checks = ctx.store
        .list<CheckRecord>(account, COLL.checks)
        .filter((check) => check.activated !== false && TRIGGERABLE.has(check.checkType) && isTargeted(check, body?.target));
      if (checks.length === 0) throw notFound();
      const { engine } = runsOf(ctx);
      const origin = new URL(c.req.url).origin;
      // Runs of private locations are queued for their agents. A check of one private location gets its
      // session when an agent reports; one of several locations, some private, gets its session now.
      const sessions = checks.flatMap((check) => {
        const session = engine.startSession(account, check, { durable: true });
        return session ? [sessionView(session, [], origin, ctx.options.now())] : [];
      });
      return created({ sessions });
    },
  });
}

/**
 * `GET|POST|HEAD /ping/{pingToken}` (api-decisions §5.5). Registered on the app directly: the
 * token in the path is the credential, so the authenticated route machinery does not apply.
 */
export function registerPingRoute(app: Hono<AppEnv>, ctx: ServerContext): void {
  app.on(['GET', 'POST', 'HEAD'], '/ping/:token', async (c) => {
    const found = await runsOf(ctx).heartbeats.ping(c.req.param('token'), {
      source: c.env?.incoming?.socket.remoteAddress ?? 'unknown',
      userAgent: c.req.header('user-agent') ?? '',
    });
    if (!found) throw notFound();
    return c.text('OK', 200);
  });
}
