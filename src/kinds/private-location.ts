import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

// `keys` (agent API keys, masked once created), `id` and timestamps are server-owned.
const SHAPE: Shape = {
  name: {},
  slugName: {},
  icon: { default: 'location', emptyIsNull: true },
  proxyUrl: { default: null, nullable: true, emptyIsNull: true },
};

/**
 * Private locations (api-decisions §3.6): matched by `slugName`, which the API never lets change.
 * The PUT replaces `icon` and `proxyUrl` (an omitted one goes back to its default), so it does not merge.
 */
export const privateLocationKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'PrivateLocation',
  api: collectionApi('/v1/private-locations'),
  remoteId: (live) => live.id as string,
  displayName: (obj) => (typeof obj.name === 'string' ? obj.name : (obj.slugName as string | undefined)),
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.slugName === 'string' ? obj.slugName : undefined),
  naturalKeyLabel: 'slugName',
  immutable: ['slugName'],
};
