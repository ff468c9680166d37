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
import { readStreamLimited } from '../../runner/bounded-read.js';
import type { ServerContext } from '../context.js';
import { COLL } from '../kinds.js';
import { STATUS_COLL } from '../rundata/collections.js';
import type { StoredStatusPage, Subscription } from '../status-pages/model.js';
import { addSubscription, MAX_SUBSCRIPTIONS_PER_ADDRESS, MAX_SUBSCRIPTIONS_PER_PAGE, removeSubscription } from '../status-pages/subscriptions.js';
import { verifyLink, type LinkPurpose, type LinkRefusal } from '../status-pages/links.js';
import { stageConfirmation } from '../status-pages/mails.js';
import { ClientLimiter } from '../http/client-limit.js';
import { inTransaction } from '../http/write.js';
import { hashKey, type StoredKey } from '../resources/keys.js';
import { html, htmlBytes, Html } from './html.js';
import { layout, pageHeaders, SCRIPT_PATH, type PageDoc } from './layout.js';
import { PAGE_SCRIPT } from './script.js';
import { STATE_LABEL, renderAtom, renderLive, renderLinkForm, renderStatusPage, statusPageModel, type SubscribeNotice } from './status.js';
import { dashboardData, dashboardPath, dashboardRun, heartbeatStateOf, renderDashboard, renderDashboardLive, renderRun, selectChecks, stateOf, CHECK_STATE_LABEL, type CheckLike, type DashboardRecord, type PingReads } from './dashboard.js';
import { renderCheckPage, type CheckPageModel } from './check.js';
import { RECENT_PINGS, RECENT_RUNS, seriesOf, storeFigures, type FiguresSource } from './figures.js';
import { badge, dayWindow, hourWindow, seriesSummary, type BadgeState } from './svg.js';
import { publicBase } from '../status-pages/links.js';
import { themeCss } from './theme.js';
import { PublicPageCache } from './cache.js';
import { runReads } from '../rundata/figures.js';
import { PageDirectory, type Found } from './directory.js';
import { RUN_COLL } from '../rundata/collections.js';
import type { HeartbeatEvent } from '../rundata/types.js';

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

/** The answer to a confirmation or unsubscribe link that is forged, used up or expired: nothing changes. */
function linkRefused(why: LinkRefusal): Response {
  return why === 'expired'
    ? plainPage(400, 'Link expired', 'This confirmation link has expired. Subscribe again on the status page to get a new one.')
    : plainPage(400, 'Invalid link', 'This link is not valid, or what it was for is done already.');
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
  const page = layout({
    title,
    themeCss: themeCss(null, 'AUTO'),
    header: html`<header class="top"><div class="inner"><span class="site">${title}</span></div></header>`,
    main: html`<h1>${title}</h1><p>${message}</p>`,
  });
  return new Response(page.html, { status, headers: { ...pageHeaders(page.styles), ...extra } });
}

const notFoundPage = () => plainPage(404, 'Page not found', 'There is no page at this address.');
const unauthorizedPage = () =>
  plainPage(401, 'Key required', 'This dashboard is private. Open it with one of its keys (?key=... or Authorization: Bearer).', {
    'www-authenticate': 'Bearer realm="dashboard"',
  });

/**
 * An HTML answer: a whole page (its styles allowed by their hashes) or a fragment (no style at
 * all). The body is handed over as UTF-8 bytes, encoded chunk by chunk (html.ts htmlBytes): a string
 * body would be scanned character by character by the Response constructor (its USVString
 * conversion) before being encoded anyway.
 */
function htmlResponse(page: PageDoc | Html | string, status = 200): Response {
  const [doc, styles] = typeof page === 'string' || page instanceof Html ? [page, []] : [page.doc, page.styles];
  return new Response(htmlBytes(doc), { status, headers: pageHeaders(styles) });
}

/** A badge image: no script or style may run in it, cached briefly unless it is private. */
function badgeResponse(svg: string, isPrivate: boolean): Response {
  return new Response(svg, {
    headers: {
      'content-type': 'image/svg+xml; charset=utf-8',
      'content-security-policy': "default-src 'none'",
      'x-content-type-options': 'nosniff',
      'cache-control': isPrivate ? 'no-store' : 'public, max-age=60',
    },
  });
}

/** Percent with two decimals, or null without runs. */
const uptimeOf = (runs: number, failed: number): number | null => (runs === 0 ? null : Math.floor((10_000 * (runs - failed)) / runs) / 100);

/** The message of a badge: state and uptime. */
export function badgeMessage(stateLabel: string, uptime: number | null, window: string): string {
  return uptime === null ? stateLabel.toLowerCase() : `${stateLabel.toLowerCase()} · ${uptime.toFixed(2)} % (${window})`;
}

/** The middleware serving the public pages; installed before authentication. */
export function publicPages(ctx: ServerContext): MiddlewareHandler<AppEnv> {
  const { store, options } = ctx;
  const formPosts = new ClientLimiter(options.subscribeRateLimit.limit, options.subscribeRateLimit.windowSeconds * 1000);
  const visits = new ClientLimiter(options.pageRateLimit.limit, options.pageRateLimit.windowSeconds * 1000);
  // What this instance changes drops the cached pages at once; run data ages out with the TTL.
  const cache = new PublicPageCache(
    store,
    options.pageCacheSeconds * 1000,
    [STATUS_COLL.statusPages, STATUS_COLL.services, STATUS_COLL.incidents, COLL.dashboards, COLL.checks, COLL.maintenanceWindows],
  );

  // The pages by address and custom domain, held in memory while their kind is unchanged.
  const statusPages = new PageDirectory<StoredStatusPage>(store, STATUS_COLL.statusPages, 'url');
  const dashboards = new PageDirectory<Dashboard>(store, COLL.dashboards, 'customUrl');

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
      return htmlResponse(renderStatusPage(await statusPageModel(store.followerView(account), page, now, storeFigures(store, account))));
    }
    if (rest === '/live' && read) {
      return htmlResponse(renderLive(await statusPageModel(store.followerView(account), page, now, storeFigures(store, account))));
    }
    if (rest === '/badge.svg' && read) {
      const m = await statusPageModel(store.followerView(account), page, now, storeFigures(store, account));
      const state: BadgeState = m.overall === 'no-data' ? 'no-data' : m.overall === 'operational' ? 'passing' : m.overall === 'minor' || m.overall === 'degraded' ? 'degraded' : 'failing';
      return badgeResponse(badge(page.name, badgeMessage(STATE_LABEL[m.overall], m.uptime, `${m.windowDays} d`), state), false);
    }
    if (rest === '/feed.atom' && read) {
      const origin = new URL(c.req.url).origin;
      return new Response(renderAtom(await statusPageModel(store.followerView(account), page, now), origin), {
        headers: { 'content-type': 'application/atom+xml; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
      });
    }
    if (rest === '/subscriptions' && method === 'POST') return subscribe(c, account, page, now);
    const link = /^\/(confirm|unsubscribe)\/([^/]+)$/.exec(rest);
    if (link && (read || method === 'POST')) {
      const purpose = link[1] as LinkPurpose;
      const token = decode(link[2]) ?? '';
      const found = verifyLink(store, purpose, page.id, token, (id) => store.get<Subscription>(account, STATUS_COLL.subscriptions, id), now);
      if (typeof found === 'string') return linkRefused(found);
      // GET shows a button; only its POST (or a mail client's one-click POST, RFC 8058) acts.
      if (read) return htmlResponse(renderLinkForm(page, purpose, token));
      inTransaction(store, account, (tx) => {
        if (purpose === 'confirm') {
          if (found.status !== 'VERIFIED') tx.put(STATUS_COLL.subscriptions, found.id, { ...found, status: 'VERIFIED', updated_at: ctx.isoNow() });
        } else removeSubscription(tx, found, now);
      });
      const n: SubscribeNotice = { kind: purpose === 'confirm' ? 'confirmed' : 'unsubscribed' };
      return htmlResponse(renderStatusPage(await statusPageModel(store.view(account), page, now, storeFigures(store, account)), n));
    }
    return notFoundPage();
  };

  /**
   * A post of the subscribe form. Every valid address gets the same answer ("check your inbox"),
   * whatever happened: a new subscription and its confirmation mail, the confirmation sent again
   * for a pending one, nothing for a confirmed one or when a bound is reached (logged). Each post
   * reads a fixed number of records whatever the number of subscriptions.
   */
  const subscribe = async (c: Context<AppEnv>, account: string, page: StoredStatusPage, now: number): Promise<Response> => {
    const wait = options.subscribeRateLimit.limit === 0 ? 0 : formPosts.take(c.env?.incoming?.socket.remoteAddress ?? 'in-process', now);
    if (wait > 0) return plainPage(429, 'Too many requests', `This address sent too many subscriptions. Try again in ${wait} s.`, { 'retry-after': String(wait) });
    const form = await readForm(c);
    if (form === null) return plainPage(413, 'Too large', 'The form sent more than a subscription needs.');
    const address = (form.get('email') ?? '').trim();
    if (address.length > 320 || !email.safeParse(address).success) {
      const n: SubscribeNotice = { kind: 'invalid', message: 'Please enter a valid e-mail address.' };
      return htmlResponse(renderStatusPage(await statusPageModel(store.view(account), page, now, storeFigures(store, account)), n), 400);
    }
    const queued = inTransaction(store, account, (tx) => {
      const made = addSubscription(tx, page.id, address, 'PENDING', now);
      if ((made.kind === 'created' || made.kind === 'exists') && made.subscription.status === 'PENDING') return stageConfirmation(ctx, tx, page, made.subscription, now);
      if (made.kind === 'page-full' || made.kind === 'address-full') {
        ctx.log.event('subscription.refused', { account, page: page.id, reason: made.kind === 'page-full' ? `the page has ${MAX_SUBSCRIPTIONS_PER_PAGE} subscriptions` : `the address has ${MAX_SUBSCRIPTIONS_PER_ADDRESS} subscriptions` }, 'warn');
      }
      return false;
    });
    if (queued) ctx.outbox.kick();
    return htmlResponse(renderStatusPage(await statusPageModel(store.view(account), page, now, storeFigures(store, account)), { kind: 'check-inbox' }));
  };

  /** A heartbeat's newest events of an account (its pings, off the main thread on a database). */
  const pingsOf = (account: string): PingReads => (checkId, fromMs, limit) =>
    store.queryAsync<HeartbeatEvent & { [k: string]: unknown }>(account, RUN_COLL.heartbeatEvents, { checkId, fromMs, order: 'time-desc', limit, fields: ['state', 'timestamp'] });

  /** The 24-hour and 30-day series of a check. */
  const chartsOf = async (figures: FiguresSource, check: CheckLike, now: number) => {
    const [day, month] = await Promise.all([seriesOf(figures, check.id, hourWindow(now), check.created_at), seriesOf(figures, check.id, dayWindow(now), check.created_at)]);
    return { day, month };
  };

  const dashboard = async (c: Context<AppEnv>, lookup: Found<Dashboard>, rest: string): Promise<Response> => {
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD') return notFoundPage();
    const opened = openDashboard(c, lookup);
    if (opened instanceof Response) return opened;
    const { account, record: d } = opened;
    const src = store.followerView(account);
    const now = options.now();
    const q = c.req.query('key');
    // Links within a dashboard opened with ?key= carry the key on.
    const withKey = (path: string) => path + (q ? `?key=${encodeURIComponent(q)}` : '');
    if (rest === '' || rest === '/live') {
      const reads = runReads(store, account);
      const figures = storeFigures(store, account, reads);
      const byId = new Map(src.list<CheckLike>(COLL.checks).map((x) => [x.id, x]));
      const shown = selectChecks([...byId.values()], d.tags, d.useTagsAndOperator);
      // The list's figures and every chart read side by side (a heartbeat has no response times: no chart).
      const [data, chartList] = await Promise.all([dashboardData(src, reads, d, now, pingsOf(account)), Promise.all(shown.filter((x) => x.checkType !== 'HEARTBEAT').map(async (x) => [x.id, await chartsOf(figures, x, now)] as const))]);
      const charts = new Map(chartList);
      const hrefOf = (id: string) => withKey(dashboardPath(d.customUrl, `/checks/${encodeURIComponent(id)}`));
      if (rest === '/live') return htmlResponse(renderDashboardLive(d, data, { hrefOf, charts }));
      // The script refreshes the list from /live (with the page's key).
      return htmlResponse(renderDashboard(d, data, withKey(dashboardPath(d.customUrl, '/live')), { hrefOf, charts }));
    }
    const checkPath = /^\/checks\/([^/]+)(\/badge\.svg)?$/.exec(rest);
    if (checkPath) {
      const id = decode(checkPath[1]);
      const check = id === null ? undefined : selectChecks(src.list<CheckLike>(COLL.checks), d.tags, d.useTagsAndOperator).find((x) => x.id === id);
      if (!check) return notFoundPage();
      const figures = storeFigures(store, account);
      const heartbeat = check.checkType === 'HEARTBEAT';
      // A heartbeat's state is that of its newest event (a ping or a missed deadline): it has no results.
      const pings = heartbeat ? await figures.recentPings(check.id, RECENT_PINGS) : [];
      const latest = heartbeat ? undefined : (await figures.recentResults(check.id, 1))[0];
      const state = heartbeat ? heartbeatStateOf(pings[0]) : latest ? stateOf(latest) : 'no-data';
      if (checkPath[2]) {
        // Counts of the 30 days only: the badge shows no response time.
        const w = dayWindow(now);
        const month = seriesSummary({ ...w, buckets: await figures.buckets(check.id, w.fromMs, w.toMs, w.bucketMs, { responseTimes: false }), sinceMs: null });
        const uptime = uptimeOf(month.runs, month.failed);
        return badgeResponse(badge(check.name, badgeMessage(CHECK_STATE_LABEL[state], uptime, '30 d'), state as BadgeState), d.isPrivate === true);
      }
      const [charts, runs] = await Promise.all([chartsOf(figures, check, now), d.showCheckRunLinks === true ? figures.recentResults(check.id, RECENT_RUNS) : []]);
      const model: CheckPageModel = { check, state, ...charts, showRuns: d.showCheckRunLinks === true, runs };
      if (heartbeat) {
        const token = (check.heartbeat as { pingToken?: unknown } | undefined)?.pingToken;
        model.heartbeat = {
          pings,
          pingUrl: d.isPrivate === true && typeof token === 'string' ? `${publicBase(ctx)}/ping/${encodeURIComponent(token)}` : null,
        };
      }
      return htmlResponse(renderCheckPage(d, model, withKey(dashboardPath(d.customUrl))));
    }
    if (rest === '/data.json') {
      return new Response(JSON.stringify(await dashboardData(src, runReads(store, account), d, now, pingsOf(account))), {
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
      });
    }
    const run = /^\/runs\/([^/]+)$/.exec(rest);
    if (run) {
      const id = decode(run[1]);
      const found = id === null ? undefined : dashboardRun(src, d, id);
      if (!found) return notFoundPage();
      return htmlResponse(renderRun(d, found.check, found.result));
    }
    return notFoundPage();
  };

  /** The public answer of a request, or undefined when the path is not a public page's. */
  const answer = async (c: Context<AppEnv>): Promise<Response | undefined> => {
    const path = c.req.path;
    // What other instances wrote, read off the main thread: the lookup and the configuration the
    // page shows are then read from memory (Store.followerView).
    await store.followOthers();
    const status = /^\/status\/([^/]+)(\/.*)?$/.exec(path);
    if (status) {
      const url = decode(status[1]);
      return statusPage(c, url === null ? undefined : await statusPages.byAddress(url), status[2] ?? '');
    }
    const dash = /^\/dashboards\/([^/]+)(\/.*)?$/.exec(path);
    if (dash) {
      const url = decode(dash[1]);
      return dashboard(c, url === null ? undefined : await dashboards.byAddress(url), dash[2] ?? '');
    }
    const host = hostName(c);
    if (host && (path === '/' || path === '/feed.atom')) {
      const page = await statusPages.byDomain(host);
      if (page) return statusPage(c, page, path === '/' ? '' : path);
      const d = path === '/' ? await dashboards.byDomain(host) : undefined;
      if (d) return dashboard(c, d, '');
    }
    return undefined;
  };

  /** Whether `/` or `/feed.atom` of this host is a public page's (its custom domain). */
  const onCustomDomain = async (host: string, path: string): Promise<boolean> => {
    await store.followOthers();
    return (await statusPages.byDomain(host)) !== undefined || (path === '/' && (await dashboards.byDomain(host)) !== undefined);
  };

  return async (c, next) => {
    const path = c.req.path;
    if (path === SCRIPT_PATH) {
      return new Response(PAGE_SCRIPT, {
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' },
      });
    }
    const host = hostName(c);
    const publicPath = /^\/(status|dashboards)\//.test(path) || (host !== null && (path === '/' || path === '/feed.atom') && (await onCustomDomain(host, path)));
    if (!publicPath) return next();
    // Every request of a public page counts against its client address, cached or not.
    if (options.pageRateLimit.limit > 0) {
      // Real time, not the service's clock (which tests stop or speed up).
      const wait = visits.take(c.env?.incoming?.socket.remoteAddress ?? 'in-process', Date.now());
      if (wait > 0) {
        ctx.metrics?.pageRefused();
        return plainPage(429, 'Too many requests', `This address asked for too many pages. Try again in ${wait} s.`, { 'retry-after': String(wait) });
      }
    }
    const method = c.req.method;
    const rest = path.replace(/^\/(status|dashboards)\/[^/]+/, '');
    // Reads of what every visitor sees alike: shared for a few seconds (links and forms are not):
    // pages, their data and feeds, check pages, run pages and badges.
    const shared =
      (method === 'GET' || method === 'HEAD') &&
      (rest === '' || rest === '/' || rest === '/live' || rest === '/feed.atom' || rest === '/data.json' || rest === '/badge.svg' || /^\/(runs|checks)\/[^/]+$/.test(rest) || /^\/checks\/[^/]+\/badge\.svg$/.test(rest));
    if (!shared) return (await answer(c)) ?? next().then(() => c.res);
    const key = presented(c);
    // A held page may be rendered again after its visitor was answered (in the background, while
    // the stale one is served): the rendering answers by itself, never through the rest of the
    // chain (a custom domain whose page went away in between: 404).
    const render = async () => (await answer(c)) ?? notFoundPage();
    return cache.get(PublicPageCache.key(host ?? '', path, key), render, { acceptEncoding: c.req.header('accept-encoding'), ifNoneMatch: c.req.header('if-none-match'), keyPresented: key !== null });
  };
}
