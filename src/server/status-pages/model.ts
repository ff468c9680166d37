/**
 * Stored shapes of the status-page family and their response views. Services are stored once;
 * cards and incidents keep `{id}` references and are expanded on read (decisions §3.6).
 */
import { invalid } from '../http/errors.js';
import type { AccountView } from '../store/store.js';
import { STATUS_COLL } from '../rundata/collections.js';
import { withoutDomainKey } from '../resources/custom-domains.js';

/** A status-page service (spec §2.6). */
export interface Service {
  [key: string]: unknown;
  id: string;
  name: string;
  accountId: string;
  created_at: string;
  updated_at: string | null;
}

/** A stored card: its services by reference. */
export interface StoredCard {
  id: string;
  name: string;
  services: Array<{ id: string }>;
  created_at: string;
  updated_at: string | null;
}

/** A stored status page. */
export interface StoredStatusPage {
  [key: string]: unknown;
  id: string;
  name: string;
  url: string;
  customDomain: string | null;
  /** `customDomain` normalized, for its uniqueness rule (resources/custom-domains.ts); never shown. */
  customDomainKey?: string | null;
  themeColors: unknown;
  logo: string | null;
  redirectTo: string | null;
  favicon: string | null;
  defaultTheme: string;
  whiteLabel: boolean;
  /** Days of the uptime bars of the public page (30, 60 or 90; an addition to the reference). */
  uptimeWindowDays?: number;
  cards: StoredCard[];
  created_at: string;
  updated_at: string | null;
}

/** A stored incident update (spec §2.7). */
export interface IncidentUpdate {
  id: string;
  description: string;
  status: string;
  publicIncidentUpdateDate: string;
  notifySubscribers: boolean;
  created_at: string;
  updated_at: string | null;
}

/** A stored incident: services by reference, updates inside (oldest first). */
export interface StoredIncident {
  [key: string]: unknown;
  id: string;
  name: string;
  severity: string;
  services: Array<{ id: string }>;
  incidentUpdates: IncidentUpdate[];
  created_at: string;
  updated_at: string | null;
}

/** A page's e-mail subscription. */
export interface Subscription {
  [key: string]: unknown;
  id: string;
  statusPageId: string;
  type: 'EMAIL';
  address: string;
  status: 'PENDING' | 'VERIFIED';
  created_at: string;
  updated_at: string | null;
}

/** Reads of one account: the committed state or a transaction. */
type Source = AccountView;

/** Every referenced service must exist in the account, else 400 at its path (decisions §1.6). */
export function checkServiceRefs(src: Source, refs: Array<{ path: string; id: string }>): void {
  for (const ref of refs) {
    if (!src.get(STATUS_COLL.services, ref.id)) throw invalid('payload', ref.path, `is not a service of this account ("${ref.id}")`);
  }
}

/** Expands `{id}` references into the stored services. */
export function expandServices(src: Source, refs: Array<{ id: string }>): Service[] {
  return refs.map((r) => src.get<Service>(STATUS_COLL.services, r.id)).filter((s): s is Service => s !== undefined);
}

/** The status page as returned: cards with their services expanded. */
export function statusPageView(src: Source, page: StoredStatusPage) {
  return { ...withoutDomainKey(page), cards: page.cards.map((card) => ({ ...card, services: expandServices(src, card.services) })) };
}

/** The incident as returned: services expanded, `lastUpdateStatus` of the newest update. */
export function incidentView(src: Source, incident: StoredIncident) {
  const last = incident.incidentUpdates[incident.incidentUpdates.length - 1];
  return { ...incident, services: expandServices(src, incident.services), lastUpdateStatus: last?.status ?? null };
}

/** The subscription as returned (its page is implied by the path). */
export function subscriptionView(s: Subscription) {
  const { statusPageId: _page, ...view } = s;
  return view;
}
