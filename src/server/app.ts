import { Hono } from 'hono';
import { ApiError, databaseUnavailable, internalError, notFound } from './http/errors.js';
import { DatabaseUnavailable } from './store/errors.js';
import { authenticate, faults, latency, rateLimit } from './http/guards.js';
import { toHandler, type RouteModule } from './http/route.js';
import { reservedSegments } from './http/paths.js';
import type { AppEnv } from './http/env.js';
import type { Senders } from './alerts/channels.js';
import type { ServerContext } from './context.js';
import { snippetRoutes } from './routes/snippets.js';
import { checkRoutes } from './routes/checks.js';
import { checkGroupRoutes } from './routes/check-groups.js';
import { alertChannelRoutes } from './routes/alert-channels.js';
import { variableRoutes } from './routes/variables.js';
import { privateLocationRoutes } from './routes/private-locations.js';
import { dashboardRoutes } from './routes/dashboards.js';
import { accountRoutes } from './routes/accounts.js';
import { checkResultRoutes } from './routes/check-results.js';
import { heartbeatEventRoutes } from './routes/heartbeat-events.js';
import { analyticsRoutes } from './routes/analytics.js';
import { errorGroupRoutes } from './routes/error-groups.js';
import { alertNotificationRoutes } from './routes/alert-notifications.js';
import { statusPageServiceRoutes } from './routes/status-page-services.js';
import { incidentRoutes } from './routes/incidents.js';
import { statusPageRoutes } from './routes/status-pages.js';
import { maintenanceWindowRoutes } from './routes/maintenance-windows.js';
import { registerPingRoute, runRoutes } from './runs/routes.js';
import { publicPages } from './pages/routes.js';
import { agentProtocol } from './agents/protocol.js';

// One line per API area; each module lists its own routes (see src/server/routes/snippets.ts).
export const MODULES: RouteModule[] = [
  accountRoutes,
  checkRoutes,
  checkGroupRoutes,
  snippetRoutes,
  dashboardRoutes,
  variableRoutes,
  alertChannelRoutes,
  privateLocationRoutes,
  checkResultRoutes,
  heartbeatEventRoutes,
  analyticsRoutes,
  errorGroupRoutes,
  alertNotificationRoutes,
  // Services and incidents before status pages: `/v1/status-pages/:statusPageId` would match them.
  statusPageServiceRoutes,
  incidentRoutes,
  statusPageRoutes,
  maintenanceWindowRoutes,
  runRoutes,
];

/** Method, path and roles of every API route, in registration order (docs/serve-api.md is generated from it). */
export function apiRoutes(ctx: ServerContext): Array<{ method: string; path: string; readOnlyAllowed: boolean }> {
  return MODULES.flatMap((module) => module(ctx)).map((s) => ({ method: s.method, path: s.path, readOnlyAllowed: s.readOnlyAllowed ?? s.method === 'GET' }));
}

/** Options of `createApp` beyond the context. */
export interface AppExtras {
  /** Route modules added after the built-in ones (other areas of the service, tests). */
  modules?: RouteModule[];
  /** Called with unexpected errors (they answer 500 without details). */
  onInternalError?: (err: unknown) => void;
  /** What delivers alerts and mails (default: the channel senders configured by the options). */
  senders?: Senders;
}

/**
 * The Hono app of the service. Guards run in the decided order: latency wraps everything,
 * faults, token and account 401, rate limit 429; an unmatched route or method falls to 404;
 * a matched route then runs role, size, type, JSON and validation checks (http/route.ts).
 */
export function createApp(ctx: ServerContext, extras: AppExtras = {}): Hono<AppEnv> {
  const { options } = ctx;
  const app = new Hono<AppEnv>();
  app.use('*', latency(options.latencyMs));
  app.use('*', faults(options.faults, options.random));
  // Status pages and dashboards people open (no API key): before authentication (pages/routes.ts).
  app.use('*', publicPages(ctx));
  // The agents of private locations (`/agent/v1/...`): their own keys, accepted nowhere else.
  app.use('*', agentProtocol(ctx));
  app.use('*', authenticate(options.keys, options.accountHeader));
  app.use('*', rateLimit(options.rateLimit, options.now));
  registerPingRoute(app, ctx);
  const specs = [...MODULES, ...(extras.modules ?? [])].flatMap((module) => module(ctx));
  const reserved = reservedSegments(specs.map((s) => s.path));
  for (const spec of specs) app.on(spec.method, spec.path, toHandler(spec, ctx, reserved.get(spec.path)));
  app.notFound(() => errorResponse(notFound()));
  app.onError((err) => {
    if (err instanceof ApiError) return errorResponse(err);
    // Reported once per outage by the store (postgres.ts), not once per request.
    if (err instanceof DatabaseUnavailable) return errorResponse(databaseUnavailable());
    extras.onInternalError?.(err);
    return errorResponse(internalError());
  });
  return app;
}

function errorResponse(err: ApiError): Response {
  return new Response(JSON.stringify(err.body()), {
    status: err.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...err.headers },
  });
}
