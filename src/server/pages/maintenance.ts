/**
 * Maintenance on a public status page: the windows in progress (a banner) and those starting in
 * the next days (a list). A page has no tags of its own, so a window is shown on a page when it
 * covers a check behind one of the page's services: a check whose `triggerIncident.serviceId`
 * names the service (the one link between checks and services the API has).
 */
import type { AccountView } from '../store/store.js';
import { COLL } from '../kinds.js';
import { coversTags, currentWindows, upcomingWindows, type MaintenanceWindowRecord, type WindowOccurrence } from '../runs/maintenance.js';
import type { StoredStatusPage } from '../status-pages/model.js';
import { html, type Html } from './html.js';

/** The fields of a stored check that tie it to services and windows. */
interface CheckLink {
  [key: string]: unknown;
  tags?: string[];
  triggerIncident?: { serviceId?: unknown } | null;
}

/** How far ahead a page lists scheduled maintenance. */
export const UPCOMING_DAYS = 7;
/** Windows a page reads at most (an account holds at most 1000; a page shows a handful). */
export const MAX_PAGE_WINDOWS = 1000;
/** Scheduled windows a page lists at most. */
export const MAX_UPCOMING = 5;

/** The maintenance a page shows. */
export interface PageMaintenance {
  current: Array<WindowOccurrence<MaintenanceWindowRecord>>;
  upcoming: Array<WindowOccurrence<MaintenanceWindowRecord>>;
}

/** The maintenance of the page's services at `nowMs`: none when the account has no windows (the checks are then not read). */
export function pageMaintenance(src: AccountView, page: StoredStatusPage, nowMs: number): PageMaintenance {
  const windows = src.list<MaintenanceWindowRecord>(COLL.maintenanceWindows).slice(0, MAX_PAGE_WINDOWS);
  if (windows.length === 0) return { current: [], upcoming: [] };
  const serviceIds = new Set(page.cards.flatMap((c) => c.services.map((s) => s.id)));
  const behind = src.list<CheckLink>(COLL.checks).filter((c) => typeof c.triggerIncident?.serviceId === 'string' && serviceIds.has(c.triggerIncident.serviceId));
  if (behind.length === 0) return { current: [], upcoming: [] };
  const tags = [...new Set(behind.flatMap((c) => c.tags ?? []))];
  const shown = windows.filter((w) => coversTags(w, tags));
  return { current: currentWindows(shown, nowMs), upcoming: upcomingWindows(shown, nowMs, UPCOMING_DAYS * 86_400_000, MAX_UPCOMING) };
}

function at(ms: number): Html {
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** The banner of maintenance in progress and the list of scheduled maintenance (empty markup when there is none). */
export function renderMaintenance(m: PageMaintenance): Html {
  const current = m.current.map(
    (o) => html`<section class="card maintenance" role="status" aria-labelledby="maint-${o.window.id}">
<h2 id="maint-${o.window.id}">Maintenance in progress: ${o.window.name}</h2>
<p class="muted">Until ${at(o.endMs)}</p>${o.window.description ? html`<p>${o.window.description}</p>` : ''}
</section>`,
  );
  const upcoming =
    m.upcoming.length === 0
      ? ''
      : html`<section aria-labelledby="sched-h"><h2 id="sched-h">Scheduled maintenance</h2><ul class="plain">${m.upcoming.map(
          (o) => html`<li class="card"><h3>${o.window.name}</h3><p class="muted">${at(o.startMs)} to ${at(o.endMs)}</p>${o.window.description ? html`<p>${o.window.description}</p>` : ''}</li>`,
        )}</ul></section>`;
  return html`${current}${upcoming}`;
}
