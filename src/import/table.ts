import type { Kind } from '../schema/kinds.js';

/**
 * What import needs to know per kind, beyond what the plan's table already says (API paths,
 * identity, server defaults, normalization, secrets): where definitions go, how an id is named
 * and which field is a script. One entry per kind.
 */
export interface ImportKindSpec {
  kind: Kind;
  /** Definition file, relative to the project directory. */
  file: string;
  /** Folder (relative to the project directory) of the `.js` files written for scripts. */
  scriptDir?: string;
  /** Top-level string fields written to a `.js` file and referenced by `scriptFile`, when non-empty. */
  scriptField?: 'script';
  /** Name the logical id is derived from. */
  idSource(body: Record<string, unknown>): string;
  /** Id used when the name has no usable character. */
  fallbackId: string;
}

/** The name an alert channel's id is derived from: its type and the address it sends to. */
function alertChannelName(body: Record<string, unknown>): string {
  const config = (body.config ?? {}) as Record<string, unknown>;
  const type = String(body.type ?? 'channel').toLowerCase();
  const label = [config.name, config.address, config.channel, config.serviceName, config.number].find(
    (v) => typeof v === 'string' && v !== '',
  );
  return label === undefined ? type : `${type}-${String(label)}`;
}

const byName = (body: Record<string, unknown>) => String(body.name ?? '');

/** The import table: one entry per kind, in the order of KINDS. */
export const IMPORT_KINDS: Record<Kind, ImportKindSpec> = {
  EnvironmentVariable: {
    kind: 'EnvironmentVariable',
    file: 'variables.yaml',
    idSource: (body) => String(body.key),
    fallbackId: 'variable',
  },
  Snippet: {
    kind: 'Snippet',
    file: 'snippets.yaml',
    scriptDir: 'snippets',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'snippet',
  },
  AlertChannel: {
    kind: 'AlertChannel',
    file: 'alert-channels.yaml',
    idSource: alertChannelName,
    fallbackId: 'alert-channel',
  },
  PrivateLocation: {
    kind: 'PrivateLocation',
    file: 'private-locations.yaml',
    idSource: (body) => String(body.slugName ?? body.name ?? ''),
    fallbackId: 'private-location',
  },
  CheckGroup: {
    kind: 'CheckGroup',
    file: 'check-groups.yaml',
    idSource: byName,
    fallbackId: 'check-group',
  },
  StatusPageService: {
    kind: 'StatusPageService',
    file: 'status-page-services.yaml',
    idSource: byName,
    fallbackId: 'service',
  },
  TcpCheck: {
    kind: 'TcpCheck',
    file: 'checks/tcp.yaml',
    idSource: byName,
    fallbackId: 'tcp-check',
  },
  DnsCheck: {
    kind: 'DnsCheck',
    file: 'checks/dns.yaml',
    scriptDir: 'checks/dns',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'dns-check',
  },
  MultiStepCheck: {
    kind: 'MultiStepCheck',
    file: 'checks/multistep.yaml',
    scriptDir: 'checks/multistep',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'multistep-check',
  },
  BrowserCheck: {
    kind: 'BrowserCheck',
    file: 'checks/browser.yaml',
    scriptDir: 'checks/browser',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'browser-check',
  },
  HeartbeatCheck: {
    kind: 'HeartbeatCheck',
    file: 'checks/heartbeat.yaml',
    idSource: byName,
    fallbackId: 'heartbeat-check',
  },
  UrlMonitor: {
    kind: 'UrlMonitor',
    file: 'checks/url.yaml',
    idSource: byName,
    fallbackId: 'url-monitor',
  },
  ApiCheck: {
    kind: 'ApiCheck',
    file: 'checks/api.yaml',
    idSource: byName,
    fallbackId: 'api-check',
  },
  IcmpMonitor: {
    kind: 'IcmpMonitor',
    file: 'checks/icmp.yaml',
    idSource: byName,
    fallbackId: 'icmp-monitor',
  },
  Dashboard: {
    kind: 'Dashboard',
    file: 'dashboards.yaml',
    idSource: (body) => String(body.customUrl ?? body.header ?? ''),
    fallbackId: 'dashboard',
  },
  StatusPage: {
    kind: 'StatusPage',
    file: 'status-pages.yaml',
    idSource: (body) => String(body.url ?? body.name ?? ''),
    fallbackId: 'status-page',
  },
  MaintenanceWindow: {
    kind: 'MaintenanceWindow',
    file: 'maintenance-windows.yaml',
    idSource: byName,
    fallbackId: 'maintenance-window',
  },
};
