import type { Shape } from './shape.js';
import type { KindSpec } from './types.js';

const SHAPE: Shape = { key: {}, value: { nullable: true }, locked: { default: false }, secret: { default: false } };

/**
 * Environment variables: `{key, value, locked, secret}`, matched by key. A secret value reads
 * back as null (api-decisions §1.7), so it is never compared.
 */
export const variable: KindSpec = {
  kind: 'EnvironmentVariable',
  api: {
    list: '/v1/variables',
    create: { method: 'POST', path: '/v1/variables' },
    update: (key) => ({ method: 'PUT', path: `/v1/variables/${encodeURIComponent(String(key))}` }),
    item: (key) => `/v1/variables/${encodeURIComponent(String(key))}`,
  },
  accepts: () => true,
  remoteId: (live) => live.key as string,
  displayName: (obj) => obj.key as string | undefined,
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.key === 'string' ? obj.key : undefined),
  naturalKeyLabel: 'key',
  writeOnly: [],
  unreadableSecrets: (obj) => (obj.secret === true ? ['/value'] : []),
  sensitive: () => [],
  notes: () => [],
};
