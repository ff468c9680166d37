import type { MiddlewareHandler } from 'hono';
import { ApiError, unauthorized } from './errors.js';
import type { AppEnv } from './env.js';
import { DEFAULT_ACCOUNT_HEADER } from '../../schema/serve-defaults.js';
import type { ApiKeySpec, FaultSpec, RateLimitSpec } from '../options.js';

// Paths without Authorization: heartbeat pings carry their token in the path.
const PUBLIC_PATH = /^\/ping\//;
// Endpoint 11 (GET one session) takes only Authorization (spec §5.2): x-service-account is not
// read there. Other methods on that path shape (POST /v1/check-sessions/trigger) do read it.
const ACCOUNT_HEADER_IGNORED = /^\/v1\/check-sessions\/[^/]+$/;

/** Adds `ms` before every response is sent (errors included). */
export function latency(ms: number): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    await next();
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  };
}

/**
 * Injects faults, one draw per request. 503/500/429 answer before anything is handled (nothing is
 * done); `reset` lets the request complete (a write is committed) and then destroys the
 * connection without a response: the lost-acknowledgement case clients must reconcile.
 */
export function faults(specs: FaultSpec[], random: () => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (specs.length === 0) return next();
    const fault = pick(specs, random());
    if (fault === undefined) return next();
    if (fault === '429') throw new ApiError(429, 'Rate limit exceeded, retry in 1 s', undefined, { 'retry-after': '1' });
    if (fault === '503') throw new ApiError(503, 'Service temporarily unavailable');
    if (fault === '500') throw new ApiError(500, 'An internal server error occurred');
    await next();
    // In-process requests (app.request) have no socket; the fault then does nothing.
    c.env?.outgoing?.destroy();
  };
}

function pick(specs: FaultSpec[], draw: number): FaultSpec['kind'] | undefined {
  let acc = 0;
  for (const s of specs) {
    acc += s.probability;
    if (draw < acc) return s.kind;
  }
  return undefined;
}


/**
 * Token 401, then account-header 401 (api-decisions §1.2); sets the caller. `accountHeader` is
 * the header the account is read from (`--account-header`, e.g. `x-checkly-account` as the
 * reference API names it). When it is not the default, a request that sends the account in
 * `x-service-account` instead is refused naming the header to use: silently ignoring it would
 * act for the key's account whatever account the client meant.
 */
export function authenticate(keys: ApiKeySpec[], accountHeader: string = DEFAULT_ACCOUNT_HEADER): MiddlewareHandler<AppEnv> {
  const byKey = new Map(keys.map((k) => [k.key, k]));
  const header = accountHeader.toLowerCase();
  return async (c, next) => {
    if (PUBLIC_PATH.test(c.req.path)) return next();
    const authorization = c.req.header('authorization') ?? '';
    const m = /^Bearer (\S+)$/i.exec(authorization.trim());
    const key = m ? byKey.get(m[1]) : undefined;
    if (!key) throw unauthorized('Bad token');
    const ignored = c.req.method === 'GET' && ACCOUNT_HEADER_IGNORED.test(c.req.path);
    if (header !== DEFAULT_ACCOUNT_HEADER && !ignored && c.req.header(DEFAULT_ACCOUNT_HEADER) !== undefined) {
      throw unauthorized(`This service reads the account from the header "${header}", not "${DEFAULT_ACCOUNT_HEADER}"`);
    }
    const account = c.req.header(header);
    if (account !== undefined && account !== key.accountId && !ignored) {
      throw unauthorized(`API key does not belong to account "${account}"`);
    }
    c.set('caller', { accountId: key.accountId, role: key.role, key: key.key });
    return next();
  };
}

/**
 * Fixed window per API key (api-decisions §1.5): the window opens at the first counted request;
 * 401 and 429 answers are never counted (401s end before this guard, 429s are not added).
 */
export function rateLimit(spec: RateLimitSpec, now: () => number): MiddlewareHandler<AppEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  const span = spec.windowSeconds * 1000;
  return async (c, next) => {
    const caller = c.get('caller');
    if (spec.limit === 0 || caller === undefined) return next();
    const t = now();
    let w = windows.get(caller.key);
    if (!w || t >= w.start + span) windows.set(caller.key, (w = { start: t, count: 0 }));
    if (w.count >= spec.limit) {
      const seconds = Math.max(1, Math.ceil((w.start + span - t) / 1000));
      throw new ApiError(429, `Rate limit exceeded, retry in ${seconds} s`, undefined, { 'retry-after': String(seconds) });
    }
    w.count += 1;
    return next();
  };
}
