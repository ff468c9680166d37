import type { CheckKind } from '../schema/kinds.js';
import type { Shape } from './shape.js';
import { isRecord } from './shape.js';
import { lockedValues } from './locked.js';
import type { KindSpec } from './types.js';

/** The `checkType` the API reports for each check kind. */
export const CHECK_TYPE: Record<CheckKind, string> = {
  TcpCheck: 'TCP',
  DnsCheck: 'DNS',
  MultiStepCheck: 'MULTI_STEP',
  BrowserCheck: 'BROWSER',
  HeartbeatCheck: 'HEARTBEAT',
  UrlMonitor: 'URL',
  ApiCheck: 'API',
  IcmpMonitor: 'ICMP',
};

// Writes never let the service subscribe every alert channel on its own (api-decisions §1.8):
// the subscriptions are exactly the definition's.
const WRITE_QUERY = { autoAssignAlerts: false };

const ALERT_SETTINGS: Shape = {
  escalationType: { default: 'RUN_BASED' },
  runBasedEscalation: { default: {}, object: { failedRunThreshold: { default: 1 } } },
  // The service completes it (5 minutes) whenever the escalation is time based, and keeps a given one otherwise.
  timeBasedEscalation: {
    defaultFrom: (p) => (p.escalationType === 'TIME_BASED' ? {} : undefined),
    object: { minutesFailingThreshold: { default: 5 } },
  },
  reminders: { default: {}, object: { amount: { default: 0 }, interval: { default: 5 } } },
  parallelRunFailureThreshold: { default: {}, object: { enabled: { default: false }, percentage: { default: 10 } } },
};

const RETRY_STRATEGY: Shape = {
  type: {},
  baseBackoffSeconds: { default: 60 },
  // SINGLE_RETRY means exactly one retry; the others default to 2 (api-decisions §3.1).
  maxRetries: { defaultFrom: (p) => (p.type === 'SINGLE_RETRY' ? 1 : 2) },
  maxDurationSeconds: { default: 600 },
  sameRegion: { default: true },
  onlyOn: { default: [], set: true },
};

const TRIGGER_INCIDENT: Shape = {
  serviceId: {},
  severity: {},
  name: {},
  description: {},
  notifySubscribers: {},
};

/** Environment variables of a check: a set keyed by `key`. */
export const CHECK_ENV_VARS: Shape = {
  key: {},
  value: { nullable: true },
  locked: { default: false },
  secret: { default: false },
};

/** Assertions of TCP and DNS requests (order kept: it is the order they are evaluated and shown in). */
export const ASSERTION: Shape = {
  source: {},
  comparison: {},
  target: {},
  property: { emptyIsNull: true },
  regex: { default: '' },
};

/** Fields every check kind shares, with the defaults of api-decisions §3.1. */
export const CHECK_SHARED: Shape = {
  name: {},
  activated: { default: true },
  muted: { default: false },
  doubleCheck: { default: true },
  shouldFail: { default: false },
  locations: { default: [], set: true },
  privateLocations: { default: [], set: true },
  tags: { default: [], set: true },
  alertSettings: { default: {}, object: ALERT_SETTINGS },
  useGlobalAlertSettings: { default: true },
  groupId: { default: null, nullable: true },
  groupOrder: { default: null, nullable: true },
  runtimeId: { default: null, nullable: true },
  alertChannelSubscriptions: { default: [], set: 'alertChannelId', items: { alertChannelId: {}, activated: { default: true } } },
  retryStrategy: { default: null, nullable: true, object: RETRY_STRATEGY },
  triggerIncident: { default: null, nullable: true, object: TRIGGER_INCIDENT },
  runParallel: { default: false },
  frequency: { default: 10 },
  // No default: omitted from responses when unset, and a merging PUT cannot clear it, so a
  // definition that omits it does not manage it (compare.ts unmanagedFields).
  frequencyOffset: {},
};

/** Pointers of secret check environment-variable values (they read back as null, api-decisions §1.7). */
export function secretEnvValues(obj: Record<string, unknown>): string[] {
  const vars = obj.environmentVariables;
  if (!Array.isArray(vars)) return [];
  return vars.flatMap((v, i) => (isRecord(v) && v.secret === true ? [`/environmentVariables/${i}/value`] : []));
}

/** What differs between check kinds. */
export interface CheckKindOptions {
  kind: CheckKind;
  /** Path segment of the type-specific writes: `/v1/checks/<segment>`. */
  segment: string;
  /** Fields of this type on top of the shared ones. */
  shape: Shape;
  /** Shared fields this type does not have (multi-step checks have no frequencyOffset). */
  without?: string[];
  writeOnly?: string[];
  /** Pointers of credentials that read back (API checks' basic-auth password): compared, always masked. */
  credentials?: (obj: Record<string, unknown>) => string[];
  notes?: (obj: Record<string, unknown>) => string[];
}

/** Builds the table entry of a check kind: shared fields and API paths plus the type's own. */
export function checkKind(options: CheckKindOptions): KindSpec {
  const checkType = CHECK_TYPE[options.kind];
  const shared = Object.fromEntries(Object.entries(CHECK_SHARED).filter(([field]) => !options.without?.includes(field)));
  const shape: Shape = { ...shared, ...options.shape };
  return {
    kind: options.kind,
    api: {
      list: '/v1/checks',
      create: { method: 'POST', path: `/v1/checks/${options.segment}`, query: WRITE_QUERY },
      update: (id) => ({ method: 'PUT', path: `/v1/checks/${options.segment}/${encodeURIComponent(String(id))}`, query: WRITE_QUERY }),
      item: (id) => `/v1/checks/${encodeURIComponent(String(id))}`,
    },
    accepts: (live) => live.checkType === checkType,
    remoteId: (live) => live.id as string,
    displayName: (obj) => (typeof obj.name === 'string' ? obj.name : undefined),
    shapeOf: () => shape,
    updateMerges: true,
    writeOnly: options.writeOnly ?? [],
    unreadableSecrets: secretEnvValues,
    // Locked check variables (and any other locked key/value: API check headers and query
    // parameters) read back but are masked, like credentials.
    sensitive: (obj) => [...(options.credentials?.(obj) ?? []), ...lockedValues(obj).filter((p) => !secretEnvValues(obj).includes(p))],
    notes: options.notes ?? (() => []),
  };
}
