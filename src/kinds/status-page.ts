import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

// Card ids are server-owned here: a definition names cards by position, and the service gives a
// card sent without an id a new one. A card's services keep their order (it is the order shown);
// the service expands each to {id, name, ...}, of which only the id is compared.
const SHAPE: Shape = {
  name: {},
  url: {},
  cards: { default: [], items: { name: {}, services: { default: [], items: { id: {} } } } },
  customDomain: { default: null, nullable: true, emptyIsNull: true },
  themeColors: { default: null, nullable: true, free: true },
  logo: { default: null, nullable: true, emptyIsNull: true },
  redirectTo: { default: null, nullable: true, emptyIsNull: true },
  favicon: { default: null, nullable: true, emptyIsNull: true },
  defaultTheme: { default: 'AUTO' },
  whiteLabel: { default: false },
  uptimeWindowDays: { default: 90 },
};

/** Status pages: matched by `url`; the PUT replaces the page. The list is a cursor list. */
export const statusPageKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'StatusPage',
  api: { ...collectionApi('/v1/status-pages'), cursor: true },
  remoteId: (live) => live.id as string,
  displayName: (obj) => (typeof obj.name === 'string' ? obj.name : (obj.url as string | undefined)),
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.url === 'string' ? obj.url : undefined),
  naturalKeyLabel: 'url',
};
