import type { Shape } from './shape.js';
import type { KindSpec } from './types.js';

const SHAPE: Shape = { name: {}, script: {} };

/** Snippets: `{name, script}`, matched by name (names need not be unique in the API). */
export const snippet: KindSpec = {
  kind: 'Snippet',
  api: {
    list: '/v1/snippets',
    create: { method: 'POST', path: '/v1/snippets' },
    update: (id) => ({ method: 'PUT', path: `/v1/snippets/${encodeURIComponent(String(id))}` }),
    item: (id) => `/v1/snippets/${encodeURIComponent(String(id))}`,
  },
  accepts: () => true,
  remoteId: (live) => live.id as number,
  displayName: (obj) => obj.name as string | undefined,
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
  naturalKeyLabel: 'name',
  writeOnly: [],
  unreadableSecrets: () => [],
  sensitive: () => [],
  notes: () => [],
};
