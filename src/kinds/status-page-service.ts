import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

const SHAPE: Shape = { name: {} };

/**
 * Status-page services: only a name (the PUT replaces it). Matched by name; a renamed service is
 * found under one of its definition's `previousNames` (src/plan/match.ts), so it keeps its id and
 * incident history. `accountId` and timestamps are server-owned. The list is a cursor list.
 */
export const statusPageServiceKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'StatusPageService',
  api: { ...collectionApi('/v1/status-pages/services'), cursor: true },
  remoteId: (live) => live.id as string,
  displayName: (obj) => obj.name as string | undefined,
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
  naturalKeyLabel: 'name',
};
