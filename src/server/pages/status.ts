/**
 * The public status page: what a visitor sees of a stored page. Pure functions of the page, the
 * account's services and incidents, and now; routes.ts reads the store and sends the result.
 */
import type { AccountView } from '../store/store.js';
import { STATUS_COLL } from '../rundata/collections.js';
import { expandServices, type Service, type StoredIncident, type StoredStatusPage } from '../status-pages/model.js';
import { html, safeUrl, xmlEsc, type Html } from './html.js';
import { layout, type PageDoc } from './layout.js';
import { pageMaintenance, renderMaintenance, type PageMaintenance } from './maintenance.js';
import { themeCss, type Theme, type ThemeMode } from './theme.js';
import { COLL } from '../kinds.js';
import type { FiguresSource } from './figures.js';
import { uptimeBar, type BarDay } from './svg.js';

const DAY = 86_400_000;

/** `YYYY-MM-DD` of UTC days already written (a page writes the same 90 days for each of its services). */
const dayNames = new Map<number, string>();

/** The UTC date (`YYYY-MM-DD`) of a day's start, as `toISOString` writes it; formatted once per day held. */
function dayName(startMs: number): string {
  let name = dayNames.get(startMs);
  if (name === undefined) {
    // Bounded: the days of the windows of the last few months; all dropped at once past that.
    if (dayNames.size >= 1024) dayNames.clear();
    name = new Date(startMs).toISOString().slice(0, 10);
    dayNames.set(startMs, name);
  }
  return name;
}
/** Seconds between the script's refreshes of a status page. */
export const STATUS_REFRESH_SECONDS = 60;
/** Days in the history bar of a service, unless the page sets `uptimeWindowDays`. */
export const HISTORY_DAYS = 90;
/** The uptime windows a page may choose (`uptimeWindowDays`). */
export const UPTIME_WINDOWS = [30, 60, 90] as const;

/** The window of a page: its `uptimeWindowDays` when one of UPTIME_WINDOWS, else 90. */
export function windowDays(page: { uptimeWindowDays?: unknown }): number {
  return (UPTIME_WINDOWS as readonly unknown[]).includes(page.uptimeWindowDays) ? (page.uptimeWindowDays as number) : HISTORY_DAYS;
}

/**
 * A service's state: from the worst severity among its open incidents; `no-data` for a service
 * whose checks have no result in the window yet (and no open incident).
 */
export type ServiceState = 'no-data' | 'operational' | 'minor' | 'degraded' | 'partial-outage' | 'major-outage';

const BY_SEVERITY: Record<string, ServiceState> = { MINOR: 'minor', MEDIUM: 'degraded', MAJOR: 'partial-outage', CRITICAL: 'major-outage' };
const RANK: ServiceState[] = ['no-data', 'operational', 'minor', 'degraded', 'partial-outage', 'major-outage'];

/** What each state reads as (the state is always written, never only coloured). */
export const STATE_LABEL: Record<ServiceState, string> = {
  'no-data': 'No data',
  operational: 'Operational',
  minor: 'Minor issue',
  degraded: 'Degraded performance',
  'partial-outage': 'Partial outage',
  'major-outage': 'Major outage',
};
const STATE_ICON: Record<ServiceState, string> = { 'no-data': '–', operational: '✓', minor: '!', degraded: '!', 'partial-outage': '✕', 'major-outage': '✕' };

/** The worst of the states (no-data when there are none). */
const worst = (states: ServiceState[]): ServiceState => states.reduce((a, b) => (RANK.indexOf(b) > RANK.indexOf(a) ? b : a), 'no-data');

/** An incident as the page shows it: its span and updates newest first. */
export interface IncidentFacts {
  incident: StoredIncident;
  open: boolean;
  startMs: number;
  /** When it was resolved (its newest update is RESOLVED), else null. */
  endMs: number | null;
  updatesNewestFirst: StoredIncident['incidentUpdates'];
}

/** Open means its newest update is not RESOLVED; it started at its earliest update. */
export function incidentFacts(incident: StoredIncident): IncidentFacts {
  const updates = [...incident.incidentUpdates].sort((a, b) => Date.parse(a.publicIncidentUpdateDate) - Date.parse(b.publicIncidentUpdateDate));
  const newest = updates[updates.length - 1];
  const open = newest?.status !== 'RESOLVED';
  const startMs = Math.min(Date.parse(incident.created_at), ...updates.map((u) => Date.parse(u.publicIncidentUpdateDate)));
  return { incident, open, startMs, endMs: open ? null : Date.parse(newest.publicIncidentUpdateDate), updatesNewestFirst: [...updates].reverse() };
}

/** One day of a service's history bar. */
export interface DayState {
  date: string;
  state: ServiceState;
  /** Runs of the service's checks that day and how many failed (only for a service with checks). */
  runs?: number;
  failed?: number;
}

/** A service on the page with its state and history. */
export interface ServiceView {
  service: Service;
  state: ServiceState;
  days: DayState[];
  /** Percent up over the window (2 decimals, rounded down), null without data. */
  uptime: number | null;
  /** Whether checks stand behind the service (`triggerIncident.serviceId`). */
  checked: boolean;
}

/** Everything the page shows, computed once. */
export interface StatusPageModel {
  page: StoredStatusPage;
  /** Days of the uptime bars. */
  windowDays: number;
  /** Percent up over the window of the services with data (their mean), null when none has data. */
  uptime: number | null;
  cards: Array<{ id: string; name: string; services: ServiceView[] }>;
  overall: ServiceState;
  open: IncidentFacts[];
  past: IncidentFacts[];
  /** Maintenance windows of the page's services in progress and coming up. */
  maintenance: PageMaintenance;
}

/** The incidents that touch the page: those naming one of its services, newest first. */
export function pageIncidents(src: AccountView, page: StoredStatusPage): IncidentFacts[] {
  const ids = new Set(page.cards.flatMap((c) => c.services.map((s) => s.id)));
  return src
    .list<StoredIncident>(STATUS_COLL.incidents)
    .filter((i) => i.services.some((s) => ids.has(s.id)))
    .map(incidentFacts)
    .sort((a, b) => b.startMs - a.startMs);
}

/** What else decides a service's days: the window, when it was created, its checks' runs per day. */
export interface DayFacts {
  /** Days in the bar (default HISTORY_DAYS). */
  days?: number;
  /** When the service was created: days that ended before are "no data". */
  sinceMs?: number | null;
  /** Runs of the service's checks per day of the window, oldest first (a service with checks). */
  runs?: Array<{ runs: number; failed: number }>;
}

/**
 * The state a day's runs give a service: all passed, operational; otherwise by the share that
 * passed: at least 99 % minor, at least 90 % partial outage, below that major outage.
 */
export function runsState(runs: number, failed: number): ServiceState {
  if (runs === 0) return 'no-data';
  if (failed === 0) return 'operational';
  const up = (runs - failed) / runs;
  return up >= 0.99 ? 'minor' : up >= 0.9 ? 'partial-outage' : 'major-outage';
}

/**
 * The daily states of a service over the last `days` UTC days (today last): each the worst of
 * the severity of the incidents open that day and of what its checks' runs gave; "no data" for
 * the days before the service existed and, for a service with checks, the days its checks did
 * not run without an incident.
 */
export function serviceDays(serviceId: string, incidents: IncidentFacts[], nowMs: number, facts: DayFacts = {}): DayState[] {
  const count = facts.days ?? HISTORY_DAYS;
  const today = Math.floor(nowMs / DAY) * DAY;
  const mine = incidents.filter((f) => f.incident.services.some((s) => s.id === serviceId));
  const days: DayState[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const start = today - i * DAY;
    const end = start + DAY;
    const date = dayName(start);
    if (facts.sinceMs != null && end <= facts.sinceMs) {
      days.push({ date, state: 'no-data' });
      continue;
    }
    const states = mine
      .filter((f) => f.startMs < end && (f.endMs ?? nowMs) >= start && f.startMs <= nowMs)
      .map((f) => BY_SEVERITY[f.incident.severity] ?? 'minor');
    const run = facts.runs?.[count - 1 - i];
    if (facts.runs) {
      const r = run ?? { runs: 0, failed: 0 };
      days.push({ date, state: worst([runsState(r.runs, r.failed), ...states]), runs: r.runs, failed: r.failed });
    } else days.push({ date, state: worst(['operational', ...states]) });
  }
  return days;
}

/**
 * Percent up of a service over its days (2 decimals, rounded down): with checks, the share of
 * their runs that passed; without, the share of its days with data that had no incident. Null
 * without any data.
 */
export function serviceUptime(days: DayState[], checked: boolean): number | null {
  const floor2 = (x: number) => Math.floor(x * 100) / 100;
  if (checked) {
    let runs = 0;
    let failed = 0;
    for (const d of days) {
      runs += d.runs ?? 0;
      failed += d.failed ?? 0;
    }
    return runs === 0 ? null : floor2((100 * (runs - failed)) / runs);
  }
  const known = days.filter((d) => d.state !== 'no-data');
  return known.length === 0 ? null : floor2((100 * known.filter((d) => d.state === 'operational').length) / known.length);
}

/** A check as the status page reads it: which service it stands behind. */
interface CheckBehind {
  [key: string]: unknown;
  id: string;
  activated?: boolean;
  triggerIncident?: { serviceId?: unknown } | null;
}

/**
 * The model of a page at `nowMs`. `figures` reads the runs of the checks behind its services
 * (one windowed reduction per check); without it only incidents count.
 */
export async function statusPageModel(src: AccountView, page: StoredStatusPage, nowMs: number, figures?: FiguresSource): Promise<StatusPageModel> {
  const incidents = pageIncidents(src, page);
  const open = incidents.filter((f) => f.open);
  const count = windowDays(page);
  const fromMs = Math.floor(nowMs / DAY) * DAY - (count - 1) * DAY;
  const serviceIds = new Set(page.cards.flatMap((c) => c.services.map((s) => s.id)));
  // The checks behind the page's services, read once per page (an account's checks are bounded).
  const behind = new Map<string, string[]>();
  if (figures && serviceIds.size > 0) {
    for (const c of src.list<CheckBehind>(COLL.checks)) {
      const sid = c.triggerIncident?.serviceId;
      if (typeof sid !== 'string' || !serviceIds.has(sid)) continue;
      behind.set(sid, [...(behind.get(sid) ?? []), c.id]);
    }
  }
  // Counts per day of every check at once (read side by side, off the main thread on a database).
  const checkIds = [...new Set([...behind.values()].flat())];
  const perCheck = new Map(await Promise.all(checkIds.map(async (id) => [id, await figures!.buckets(id, fromMs, nowMs + 1, DAY, { responseTimes: false })] as const)));
  const runsOf = new Map<string, Array<{ runs: number; failed: number }>>();
  for (const [sid, checks] of behind) {
    const perDay = Array.from({ length: count }, () => ({ runs: 0, failed: 0 }));
    for (const id of checks) {
      perCheck.get(id)!.forEach((b, i) => {
        if (i >= count) return;
        perDay[i].runs += b.runs;
        perDay[i].failed += b.failed;
      });
    }
    runsOf.set(sid, perDay);
  }
  const cards = page.cards.map((card) => ({
    id: card.id,
    name: card.name,
    services: expandServices(src, card.services).map((service): ServiceView => {
      const created = Date.parse(service.created_at);
      const runs = runsOf.get(service.id);
      const days = serviceDays(service.id, incidents, nowMs, { days: count, sinceMs: Number.isFinite(created) ? created : null, runs });
      const uptime = serviceUptime(days, runs !== undefined);
      const incidentState = worst(open.filter((f) => f.incident.services.some((s) => s.id === service.id)).map((f) => BY_SEVERITY[f.incident.severity] ?? 'minor'));
      // A service with checks and no run in the window has no data yet (unless an incident says otherwise).
      const state = incidentState === 'no-data' ? (runs !== undefined && uptime === null ? 'no-data' : 'operational') : incidentState;
      return { service, state, days, uptime, checked: runs !== undefined };
    }),
  }));
  const all = cards.flatMap((c) => c.services);
  const overall = all.length === 0 || all.every((s) => s.state === 'no-data') ? 'no-data' : worst(all.map((s) => (s.state === 'no-data' ? 'operational' : s.state)));
  const known = all.filter((s) => s.uptime !== null).map((s) => s.uptime as number);
  const uptime = known.length === 0 ? null : Math.floor((known.reduce((a, b) => a + b, 0) / known.length) * 100) / 100;
  const past = incidents.filter((f) => !f.open && f.startMs >= nowMs - count * DAY);
  return { page, windowDays: count, uptime, cards, overall, open, past, maintenance: pageMaintenance(src, page, nowMs) };
}

/** What the overall state of a page reads as. */
export const OVERALL: Record<ServiceState, string> = {
  'no-data': 'No data yet',
  operational: 'All systems operational',
  minor: 'Minor issues',
  degraded: 'Degraded performance',
  'partial-outage': 'Partial outage',
  'major-outage': 'Major outage',
};

/** The path of a page and of its parts. */
export const statusPath = (url: string, rest = '') => `/status/${encodeURIComponent(url)}${rest}`;

function stateText(state: ServiceState, label = STATE_LABEL[state]): Html {
  return html`<span class="state s-${state}"><span aria-hidden="true">${STATE_ICON[state]} </span>${label}</span>`;
}

function when(iso: string): Html {
  const d = new Date(iso);
  const text = `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${d.toISOString()}">${text}</time>`;
}

const pct = (v: number | null) => (v === null ? 'no data' : `${v.toFixed(2)} %`);

function dayText(d: DayState): string {
  const label = STATE_LABEL[d.state];
  if (d.runs === undefined || d.runs === 0) return label;
  return `${label}, ${d.runs - (d.failed ?? 0)} of ${d.runs} runs passed`;
}

function bar(s: ServiceView): Html {
  const days = s.days;
  const none = days.filter((d) => d.state === 'no-data').length;
  const ok = days.filter((d) => d.state === 'operational').length;
  const summary = `last ${days.length} days: uptime ${pct(s.uptime)}; ${ok} days operational, ${days.length - ok - none} with issues, ${none} without data`;
  const barDays: BarDay[] = days.map((d) => ({ date: d.date, state: d.state, text: dayText(d) }));
  return html`${uptimeBar(barDays, s.service.name, summary)}
<div class="bar-legend muted"><span aria-hidden="true">${days.length} days ago</span><span class="uptime">${s.uptime === null ? 'No data' : `${s.uptime.toFixed(2)} % uptime`}</span><span aria-hidden="true">Today</span></div>`;
}

function incidentBlock(f: IncidentFacts): Html {
  const i = f.incident;
  return html`<article class="card incident" id="incident-${i.id}">
<h3>${i.name}</h3>
<p class="muted">Severity: ${i.severity.toLowerCase()} · ${f.open ? 'Open' : 'Resolved'} · started ${when(new Date(f.startMs).toISOString())}</p>
<ol class="updates">${f.updatesNewestFirst.map(
    (u) => html`<li><p><strong>${u.status.charAt(0) + u.status.slice(1).toLowerCase()}</strong> · ${when(u.publicIncidentUpdateDate)}</p><p>${u.description}</p></li>`,
  )}</ol>
</article>`;
}

/**
 * What the subscribe form last did, shown above it. A post of a valid address always reads the
 * same (`check-inbox`), whether the address was subscribed already or not.
 */
export type SubscribeNotice = { kind: 'check-inbox' } | { kind: 'invalid'; message: string } | { kind: 'unsubscribed' } | { kind: 'confirmed' };

function notice(n: SubscribeNotice | undefined): Html {
  if (!n) return html``;
  if (n.kind === 'check-inbox') return html`<p role="status">Check your inbox to confirm: we sent a link to the address unless it is subscribed already.</p>`;
  if (n.kind === 'unsubscribed') return html`<p role="status">Unsubscribed. You will get no more e-mails from this page.</p>`;
  if (n.kind === 'confirmed') return html`<p role="status">Subscription confirmed. You will get an e-mail for each incident update.</p>`;
  return html`<p role="alert">${n.message}</p>`;
}

/** The part of a status page that changes (state, incidents, services): what the script refreshes from `/live`. */
export function renderLive(m: StatusPageModel): Html {
  return html`<div id="live">
<p class="card overall" role="status">${stateText(m.overall, OVERALL[m.overall])}${m.uptime !== null ? html` <span class="muted">· ${m.uptime.toFixed(2)} % uptime over ${m.windowDays} days</span>` : ''}</p>
${renderMaintenance(m.maintenance)}
${m.open.length > 0 ? html`<section aria-labelledby="open-h"><h2 id="open-h">Open incidents</h2>${m.open.map(incidentBlock)}</section>` : ''}
<section aria-labelledby="services-h"><h2 id="services-h">Services</h2>
${m.cards.map(
    // Card ids are the owner's strings: the element ids use the position instead.
    (c, i) => html`<section class="card" aria-labelledby="card-${i}"><h3 id="card-${i}">${c.name}</h3>
<ul class="plain">${c.services.map(
      (s) => html`<li class="service" data-service="${s.service.name}"><div class="row"><span>${s.service.name}</span>${stateText(s.state)}</div>${bar(s)}</li>`,
    )}</ul></section>`,
  )}
</section>
<section aria-labelledby="past-h"><h2 id="past-h">Past incidents</h2>
${m.past.length > 0 ? m.past.map(incidentBlock) : html`<p class="muted">No incidents in the last ${m.windowDays} days.</p>`}
</section>
</div>`;
}

/** The HTML of a status page. */
export function renderStatusPage(m: StatusPageModel, n?: SubscribeNotice): PageDoc {
  const p = m.page;
  const logo = safeUrl(p.logo);
  const home = safeUrl(p.redirectTo);
  const brand = logo ? html`<img src="${logo}" alt="${p.name}">` : html`<span class="site">${p.name}</span>`;
  const header = html`<header class="top"><div class="inner">
${home ? html`<a href="${home}">${brand}</a>` : brand}
<nav aria-label="Page"><a href="${statusPath(p.url, '/feed.atom')}">Incident feed (Atom)</a></nav>
</div></header>`;
  const main = html`<h1>${p.name}</h1>
${renderLive(m)}
<section aria-labelledby="sub-h" id="subscribe"><h2 id="sub-h">Get updates by e-mail</h2>
${notice(n)}
<form class="subscribe" method="post" action="${statusPath(p.url, '/subscriptions')}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required autocomplete="email">
<button type="submit">Subscribe</button>
</form>
</section>`;
  return layout({
    title: `${p.name}: ${OVERALL[m.overall]}`,
    themeCss: themeCss(p.themeColors as { light: Theme; dark: Theme } | null, p.defaultTheme as ThemeMode),
    favicon: p.favicon,
    header,
    main,
    footer: p.whiteLabel ? undefined : html`<footer>Served by mac serve</footer>`,
    bodyAttrs: html` data-mac-status data-src="${statusPath(p.url, '/live')}" data-refresh="${STATUS_REFRESH_SECONDS}"`,
    script: true,
  });
}

/**
 * The page a confirmation or unsubscribe link opens: a button that POSTs the link back (a link
 * prefetcher or a mail scanner following it changes nothing).
 */
export function renderLinkForm(page: StoredStatusPage, purpose: 'confirm' | 'unsubscribe', token: string): PageDoc {
  const [title, question, button] =
    purpose === 'confirm'
      ? ['Confirm your subscription', `Receive an e-mail for each incident update of ${page.name}?`, 'Confirm subscription']
      : ['Unsubscribe', `Stop e-mail updates of ${page.name}?`, 'Unsubscribe'];
  return layout({
    title: `${title}: ${page.name}`,
    themeCss: themeCss(page.themeColors as { light: Theme; dark: Theme } | null, page.defaultTheme as ThemeMode),
    favicon: page.favicon,
    header: html`<header class="top"><div class="inner"><span class="site">${page.name}</span></div></header>`,
    main: html`<h1>${title}</h1><p>${question}</p>
<form method="post" action="${statusPath(page.url, `/${purpose}/${token}`)}"><button type="submit">${button}</button></form>
<p><a href="${statusPath(page.url)}">Back to the status page</a></p>`,
  });
}

/** The Atom feed of the page's incidents (open and past), newest first. */
export function renderAtom(m: StatusPageModel, origin: string): string {
  const p = m.page;
  const self = `${origin}${statusPath(p.url, '/feed.atom')}`;
  const all = [...m.open, ...m.past];
  const updated = all.length > 0 ? new Date(Math.max(...all.map((f) => Date.parse(f.updatesNewestFirst[0]?.publicIncidentUpdateDate ?? f.incident.created_at)))).toISOString() : p.updated_at ?? p.created_at;
  const entries = all.map((f) => {
    const i = f.incident;
    const last = f.updatesNewestFirst[0];
    const text = f.updatesNewestFirst.map((u) => `${u.publicIncidentUpdateDate} ${u.status}: ${u.description}`).join('\n\n');
    return `<entry>
<id>urn:mac:incident:${xmlEsc(i.id)}</id>
<title>${xmlEsc(`${i.name} (${f.open ? 'open' : 'resolved'}, ${i.severity.toLowerCase()})`)}</title>
<link rel="alternate" type="text/html" href="${xmlEsc(`${origin}${statusPath(p.url)}#incident-${i.id}`)}"/>
<published>${xmlEsc(new Date(f.startMs).toISOString())}</published>
<updated>${xmlEsc(last?.publicIncidentUpdateDate ?? i.created_at)}</updated>
<content type="text">${xmlEsc(text)}</content>
</entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>urn:mac:status-page:${xmlEsc(p.id)}</id>
<title>${xmlEsc(`${p.name}: incidents`)}</title>
<link rel="self" type="application/atom+xml" href="${xmlEsc(self)}"/>
<link rel="alternate" type="text/html" href="${xmlEsc(`${origin}${statusPath(p.url)}`)}"/>
<updated>${xmlEsc(updated)}</updated>
${entries.join('\n')}
</feed>
`;
}
