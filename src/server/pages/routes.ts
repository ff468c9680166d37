/**
 * The public pages of `mac serve` (docs/serve.md, "Public pages"): no API key. A status page at
 * `/status/{url}` (+ `/feed.atom`, the subscribe form, unsubscribe links), a dashboard at
 * `/dashboards/{customUrl}` (+ `/data.json`, `/runs/{resultId}`), either at `/` when the
 * request's Host is its `customDomain`, and the pages' script. Runs before authentication;
 * anything else falls through to the API.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/env.js';
import { readStreamLimited } from '../http/route.js';
import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { StoredStatusPage, Subscription } from '../status-pages/model.js';
import { addSubscriptions } from '../status-pages/subscriptions.js';
import { hashKey, type StoredKey } from '../resources/keys.js';
import { sameDomain } from '../resources/custom-domains.js';
import { html } from './html.js';
import { layout, newNonce, pageHeaders, SCRIPT_PATH } from './layout.js';
import { PAGE_SCRIPT } from './script.js';
import { renderAtom, renderLive, renderStatusPage, renderUnsubscribe, statusPageModel, type SubscribeNotice } from './status.js';
import { dashboardData, dashboardPath, dashboardRun, renderDashboard, renderRun, type DashboardRecord } from './dashboard.js';
import { themeCss } from './theme.js';

type Found<T> = { account: string; record: T } | undefined;
type Dashboard = DashboardRecord & { keys?: Array<StoredKey & { keyHash?: string }> };


const email = z.email();

/** A path segment decoded, or null when it is not valid percent-encoding. */
function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Bytes a subscribe form may send (an address is at most 320 characters). */
const FORM_LIMIT = 4096;

/** The url-encoded form of a request, or null when it is larger than FORM_LIMIT bytes. */
async function readForm(c: Context<AppEnv>): Promise<URLSearchParams | null> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > FORM_LIMIT) return null;
  const text = await readStreamLimited(c.req.raw.body, FORM_LIMIT);
  return text === null ? null : new URLSearchParams(text);
}

/** The Host header's name, lower case, without port. */
function hostName(c: Context<AppEnv>): string | null {
  const host = c.req.header('host');
  if (!host) return null;
  return host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
}


function plainPage(status: number, title: string, message: string, extra: Record<string, string> = {}): Response {
  const nonce = newNonce();
  const body = layout({
    nonce,
    title,
    themeCss: themeCss(null, 'AUTO'),
    header: html`<header class="top"><div class="inner"><span class="site">${title}</span></div></header>`,
    main: html`<h1>${title}</h1><p>${message}</p>`,
  });
  return new Response(body, { status, headers: { ...pageHeaders(nonce), ...extra } });
}

const notFoundPage = () => plainPage(404, 'Page not found', 'There is no page at this address.');
const unauthorizedPage = () =>
  plainPage(401, 'Key required', 'This dashboard is private. Open it with one of its keys (?key=... or Authorization: Bearer).', {
    'www-authenticate': 'Bearer realm="dashboard"',
  });

function htmlResponse(body: string, nonce: string, status = 200): Response {
  return new Response(body, { status, headers: pageHeaders(nonce) });
}

/** The middleware serving the public pages; installed before authentication. */
export function publicPages(ctx: ServerContext): MiddlewareHandler<AppEnv> {
  const { store, options } = ctx;

  const statusBy = (match: (p: StoredStatusPage) => boolean): Found<StoredStatusPage> => {
    for (const found of store.everywhere<StoredStatusPage>(STATUS_COLL.statusPages)) if (match(found.record)) return found;
    return undefined;
  };
  const dashboardBy = (match: (d: Dashboard) => boolean): Found<Dashboard> => {
    for (const found of store.everywhere<Dashboard>(COLL.dashboards)) if (match(found.record)) return found;
    return undefined;
  };

  /** The key a request presents: `?key=` or `Authorization: Bearer`. */
  const presented = (c: Context<AppEnv>): string | null => {
    const q = c.req.query('key');
    if (q) return q;
    const m = /^Bearer\s+(\S+)$/i.exec((c.req.header('authorization') ?? '').trim());
    return m ? m[1] : null;
  };

  const keyOpens = (d: Dashboard, key: string): boolean => {
    const h = Buffer.from(hashKey(key), 'hex');
    let ok = false;
    for (const k of d.keys ?? []) {
      if (typeof k.keyHash === 'string' && k.keyHash.length === 64 && timingSafeEqual(Buffer.from(k.keyHash, 'hex'), h)) ok = true;
    }
    return ok;
  };

  /**
   * A dashboard the request may see, or the answer: 404 when it does not exist and no key is
   * presented; 401 for a private one without a matching key, and for any presented key that
   * opens nothing (so a key never tells whether a dashboard exists).
   */
  const openDashboard = (c: Context<AppEnv>, found: Found<Dashboard>): { account: string; record: Dashboard } | Response => {
    const key = presented(c);
    if (!found) return key ? unauthorizedPage() : notFoundPage();
    if (found.record.isPrivate === true && !(key && keyOpens(found.record, key))) return unauthorizedPage();
    return found;
  };

  const statusPage = async (c: Context<AppEnv>, found: Found<StoredStatusPage>, rest: string): Promise<Response> => {
    if (!found) return notFoundPage();
    const { account, record: page } = found;
    const method = c.req.method;
    const now = options.now();
    const read = method === 'GET' || method === 'HEAD';
    if (rest === '' && read) {
      const nonce = newNonce();
      return htmlResponse(renderStatusPage(statusPageModel(store.view(account), page, now), nonce), nonce);
    }
    if (rest === '/live' && read) {
      const nonce = newNonce();
      return htmlResponse(renderLive(statusPageModel(store.view(account), page, now)).value, nonce);
    }
    if (rest === '/feed.atom' && read) {
      const origin = new URL(c.req.url).origin;
      return new Response(renderAtom(statusPageModel(store.view(account), page, now), origin), {
        headers: { 'content-type': 'application/atom+xml; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
      });
    }
    if (rest === '/subscriptions' && method === 'POST') {
      const form = await readForm(c);
      if (form === null) return plainPage(413, 'Too large', 'The form sent more than a subscription needs.');
      const address = (form.get('email') ?? '').trim();
      let n: SubscribeNotice;
      let status = 200;
      if (!email.safeParse(address).success || address.length > 320) {
        n = { kind: 'invalid', message: 'Please enter a valid e-mail address.' };
        status = 400;
      } else {
        const tx = store.begin(account);
        const made = addSubscriptions(tx, page.id, [address], 'PENDING', () => ctx.isoNow());
        tx.commit();
        n = made.length > 0 ? { kind: 'subscribed', subscription: made[0] } : { kind: 'already' };
        status = made.length > 0 ? 201 : 200;
      }
      const nonce = newNonce();
      return htmlResponse(renderStatusPage(statusPageModel(store.view(account), page, now), nonce, n), nonce, status);
    }
    const unsub = /^\/unsubscribe\/([^/]+)$/.exec(rest);
    if (unsub) {
      const id = decode(unsub[1]);
      const sub = id === null ? undefined : store.view(account).get<Subscription>(STATUS_COLL.subscriptions, id);
      if (!sub || sub.statusPageId !== page.id) return notFoundPage();
      const nonce = newNonce();
      if (read) return htmlResponse(renderUnsubscribe(page, sub, nonce), nonce);
      if (method === 'POST') {
        const tx = store.begin(account);
        tx.delete(STATUS_COLL.subscriptions, sub.id);
        tx.commit();
        return htmlResponse(renderStatusPage(statusPageModel(store.view(account), page, now), nonce, { kind: 'unsubscribed' }), nonce);
      }
    }
    return notFoundPage();
  };

  const dashboard = (c: Context<AppEnv>, lookup: Found<Dashboard>, rest: string): Response => {
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD') return notFoundPage();
    const opened = openDashboard(c, lookup);
    if (opened instanceof Response) return opened;
    const { account, record: d } = opened;
    const src = store.view(account);
    const now = options.now();
    if (rest === '') {
      const nonce = newNonce();
      const q = c.req.query('key');
      const dataUrl = dashboardPath(d.customUrl, '/data.json') + (q ? `?key=${encodeURIComponent(q)}` : '');
      return htmlResponse(renderDashboard(d, dashboardData(src, d, now), nonce, dataUrl), nonce);
    }
    if (rest === '/data.json') {
      return new Response(JSON.stringify(dashboardData(src, d, now)), {
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
      });
    }
    const run = /^\/runs\/([^/]+)$/.exec(rest);
    if (run) {
      const id = decode(run[1]);
      const found = id === null ? undefined : dashboardRun(src, d, id);
      if (!found) return notFoundPage();
      const nonce = newNonce();
      return htmlResponse(renderRun(d, found.check, found.result, nonce), nonce);
    }
    return notFoundPage();
  };

  return async (c, next) => {
    const path = c.req.path;
    if (path === SCRIPT_PATH) {
      return new Response(PAGE_SCRIPT, {
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' },
      });
    }
    const status = /^\/status\/([^/]+)(\/.*)?$/.exec(path);
    if (status) {
      const url = decode(status[1]);
      return statusPage(c, statusBy((p) => p.url === url), status[2] ?? '');
    }
    const dash = /^\/dashboards\/([^/]+)(\/.*)?$/.exec(path);
    if (dash) {
      const url = decode(dash[1]);
      return dashboard(c, dashboardBy((d) => d.customUrl === url), dash[2] ?? '');
    }
    const host = hostName(c);
    if (host && (path === '/' || path === '/feed.atom')) {
      const page = statusBy((p) => sameDomain(p.customDomain, host));
      if (page) return statusPage(c, page, path === '/' ? '' : path);
      const d = path === '/' ? dashboardBy((x) => sameDomain(x.customDomain, host)) : undefined;
      if (d) return dashboard(c, d, '');
    }
    return next();
  };
}
