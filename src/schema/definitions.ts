/**
 * The kind table: one row per resource kind with its definition schema, description and the
 * per-kind facts the loader and the rules phase need (id field, references, secrets, identity).
 */
import { z } from 'zod';
import type { Kind } from './kinds.js';
import { alertChannelRuleIssues, checkRuleIssues, type ApiCheckType, type FieldIssue } from './fields.js';
import { ApiCheckSchema, BrowserCheckSchema, DnsCheckSchema, HeartbeatCheckSchema, IcmpMonitorSchema, MultiStepCheckSchema, TcpCheckSchema, UrlMonitorSchema } from './checks.js';
import {
  AlertChannelSchema, CheckGroupSchema, DashboardSchema, EnvironmentVariableSchema, PrivateLocationSchema, SnippetSchema, StatusPageSchema,
  StatusPageServiceSchema, MaintenanceWindowSchema, maintenanceWindowRuleIssues,
} from './resources.js';

/** A reference field of a definition and the kind it points to. */
export interface RefField {
  field: 'alertChannels' | 'setupSnippet' | 'tearDownSnippet' | 'group' | 'privateLocations';
  target: Kind;
  /** The raw API-id field that says the same thing; both at once is an error. */
  rawField?: string;
  /**
   * An entry naming no definition is a raw API value (a private location's slug outside the
   * project), not an error; one close to a defined id is a warning with "did you mean".
   */
  orRaw?: true;
}

/** What mac knows about one kind. */
export interface KindSpec {
  description: string;
  /** Schema of a present definition. */
  schema: z.ZodType;
  /** Schema of a tombstone (`state: absent`): identity fields only are required. */
  absentSchema: z.ZodType;
  /** Field holding the logical id. */
  idField: 'id' | 'key';
  /** The API check type, for check kinds. */
  checkType?: ApiCheckType;
  /** `script` (or `scriptFile` standing for it): required, optional, or not a field of the kind. */
  script: 'required' | 'optional' | 'none';
  refs: RefField[];
  /** JSON pointers of secret values in the API body. */
  secretPaths(spec: Record<string, unknown>): string[];
  /** What live resources of the kind are matched by; two definitions may not share it. */
  identity?: { what: string; of(spec: Record<string, unknown>): string | undefined };
  /** Cross-field rules of the API body. */
  rules?(spec: Record<string, unknown>): FieldIssue[];
}

const ALERT_CHANNELS: RefField = { field: 'alertChannels', target: 'AlertChannel' };
const GROUP: RefField = { field: 'group', target: 'CheckGroup', rawField: 'groupId' };
const PRIVATE_LOCATIONS: RefField = { field: 'privateLocations', target: 'PrivateLocation', orRaw: true };
const CHECK_REFS: RefField[] = [ALERT_CHANNELS, GROUP, PRIVATE_LOCATIONS];
const SNIPPET_REFS: RefField[] = [
  { field: 'setupSnippet', target: 'Snippet', rawField: 'setupSnippetId' },
  { field: 'tearDownSnippet', target: 'Snippet', rawField: 'tearDownSnippetId' },
];

/** A tombstone keeps the strictness of its kind but needs only identity fields. */
function tombstoneOf(schema: z.ZodObject, keep: string[]): z.ZodType {
  const mask = Object.fromEntries(keep.map((k) => [k, true])) as Record<string, true>;
  return schema.partial().required(mask);
}

function checkVariableSecrets(spec: Record<string, unknown>): string[] {
  const vars = spec.environmentVariables;
  if (!Array.isArray(vars)) return [];
  return vars.flatMap((v, i) => (v && typeof v === 'object' && (v as { secret?: unknown }).secret === true ? [`/environmentVariables/${i}/value`] : []));
}

function check(schema: z.ZodObject, description: string, checkType: ApiCheckType, extra: Partial<KindSpec> = {}): KindSpec {
  return {
    description,
    schema,
    absentSchema: tombstoneOf(schema, ['kind', 'id']),
    idField: 'id',
    checkType,
    script: 'none',
    refs: CHECK_REFS,
    secretPaths: checkVariableSecrets,
    rules: (spec) => checkRuleIssues(checkType, spec),
    ...extra,
  };
}

/** A kind without references or secrets, matched to live resources by one string field (its tombstone needs it). */
function matchedByField(schema: z.ZodObject, description: string, field: string, script: KindSpec['script']): KindSpec {
  return {
    description,
    schema,
    absentSchema: tombstoneOf(schema, ['kind', 'id', field]),
    idField: 'id',
    script,
    refs: [],
    secretPaths: () => [],
    identity: { what: field, of: (spec) => (typeof spec[field] === 'string' ? spec[field] : undefined) },
  };
}

/** Address-like part of an alert channel's config that, with its type, identifies it. */
const CHANNEL_ADDRESS: Record<string, string> = {
  EMAIL: 'address', SLACK: 'url', WEBHOOK: 'url', SMS: 'number', CALL: 'number', PAGERDUTY: 'serviceKey', OPSGENIE: 'apiKey',
};

/** One row per kind. */
export const DEFINITIONS: Record<Kind, KindSpec> = {
  TcpCheck: check(TcpCheckSchema, 'A TCP check: connects to hostname:port, optionally sends data and asserts on the response.', 'TCP'),
  DnsCheck: check(DnsCheckSchema, 'A DNS check: resolves a name and asserts on the answer. May run setup and teardown snippets.', 'DNS', {
    script: 'optional',
    refs: [...CHECK_REFS, ...SNIPPET_REFS],
  }),
  MultiStepCheck: check(MultiStepCheckSchema, 'A multi-step check: a script driving several requests.', 'MULTI_STEP', { script: 'required' }),
  BrowserCheck: check(BrowserCheckSchema, 'A browser check: a Playwright Test script using page, run in Chromium, with web vitals per page.', 'BROWSER', { script: 'required' }),
  HeartbeatCheck: check(HeartbeatCheckSchema, 'A heartbeat check: fails when a job stops pinging it within period plus grace.', 'HEARTBEAT'),
  UrlMonitor: check(UrlMonitorSchema, 'A URL monitor: GETs one URL and asserts on the status code; degraded and failing by response time.', 'URL'),
  ApiCheck: check(ApiCheckSchema, 'An API check: one HTTP request (method, headers, body, basic auth) with assertions on status, headers, body and time. May run setup and teardown snippets.', 'API', {
    refs: [...CHECK_REFS, ...SNIPPET_REFS],
  }),
  IcmpMonitor: check(IcmpMonitorSchema, 'An ICMP monitor: pings a host (pingCount echo requests) and judges packet loss and latency (min/avg/max/stdDev).', 'ICMP'),
  Snippet: matchedByField(SnippetSchema, 'A snippet: reusable JavaScript, e.g. the setup or teardown of DNS checks.', 'name', 'required'),
  PrivateLocation: matchedByField(PrivateLocationSchema, 'A private location: where checks run on agents of your own; checks name it in privateLocations.', 'slugName', 'none'),
  CheckGroup: {
    description: 'A check group: checks join it with group: <id>; matched by its ownership tag like checks.',
    schema: CheckGroupSchema,
    absentSchema: tombstoneOf(CheckGroupSchema, ['kind', 'id']),
    idField: 'id',
    script: 'none',
    refs: [],
    secretPaths: () => [],
  },
  StatusPageService: matchedByField(StatusPageServiceSchema, 'A status-page service: a name that status-page cards show and incidents are opened on.', 'name', 'none'),
  StatusPage: matchedByField(StatusPageSchema, 'A status page: cards of services, public at its url.', 'url', 'none'),
  Dashboard: matchedByField(DashboardSchema, 'A dashboard: a public or private page showing the state of checks.', 'customUrl', 'none'),
  MaintenanceWindow: {
    ...matchedByField(MaintenanceWindowSchema, 'A maintenance window: while it is in progress, checks with its tags still run but alert no one; status pages show it.', 'name', 'none'),
    rules: maintenanceWindowRuleIssues,
  },
  EnvironmentVariable: {
    description: 'An account environment variable, identified by its key.',
    schema: EnvironmentVariableSchema,
    absentSchema: tombstoneOf(EnvironmentVariableSchema, ['kind', 'key']),
    idField: 'key',
    script: 'none',
    refs: [],
    secretPaths: (spec) => (spec.secret === true ? ['/value'] : []),
  },
  AlertChannel: {
    description: 'An alert channel: where alerts of subscribed checks go.',
    schema: AlertChannelSchema,
    // The config's address is the channel's identity, so a tombstone carries the whole channel.
    absentSchema: AlertChannelSchema,
    idField: 'id',
    script: 'none',
    refs: [],
    secretPaths: () => [],
    identity: {
      what: 'type and address',
      of: (spec) => {
        const config = spec.config as Record<string, unknown> | undefined;
        const field = CHANNEL_ADDRESS[String(spec.type)];
        return field && config && typeof config[field] === 'string' ? `${String(spec.type)} ${config[field] as string}` : undefined;
      },
    },
    rules: alertChannelRuleIssues,
  },
};

/** Any definition document, by kind. */
export const DefinitionDocumentSchema = z.discriminatedUnion('kind', [
  TcpCheckSchema,
  DnsCheckSchema,
  MultiStepCheckSchema,
  BrowserCheckSchema,
  HeartbeatCheckSchema,
  UrlMonitorSchema,
  ApiCheckSchema,
  IcmpMonitorSchema,
  SnippetSchema,
  DashboardSchema,
  EnvironmentVariableSchema,
  AlertChannelSchema,
  PrivateLocationSchema,
  CheckGroupSchema,
  StatusPageServiceSchema,
  StatusPageSchema,
  MaintenanceWindowSchema,
]);

/** A TCP check definition as written. */
export type TcpCheckDefinition = z.input<typeof TcpCheckSchema>;
/** A DNS check definition as written. */
export type DnsCheckDefinition = z.input<typeof DnsCheckSchema>;
/** A multi-step check definition as written. */
export type MultiStepCheckDefinition = z.input<typeof MultiStepCheckSchema>;
/** A browser check definition as written. */
export type BrowserCheckDefinition = z.input<typeof BrowserCheckSchema>;
/** A heartbeat check definition as written. */
export type HeartbeatCheckDefinition = z.input<typeof HeartbeatCheckSchema>;
/** A URL monitor definition as written. */
export type UrlMonitorDefinition = z.input<typeof UrlMonitorSchema>;
/** An API check definition as written. */
export type ApiCheckDefinition = z.input<typeof ApiCheckSchema>;
/** An ICMP monitor definition as written. */
export type IcmpMonitorDefinition = z.input<typeof IcmpMonitorSchema>;
/** A snippet definition as written. */
export type SnippetDefinition = z.input<typeof SnippetSchema>;
/** A dashboard definition as written. */
export type DashboardDefinition = z.input<typeof DashboardSchema>;
/** An environment variable definition as written. */
export type EnvironmentVariableDefinition = z.input<typeof EnvironmentVariableSchema>;
/** An alert channel definition as written. */
export type AlertChannelDefinition = z.input<typeof AlertChannelSchema>;
/** A private location definition as written. */
export type PrivateLocationDefinition = z.input<typeof PrivateLocationSchema>;
/** A check group definition as written. */
export type CheckGroupDefinition = z.input<typeof CheckGroupSchema>;
/** A status-page service definition as written. */
export type StatusPageServiceDefinition = z.input<typeof StatusPageServiceSchema>;
/** A status page definition as written. */
export type StatusPageDefinition = z.input<typeof StatusPageSchema>;
/** A maintenance window definition as written. */
export type MaintenanceWindowDefinition = z.input<typeof MaintenanceWindowSchema>;
/** Any definition document as written. */
export type DefinitionDocument = z.input<typeof DefinitionDocumentSchema>;
