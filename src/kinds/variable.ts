import type { Shape } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';
import { lockedValues } from './locked.js';
import { isReservedVariable } from '../schema/lock-key.js';

const SHAPE: Shape = { key: {}, value: { nullable: true }, locked: { default: false }, secret: { default: false } };

/**
 * Environment variables: `{key, value, locked, secret}`, matched by key. A secret value reads
 * back as null (api-decisions §1.7), so it is never compared.
 */
export const variableKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'EnvironmentVariable',
  api: collectionApi('/v1/variables'),
  // The apply lock and the ownership records are variables of the account, but no resource of any project: plans, apply's
  // re-reads, the convergence check and imports all list variables through this filter.
  accepts: (live) => !isReservedVariable(live.key),
  remoteId: (live) => live.key as string,
  displayName: (obj) => obj.key as string | undefined,
  shapeOf: () => SHAPE,
  naturalKey: (obj) => (typeof obj.key === 'string' ? obj.key : undefined),
  naturalKeyLabel: 'key',
  immutable: ['key'],
  unreadableSecrets: (obj) => (obj.secret === true ? ['/value'] : []),
  sensitive: (obj) => (obj.secret === true ? [] : lockedValues(obj)),
};
