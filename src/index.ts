/**
 * Public entry of the package: typed helpers for `*.mac.ts` definition files, plus the types of
 * every definition kind. A helper adds `kind` and returns the definition unchanged otherwise;
 * validation happens when mac loads the file, with the same schemas as YAML.
 */
import type {
  AlertChannelDefinition, CheckGroupDefinition, DashboardDefinition, PrivateLocationDefinition, StatusPageDefinition, StatusPageServiceDefinition, DnsCheckDefinition, EnvironmentVariableDefinition,
  HeartbeatCheckDefinition, MultiStepCheckDefinition, BrowserCheckDefinition, SnippetDefinition, TcpCheckDefinition, UrlMonitorDefinition, ApiCheckDefinition, IcmpMonitorDefinition,
  MaintenanceWindowDefinition,
} from './schema/definitions.js';

export type {
  AlertChannelDefinition, CheckGroupDefinition, DashboardDefinition, PrivateLocationDefinition, StatusPageDefinition, StatusPageServiceDefinition, DefinitionDocument, DnsCheckDefinition, EnvironmentVariableDefinition,
  HeartbeatCheckDefinition, MultiStepCheckDefinition, BrowserCheckDefinition, SnippetDefinition, TcpCheckDefinition, UrlMonitorDefinition, ApiCheckDefinition, IcmpMonitorDefinition,
  MaintenanceWindowDefinition,
} from './schema/definitions.js';

// Omit that keeps a union a union (AlertChannel differs by type).
type WithoutKind<T> = T extends unknown ? Omit<T, 'kind'> : never;

function helper<T extends { kind: string }>(kind: T['kind']) {
  return (definition: WithoutKind<T>): T => ({ kind, ...definition }) as unknown as T;
}

/** A TCP check definition. */
export const tcpCheck = helper<TcpCheckDefinition>('TcpCheck');
/** A DNS check definition. */
export const dnsCheck = helper<DnsCheckDefinition>('DnsCheck');
/** A multi-step check definition. */
export const multiStepCheck = helper<MultiStepCheckDefinition>('MultiStepCheck');
/** A browser check definition (a Playwright Test script using page; script or scriptFile). */
export const browserCheck = helper<BrowserCheckDefinition>('BrowserCheck');
/** A heartbeat check definition. */
export const heartbeatCheck = helper<HeartbeatCheckDefinition>('HeartbeatCheck');
/** A URL monitor definition (a GET with status-code assertions). */
export const urlMonitor = helper<UrlMonitorDefinition>('UrlMonitor');
/** An API check definition (one HTTP request with assertions; setupSnippet / tearDownSnippet by logical id). */
export const apiCheck = helper<ApiCheckDefinition>('ApiCheck');
/** An ICMP monitor definition (echo requests to request.hostname; loss and latency thresholds, LATENCY and JSON_RESPONSE assertions). */
export const icmpMonitor = helper<IcmpMonitorDefinition>('IcmpMonitor');
/** A snippet definition. */
export const snippet = helper<SnippetDefinition>('Snippet');
/** A dashboard definition. */
export const dashboard = helper<DashboardDefinition>('Dashboard');
/** An account environment variable definition. */
export const environmentVariable = helper<EnvironmentVariableDefinition>('EnvironmentVariable');
/** An alert channel definition. */
export const alertChannel = helper<AlertChannelDefinition>('AlertChannel');
/** A private location definition (matched by slugName). */
export const privateLocation = helper<PrivateLocationDefinition>('PrivateLocation');
/** A check group definition (checks join it with `group: <id>`). */
export const checkGroup = helper<CheckGroupDefinition>('CheckGroup');
/** A status-page service definition (matched by name; `previousNames` keeps it across a rename). */
export const statusPageService = helper<StatusPageServiceDefinition>('StatusPageService');
/** A status page definition (matched by url; cards name services by logical id). */
export const statusPage = helper<StatusPageDefinition>('StatusPage');
/** A maintenance window definition (matched by name; checks with its tags alert no one while it is in progress). */
export const maintenanceWindow = helper<MaintenanceWindowDefinition>('MaintenanceWindow');
