import type { Shape } from './shape.js';
import { isRecord } from './shape.js';
import { collectionApi, PLAIN_KIND } from './collection.js';
import type { KindSpec } from './types.js';
import { lockedValues } from './locked.js';

const KEY_VALUE: Shape = { key: {}, value: {}, locked: { default: false } };

/** Per channel type: the config shape, the config field that identifies the channel, credentials. */
const CONFIG: Record<string, { shape: Shape; address: string; sensitive: string[] }> = {
  EMAIL: { shape: { address: {} }, address: 'address', sensitive: [] },
  SLACK: { shape: { url: {}, channel: { emptyIsNull: true } }, address: 'url', sensitive: [] },
  WEBHOOK: {
    shape: {
      name: {},
      url: {},
      method: { default: 'POST' },
      template: { default: '' },
      headers: { default: [], items: KEY_VALUE },
      queryParameters: { default: [], items: KEY_VALUE },
      webhookSecret: { default: null, nullable: true, emptyIsNull: true },
      webhookType: { default: null, nullable: true },
    },
    address: 'url',
    sensitive: ['webhookSecret'],
  },
  SMS: { shape: { number: {}, name: {} }, address: 'number', sensitive: [] },
  CALL: { shape: { number: {}, name: {} }, address: 'number', sensitive: [] },
  PAGERDUTY: { shape: { serviceKey: {}, serviceName: { emptyIsNull: true }, account: { emptyIsNull: true } }, address: 'serviceKey', sensitive: ['serviceKey'] },
  OPSGENIE: {
    shape: { apiKey: {}, name: { emptyIsNull: true }, region: { emptyIsNull: true }, priority: { emptyIsNull: true } },
    address: 'apiKey',
    sensitive: ['apiKey'],
  },
};

const BASE: Shape = {
  type: {},
  sendRecovery: { default: true },
  sendFailure: { default: true },
  sendDegraded: { default: false },
  sslExpiry: { default: false },
  sslExpiryThreshold: { default: 30 },
  autoSubscribe: { default: false },
};

// `subscriptions` is left out: the same store backs the checks' alertChannelSubscriptions,
// and mac manages subscriptions from the check side only.
const SHAPES: Record<string, Shape> = Object.fromEntries(
  Object.entries(CONFIG).map(([type, c]) => [type, { ...BASE, config: { default: {}, object: c.shape } }]),
);

/** Alert channels: matched by type plus address (email address, webhook/slack url, sms/call number, PagerDuty service key, Opsgenie API key). */
export const alertChannelKind: KindSpec = {
  ...PLAIN_KIND,
  kind: 'AlertChannel',
  api: collectionApi('/v1/alert-channels'),
  remoteId: (live) => live.id as number,
  displayName: (obj) => {
    const config = isRecord(obj.config) ? obj.config : {};
    const c = CONFIG[obj.type as string];
    const name = typeof config.name === 'string' ? config.name : undefined;
    const address = c && !c.sensitive.includes(c.address) ? config[c.address] : undefined;
    return name ?? (typeof address === 'string' ? address : (obj.type as string | undefined));
  },
  // The config's fields depend on the type; an unknown type keeps its config as given.
  shapeOf: (obj) => SHAPES[obj.type as string] ?? { ...BASE, config: { default: {}, free: true } },
  naturalKey: (obj) => {
    const c = CONFIG[obj.type as string];
    const config = isRecord(obj.config) ? obj.config : {};
    const address = c ? config[c.address] : undefined;
    if (typeof address !== 'string') return undefined;
    // Mail addresses compare case-insensitively; URLs, numbers and keys do not.
    return `${obj.type as string}:${obj.type === 'EMAIL' ? address.toLowerCase() : address}`;
  },
  naturalKeyLabel: 'type + address',
  immutable: ['type'],
  // Credentials, and locked webhook headers / query parameters: compared, never shown.
  sensitive: (obj) => [
    ...(CONFIG[obj.type as string]?.sensitive ?? []).filter((f) => isRecord(obj.config) && obj.config[f] != null).map((f) => `/config/${f}`),
    ...lockedValues(obj.config, '/config'),
  ],
  ignored: {
    subscriptions:
      "a channel's subscriptions are managed from the checks (alertChannels / alertChannelSubscriptions); mac neither sends nor compares them here",
  },
};

