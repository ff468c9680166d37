import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

// The defaults of api-decisions §3.3; `id`, timestamps and the group trigger are server-owned.
const SHAPE: Shape = {
  name: {},
  activated: { default: true },
  muted: { default: false },
  tags: { default: [], set: true },
  locations: { default: [], set: true },
  concurrency: { default: 3 },
};

/**
 * Check groups: matched by the ownership tag `mac:<project>/<id>` like checks (a group has tags),
 * so a new name is an update. The PUT merges. A group is deleted after its checks (the service
 * refuses to delete a group that still has checks).
 */
export const checkGroupKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'CheckGroup',
  api: collectionApi('/v1/check-groups'),
  remoteId: (live) => live.id as number,
  displayName: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
  shapeOf: () => SHAPE,
  updateMerges: true,
};
