/**
 * The public dashboard: the account's checks selected by the dashboard's tags, each with its state
 * from its latest result, 24-hour availability and response-time percentiles. The same data feeds
 * the HTML (no JavaScript needed) and the page's JSON (`data.json`, what the script refreshes).
 */
import type { AccountView } from '../store/store.js';
import { COLL } from '../kinds.js';
import { RUN_COLL, STATUS_COLL } from '../rundata/collections.js';
import type { RunReads } from '../rundata/figures.js';
import type { CheckResult, HeartbeatEvent } from '../rundata/types.js';
import type { StoredIncident } from '../status-pages/model.js';
import { incidentFacts } from './status.js';
import { html, safeUrl, type Html } from './html.js';
import { layout, type PageDoc } from './layout.js';
import { themeCss } from './theme.js';
import type { Series } from './svg.js';
import { checkCharts, failureBlock, failureFacts } from './check.js';

const HOUR = 3_600_000;

/** The stored dashboard fields the page reads. */
export interface DashboardRecord {
  [key: string]: unknown;
  dashboardId: string;
  customUrl: string;
  customDomain: string | null;
  header?: string | null;
  description?: string | null;
  logo?: string | null;
  favicon?: string | null;
  link?: string | null;
  width?: string;
  refreshRate?: number;
  paginate?: boolean;
  paginationRate?: number;
  checksPerPage?: number;
  useTagsAndOperator?: boolean;
  hideTags?: boolean;
  enableIncidents?: boolean;
  expandChecks?: boolean;
  tags?: string[];
  showHeader?: boolean;
  showCheckRunLinks?: boolean;
  customCSS?: string;
  isPrivate?: boolean;
  showP95?: boolean;
  showP99?: boolean;
}

/** A stored check, as far as a dashboard reads it. */
export interface CheckLike {
  [key: string]: unknown;
  id: string;
  name: string;
  checkType?: string;
  activated?: boolean;
  tags?: string[];
}

/** Checks of the dashboard: by tags (all of them with `useTagsAndOperator`, else any), all when no tags; by name. */
export function selectChecks<T extends CheckLike>(checks: T[], tags: string[] | undefined, and: boolean | undefined): T[] {
  const wanted = tags ?? [];
  const picked =
    wanted.length === 0
      ? checks
      : checks.filter((c) => {
          const own = new Set(c.tags ?? []);
          return and ? wanted.every((t) => own.has(t)) : wanted.some((t) => own.has(t));
        });
  return [...picked].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** A check's state from its latest FINAL result. */
export type CheckState = 'passing' | 'degraded' | 'failing' | 'no-data';
/** How each state reads. */
export const CHECK_STATE_LABEL: Record<CheckState, string> = { passing: 'Passing', degraded: 'Degraded', failing: 'Failing', 'no-data': 'No data' };
const CHECK_STATE_ICON: Record<CheckState, string> = { passing: '✓', degraded: '!', failing: '✕', 'no-data': '–' };

const failed = (r: Pick<CheckResult, 'hasFailures' | 'hasErrors'>) => r.hasFailures === true || r.hasErrors === true;
/** The state one result gives its check. */
/**
 * A heartbeat's newest events (its pings and missed deadlines; it has no check results), newest
 * first: at most `limit`, none older than `fromMs`.
 */
export type PingReads = (checkId: string, fromMs: number, limit: number) => Promise<Array<Pick<HeartbeatEvent, 'state' | 'timestamp'>>>;

/** Events of the last 24 hours a heartbeat's card reduces at most (one ping every 17 s). */
export const HEARTBEAT_CARD_EVENTS = 5000;

/** A heartbeat's state from its newest event: failing after a missed deadline, passing after a ping, no data before either. */
export const heartbeatStateOf = (newest: Pick<HeartbeatEvent, 'state'> | undefined): CheckState => (!newest ? 'no-data' : newest.state === 'FAILING' ? 'failing' : 'passing');

/** Pings (RECEIVED, EARLY, GRACE) among a heartbeat's events, as in the API's success ratio; null without events. */
function heartbeatAvailability(events: ReadonlyArray<Pick<HeartbeatEvent, 'state'>>): number | null {
  if (events.length === 0) return null;
  const ok = events.filter((e) => e.state === 'RECEIVED' || e.state === 'EARLY' || e.state === 'GRACE').length;
  return Math.floor((10_000 * ok) / events.length) / 100;
}

export const stateOf = (r: CheckResult): CheckState => (failed(r) ? 'failing' : r.isDegraded ? 'degraded' : 'passing');

/** One check as the page shows it (and as data.json returns it). */
export interface DashboardCheck {
  id: string;
  name: string;
  checkType: string | null;
  state: CheckState;
  stateLabel: string;
  /** Percent of the last 24 hours' FINAL results that passed (degraded counts as up), 2 decimals; null without results. */
  availability24h: number | null;
  p95?: number | null;
  p99?: number | null;
  tags?: string[];
  /** The newest FINAL result; for a heartbeat, its newest event (a ping, or a missed deadline), with no location or response time. */
  lastRun: { at: string; location: string | null; responseTime: number | null } | null;
  runHref?: string | null;
}

/** An open incident shown on the dashboard. */
export interface DashboardIncident {
  name: string;
  severity: string;
  status: string;
  description: string;
  at: string;
}

/** The page's data. */
export interface DashboardData {
  generatedAt: string;
  refreshRate: number;
  paginate: boolean;
  paginationRate: number;
  checksPerPage: number;
  checks: DashboardCheck[];
  incidents?: DashboardIncident[];
}

/** Path of a dashboard and its parts. */
export const dashboardPath = (customUrl: string, rest = '') => `/dashboards/${encodeURIComponent(customUrl)}${rest}`;

/** Fields of the latest result a dashboard shows. */
const LATEST_FIELDS = ['id', 'startedAt', 'runLocation', 'responseTime', 'hasFailures', 'hasErrors', 'isDegraded'] as const;

/**
 * The data of a dashboard at `nowMs`: only what the dashboard's options show. Per check, one
 * reduction of the last 24 hours in the database and its newest FINAL result: the work does not
 * grow with the check's history.
 */
export async function dashboardData(src: AccountView, runs: RunReads, d: DashboardRecord, nowMs: number, pings?: PingReads): Promise<DashboardData> {
  const checks = selectChecks(src.list<CheckLike>(COLL.checks), d.tags, d.useTagsAndOperator);
  const times = d.showP95 !== false || d.showP99 !== false;
  // The last 24 hours, results of this very millisecond included.
  const window = { fromMs: nowMs - 24 * HOUR, toMs: nowMs + 1, bucketMs: 24 * HOUR + 1 };
  const common = (c: CheckLike) => ({ id: c.id, name: c.name, checkType: typeof c.checkType === 'string' ? c.checkType : null });
  const finish = (c: CheckLike, row: DashboardCheck): DashboardCheck => {
    if (d.hideTags !== true) row.tags = c.tags ?? [];
    return row;
  };
  // Every check's reads side by side (off the main thread on a database).
  const rows = await Promise.all(checks.map(async (c): Promise<DashboardCheck> => {
    if (c.checkType === 'HEARTBEAT' && pings) {
      // A heartbeat records events of its pings, not check results: its card reads those.
      const events = await pings(c.id, window.fromMs, HEARTBEAT_CARD_EVENTS);
      const newest = events[0];
      const state = heartbeatStateOf(newest);
      const row: DashboardCheck = {
        ...common(c),
        state,
        stateLabel: CHECK_STATE_LABEL[state],
        availability24h: heartbeatAvailability(events),
        lastRun: newest ? { at: newest.timestamp, location: null, responseTime: null } : null,
      };
      if (d.showP95 !== false) row.p95 = null;
      if (d.showP99 !== false) row.p99 = null;
      if (d.showCheckRunLinks === true) row.runHref = null;
      return finish(c, row);
    }
    const [latestRows, figures] = await Promise.all([runs.latest(c.id, 1, LATEST_FIELDS), runs.figures(c.id, window, { responseTimes: times })]);
    const latest = latestRows[0];
    const state: CheckState = !latest ? 'no-data' : failed(latest) ? 'failing' : latest.isDegraded ? 'degraded' : 'passing';
    const day = figures.total;
    const row: DashboardCheck = {
      ...common(c),
      state,
      stateLabel: CHECK_STATE_LABEL[state],
      availability24h: day.availability,
      lastRun: latest ? { at: latest.startedAt, location: latest.runLocation, responseTime: latest.responseTime } : null,
    };
    if (d.showP95 !== false) row.p95 = day.responseTime?.p95 ?? null;
    if (d.showP99 !== false) row.p99 = day.responseTime?.p99 ?? null;
    if (d.showCheckRunLinks === true) row.runHref = latest ? dashboardPath(d.customUrl, `/runs/${encodeURIComponent(latest.id)}`) : null;
    return finish(c, row);
  }));
  const data: DashboardData = {
    generatedAt: new Date(nowMs).toISOString(),
    refreshRate: positive(d.refreshRate, 60),
    paginate: d.paginate !== false,
    paginationRate: positive(d.paginationRate, 60),
    checksPerPage: positive(d.checksPerPage, 15),
    checks: rows,
  };
  if (d.enableIncidents === true) data.incidents = openIncidents(src);
  return data;
}

function positive(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The account's open incidents, newest first, with their newest update. */
export function openIncidents(src: AccountView): DashboardIncident[] {
  return src
    .list<StoredIncident>(STATUS_COLL.incidents)
    .map(incidentFacts)
    .filter((f) => f.open)
    .sort((a, b) => b.startMs - a.startMs)
    .map((f) => {
      const u = f.updatesNewestFirst[0];
      return { name: f.incident.name, severity: f.incident.severity, status: u?.status ?? 'INVESTIGATING', description: u?.description ?? '', at: u?.publicIncidentUpdateDate ?? f.incident.created_at };
    });
}

/** A result of one of the dashboard's checks (the check-run page), or undefined. */
export function dashboardRun(src: AccountView, d: DashboardRecord, resultId: string): { check: CheckLike; result: CheckResult } | undefined {
  if (d.showCheckRunLinks !== true) return undefined;
  const result = src.get<CheckResult & { [k: string]: unknown }>(RUN_COLL.checkResults, resultId);
  if (!result) return undefined;
  const check = selectChecks(src.list<CheckLike>(COLL.checks), d.tags, d.useTagsAndOperator).find((c) => c.id === result.checkId);
  return check ? { check, result } : undefined;
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v} ms`);
const pct = (v: number | null) => (v === null ? '–' : `${v.toFixed(2)} %`);

/** The markup of one check (the script builds the same structure from data.json). */
export function checkItem(c: DashboardCheck, expand: boolean, page: number | null, extra?: { href: string; charts?: { day: Series; month: Series } }): Html {
  return html`<li class="check" data-check="${c.id}"${page === null ? '' : html` data-page="${page}"`}>
<h3>${extra ? html`<a href="${extra.href}">${c.name}</a>` : c.name}</h3>
<p class="state s-${c.state}"><span aria-hidden="true">${CHECK_STATE_ICON[c.state]} </span>${c.stateLabel}</p>
<dl><div><dt>Availability (24 h)</dt><dd>${pct(c.availability24h)}</dd></div>${'p95' in c ? html`<div><dt>p95</dt><dd>${ms(c.p95)}</dd></div>` : ''}${'p99' in c ? html`<div><dt>p99</dt><dd>${ms(c.p99)}</dd></div>` : ''}</dl>
${extra?.charts ? checkCharts({ check: c, ...extra.charts }, 'small') : ''}
${c.tags && c.tags.length > 0 ? html`<ul class="tags" aria-label="Tags">${c.tags.map((t) => html`<li>${t}</li>`)}</ul>` : ''}
<details${expand ? ' open' : ''}><summary>Details</summary><dl>
<div><dt>Type</dt><dd>${c.checkType ?? '–'}</dd></div>
<div><dt>${c.checkType === 'HEARTBEAT' ? 'Last event' : 'Last run'}</dt><dd>${c.lastRun ? c.lastRun.at.replace('T', ' ').slice(0, 19) + ' UTC' : '–'}</dd></div>
<div><dt>Location</dt><dd>${c.lastRun?.location ?? '–'}</dd></div>
<div><dt>Response time</dt><dd>${ms(c.lastRun?.responseTime)}</dd></div>
</dl></details>
${c.runHref ? html`<p><a href="${c.runHref}">Latest run<span class="sr"> of ${c.name}</span></a></p>` : ''}
</li>`;
}

function incidentItem(i: DashboardIncident): Html {
  return html`<li class="card"><h3>${i.name}</h3><p class="muted">Severity: ${i.severity.toLowerCase()} · ${i.status.toLowerCase()} · <time datetime="${i.at}">${i.at.replace('T', ' ').slice(0, 16)} UTC</time></p><p>${i.description}</p></li>`;
}

/** What the dashboard adds to each check: the link to its page and its charts (24 hours, 30 days). */
export interface DashboardPictures {
  hrefOf(checkId: string): string;
  charts: Map<string, { day: Series; month: Series }>;
}

const incidentsList = (data: DashboardData) =>
  html`<ul class="plain" id="incidents">${data.incidents && data.incidents.length > 0 ? data.incidents.map(incidentItem) : html`<li class="muted">No open incidents.</li>`}</ul>`;
const updatedTime = (data: DashboardData) => html`<time id="updated" datetime="${data.generatedAt}">${data.generatedAt.slice(11, 19)} UTC</time>`;
const checksList = (d: DashboardRecord, data: DashboardData, pictures?: DashboardPictures) =>
  html`<ul class="checks" id="checks">${data.checks.map((c, i) => checkItem(c, d.expandChecks === true, data.paginate ? Math.floor(i / data.checksPerPage) : null, pictures && { href: pictures.hrefOf(c.id), charts: pictures.charts.get(c.id) }))}</ul>`;

/**
 * The parts of a dashboard that change (`/live`: what its script refreshes): its incidents, the
 * time of its figures and its checks with their charts, each element by its id.
 */
export function renderDashboardLive(d: DashboardRecord, data: DashboardData, pictures?: DashboardPictures): Html {
  return html`<!doctype html><title>live</title>
${data.incidents !== undefined ? incidentsList(data) : ''}${updatedTime(data)}${checksList(d, data, pictures)}`;
}

/** The HTML of a dashboard; `liveUrl` is where the script refreshes from. */
export function renderDashboard(d: DashboardRecord, data: DashboardData, liveUrl: string, pictures?: DashboardPictures): PageDoc {
  const title = d.header || d.customUrl;
  const logo = safeUrl(d.logo);
  const link = safeUrl(d.link);
  const brand = logo ? html`<img src="${logo}" alt="${title}">` : html`<span class="site">${title}</span>`;
  const header = d.showHeader === false ? html`` : html`<header class="top"><div class="inner">${link ? html`<a href="${link}">${brand}</a>` : brand}</div></header>`;
  const per = data.checksPerPage;
  const pages = data.paginate ? Math.max(1, Math.ceil(data.checks.length / per)) : 1;
  const main = html`${d.showHeader === false ? html`<h1 class="sr">${title}</h1>` : html`<h1>${title}</h1>${d.description ? html`<p class="muted">${d.description}</p>` : ''}`}
${data.incidents !== undefined ? html`<section aria-labelledby="inc-h" id="incidents-section"><h2 id="inc-h">Open incidents</h2>${incidentsList(data)}</section>` : ''}
<section aria-labelledby="checks-h"><h2 id="checks-h">Checks</h2>
<p class="pager muted" id="pager">${data.checks.length} checks${pages > 1 ? `, ${pages} pages of ${per}` : ''} <span id="page-of"></span> · updated ${updatedTime(data)}</p>
${checksList(d, data, pictures)}
${data.checks.length === 0 ? html`<p class="muted">No checks match this dashboard.</p>` : ''}
</section>`;
  return layout({
    title,
    themeCss: themeCss(null, 'AUTO'),
    customCss: d.customCSS || undefined,
    favicon: d.favicon,
    width: d.width === '960PX' || d.width === '960px' ? '960px' : 'none',
    header,
    main,
    bodyAttrs: html` data-mac-dashboard data-src="${liveUrl}" data-refresh="${data.refreshRate}" data-paginate="${data.paginate ? 1 : 0}" data-rate="${data.paginationRate}" data-per-page="${per}" data-expand="${d.expandChecks === true ? 1 : 0}"`,
    script: true,
  });
}

/** The page of one check run (showCheckRunLinks): the result's summary and why it failed (first error, failed assertions, status code); never the request. */
export function renderRun(d: DashboardRecord, check: CheckLike, r: CheckResult): PageDoc {
  const state = stateOf(r);
  const facts = failureFacts(r);
  return layout({
    title: `${check.name}: run`,
    themeCss: themeCss(null, 'AUTO'),
    customCss: d.customCSS || undefined,
    favicon: d.favicon,
    header: html`<header class="top"><div class="inner"><a href="${dashboardPath(d.customUrl)}">${d.header || d.customUrl}</a></div></header>`,
    main: html`<h1>${check.name}</h1><p class="state s-${state}"><span aria-hidden="true">${CHECK_STATE_ICON[state]} </span>${CHECK_STATE_LABEL[state]}</p>
<dl><dt>Started</dt><dd>${r.startedAt}</dd><dt>Location</dt><dd>${r.runLocation}</dd><dt>Response time</dt><dd>${ms(r.responseTime)}</dd><dt>Status code</dt><dd>${facts.statusCode ?? '–'}</dd><dt>Attempts</dt><dd>${r.attempts}</dd></dl>
${state === 'failing' ? html`<section aria-labelledby="why-h"><h2 id="why-h">Why it failed</h2>${failureBlock(facts)}</section>` : ''}`,
  });
}
