import type { Shape } from './shape.js';
import type { KindSpec } from './types.js';

const SHAPE: Shape = {
  customUrl: {},
  header: { nullable: true },
  customDomain: { default: null, nullable: true, emptyIsNull: true },
  logo: { default: null, nullable: true, emptyIsNull: true },
  favicon: { default: null, nullable: true, emptyIsNull: true },
  link: { default: null, nullable: true, emptyIsNull: true },
  description: { default: null, nullable: true, emptyIsNull: true },
  width: { default: 'FULL' },
  refreshRate: { default: 60 },
  paginate: { default: true },
  paginationRate: { default: 60 },
  checksPerPage: { default: 15, nullable: true },
  useTagsAndOperator: { default: false },
  hideTags: { default: false },
  enableIncidents: { default: false },
  expandChecks: { default: false },
  tags: { default: [], set: true },
  showHeader: { default: true },
  showCheckRunLinks: { default: false },
  customCSS: { default: '' },
  isPrivate: { default: false },
  showP95: { default: true },
  showP99: { default: true },
};

/** Dashboards: matched by `customUrl`; `keys`, `id`, `dashboardId` and timestamps are server-owned. */
export const dashboard: KindSpec = {
  kind: 'Dashboard',
  api: {
    list: '/v1/dashboards',
    create: { method: 'POST', path: '/v1/dashboards' },
    update: (id) => ({ method: 'PUT', path: `/v1/dashboards/${encodeURIComponent(String(id))}` }),
    item: (id) => `/v1/dashboards/${encodeURIComponent(String(id))}`,
  },
  accepts: () => true,
  remoteId: (live) => live.dashboardId as string,
  displayName: (obj) => (typeof obj.header === 'string' ? obj.header : (obj.customUrl as string | undefined)),
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.customUrl === 'string' ? obj.customUrl : undefined),
  naturalKeyLabel: 'customUrl',
  writeOnly: [],
  unreadableSecrets: () => [],
  sensitive: () => [],
  notes: () => [],
};
