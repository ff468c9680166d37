import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
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
export const dashboardKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'Dashboard',
  api: collectionApi('/v1/dashboards'),
  remoteId: (live) => live.dashboardId as string,
  displayName: (obj) => (typeof obj.header === 'string' ? obj.header : (obj.customUrl as string | undefined)),
  shapeOf: () => SHAPE,
  updateMerges: true,
  naturalKey: (obj) => (typeof obj.customUrl === 'string' ? obj.customUrl : undefined),
  naturalKeyLabel: 'customUrl',
};
