import type { Kind } from '../schema/kinds.js';
import { alertChannelKind } from './alert-channel.js';
import { checkGroupKind } from './check-group.js';
import { privateLocationKind } from './private-location.js';
import { statusPageKind } from './status-page.js';
import { statusPageServiceKind } from './status-page-service.js';
import { dashboardKind } from './dashboard.js';
import { dnsCheckKind } from './dns-check.js';
import { heartbeatCheckKind } from './heartbeat-check.js';
import { multiStepCheckKind } from './multistep-check.js';
import { browserCheckKind } from './browser-check.js';
import { snippetKind } from './snippet.js';
import { tcpCheckKind } from './tcp-check.js';
import { urlMonitorKind } from './url-monitor.js';
import { apiCheckKind } from './api-check.js';
import { icmpMonitorKind } from './icmp-monitor.js';
import { maintenanceWindowKind } from './maintenance-window.js';
import type { KindSpec } from './types.js';
import { variableKind } from './variable.js';

/** The table: one entry per kind of src/schema/kinds.ts. */
export const KIND_SPECS: Record<Kind, KindSpec> = {
  EnvironmentVariable: variableKind,
  Snippet: snippetKind,
  AlertChannel: alertChannelKind,
  PrivateLocation: privateLocationKind,
  CheckGroup: checkGroupKind,
  StatusPageService: statusPageServiceKind,
  TcpCheck: tcpCheckKind,
  DnsCheck: dnsCheckKind,
  MultiStepCheck: multiStepCheckKind,
  BrowserCheck: browserCheckKind,
  HeartbeatCheck: heartbeatCheckKind,
  UrlMonitor: urlMonitorKind,
  ApiCheck: apiCheckKind,
  IcmpMonitor: icmpMonitorKind,
  Dashboard: dashboardKind,
  StatusPage: statusPageKind,
  MaintenanceWindow: maintenanceWindowKind,
};

/** The table entry of a kind. */
export function kindSpec(kind: Kind): KindSpec {
  return KIND_SPECS[kind];
}

export type { KindSpec, KindApi, Endpoint } from './types.js';
export { CHECK_TYPE } from './check-common.js';
