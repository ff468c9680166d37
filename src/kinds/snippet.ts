import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';

const SHAPE: Shape = { name: {}, script: {} };

/** Snippets: `{name, script}`, matched by name (names need not be unique in the API). */
export const snippetKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'Snippet',
  api: collectionApi('/v1/snippets'),
  remoteId: (live) => live.id as number,
  displayName: (obj) => obj.name as string | undefined,
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
  naturalKeyLabel: 'name',
};
