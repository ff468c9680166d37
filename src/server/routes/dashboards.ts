import { z } from 'zod';
import { apiFields } from '../../schema/fields.js';
import { created, ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { mustGet } from '../http/lookup.js';
import { deleteRecord, inTransaction } from '../http/write.js';
import { conflict } from '../http/errors.js';
import { COLL } from '../kinds.js';
import type { Store, StoredRecord, Transaction } from '../store/store.js';
import { hashKey, newKey, withRawKey, type StoredKey } from '../resources/keys.js';
import { claimDomain, domainKeyOf, withoutDomainKey } from '../resources/custom-domains.js';

// Dashboards (spec 2.5, api-decisions §3.4): integer id, UUID dashboardId in paths, PUT merges.
const f = apiFields('strip');
const createBody = z.object({ ...f.dashboard, header: z.string() });
const updateBody = z.object(f.dashboard);
const idParams = z.object({ dashboardId: z.string() });

const DASHBOARD_DEFAULTS = {
  customDomain: null,
  logo: null,
  favicon: null,
  link: null,
  description: null,
  width: 'FULL',
  refreshRate: 60,
  paginate: true,
  paginationRate: 60,
  checksPerPage: 15,
  useTagsAndOperator: false,
  hideTags: false,
  enableIncidents: false,
  expandChecks: false,
  tags: [],
  showHeader: true,
  showCheckRunLinks: false,
  customCSS: '',
  isPrivate: false,
  showP95: true,
  showP99: true,
};

// A stored key also keeps `keyHash` (sha256 of the raw key) so the public page can check a key
// it never stores; responses leave it out (view).
type Dashboard = StoredRecord & { id: number; dashboardId: string; keys: Array<StoredKey & { keyHash?: string }> };

/** The dashboard as the API returns it: keys without their hash, no domain key. */
function view(d: StoredRecord): Record<string, unknown> {
  const keys = Array.isArray(d.keys) ? d.keys.map((k: Record<string, unknown>) => Object.fromEntries(Object.entries(k).filter(([name]) => name !== 'keyHash'))) : d.keys;
  return { ...withoutDomainKey(d), keys };
}

/**
 * customUrl is unique across every account's dashboards, customDomain across every account's
 * dashboards and status pages, compared normalized (resources/custom-domains.ts) (409); the
 * commit of `tx` checks them again (on a database shared by several instances, inside its
 * transaction).
 */
function uniqueness(store: Store, tx: Transaction, dashboard: Dashboard): void {
  const urlTaken = () => conflict(`Dashboard URL "${String(dashboard.customUrl)}" is already taken`);
  for (const { record } of store.everywhere<Dashboard>(COLL.dashboards)) {
    if (record.dashboardId === dashboard.dashboardId) continue;
    if (record.customUrl === dashboard.customUrl) throw urlTaken();
  }
  if (typeof dashboard.customUrl === 'string') tx.unique(COLL.dashboards, 'customUrl', dashboard.customUrl, dashboard.dashboardId, urlTaken);
  if (typeof dashboard.customDomain === 'string' && dashboard.customDomain !== '') {
    claimDomain(store, tx, dashboard.customDomain, { coll: COLL.dashboards, id: dashboard.dashboardId });
  }
}

/** Stages the dashboard; one that is private without keys gets one, shown raw in this response. */
function save(tx: Transaction, store: Store, dashboard: Dashboard, now: string): Record<string, unknown> {
  uniqueness(store, tx, dashboard);
  dashboard = { ...dashboard, customDomainKey: domainKeyOf(dashboard.customDomain) };
  let shownKeys: unknown[] = (view(dashboard).keys as unknown[]) ?? [];
  if (dashboard.isPrivate === true && dashboard.keys.length === 0) {
    const key = newKey('dk_', now);
    dashboard = { ...dashboard, keys: [{ ...key.stored, keyHash: hashKey(key.rawKey) }] };
    shownKeys = [withRawKey(key.stored, key.rawKey)];
  }
  tx.put(COLL.dashboards, dashboard.dashboardId, dashboard);
  return { ...withoutDomainKey(dashboard), keys: shownKeys };
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Routes of `/v1/dashboards` (endpoint 6 is the PUT). */
export const dashboardRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/dashboards',
    query: pageQuery,
    handle: ({ account, query }) => {
      const page = pageOf(store.list(account, COLL.dashboards).map(view), query);
      return ok(page.body, { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/dashboards',
    body: createBody,
    handle: ({ account, body }) =>
      created(
        inTransaction(store, account, (tx) => {
          const dashboardId = tx.uuid();
          const now = isoNow();
          const dashboard: Dashboard = {
            id: tx.nextInt(COLL.dashboards),
            dashboardId,
            customUrl: `dashboard-${dashboardId.slice(0, 8)}`,
            ...DASHBOARD_DEFAULTS,
            ...defined(body),
            keys: [],
            created_at: now,
            updated_at: null,
          };
          return save(tx, store, dashboard, now);
        }),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/dashboards/:dashboardId',
    params: idParams,
    handle: ({ account, params }) => ok(view(mustGet(store.view(account), COLL.dashboards, params.dashboardId))),
  }),
  route({
    method: 'PUT',
    path: '/v1/dashboards/:dashboardId',
    params: idParams,
    body: updateBody,
    handle: ({ account, params, body }) =>
      ok(
        inTransaction(store, account, (tx) => {
          const stored = mustGet<Dashboard>(tx, COLL.dashboards, params.dashboardId);
          const now = isoNow();
          return save(tx, store, { ...stored, ...defined(body), updated_at: now }, now);
        }),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/dashboards/:dashboardId',
    params: idParams,
    handle: ({ account, params }) => deleteRecord(store, account, COLL.dashboards, params.dashboardId),
  }),
];
