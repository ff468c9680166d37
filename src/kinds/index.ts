import type { Kind } from '../schema/kinds.js';
import { alertChannel } from './alert-channel.js';
import { checkGroup } from './check-group.js';
import { privateLocation } from './private-location.js';
import { statusPage } from './status-page.js';
import { statusPageService } from './status-page-service.js';
import { dashboard } from './dashboard.js';
import { dnsCheck } from './dns-check.js';
import { heartbeatCheck } from './heartbeat-check.js';
import { multiStepCheck } from './multistep-check.js';
import { browserCheck } from './browser-check.js';
import { snippet } from './snippet.js';
import { tcpCheck } from './tcp-check.js';
import { urlMonitor } from './url-monitor.js';
import { apiCheck } from './api-check.js';
import { icmpMonitor } from './icmp-monitor.js';
import { maintenanceWindow } from './maintenance-window.js';
import type { KindSpec } from './types.js';
import { variable } from './variable.js';

/** The table: one entry per kind of src/schema/kinds.ts. */
export const KIND_SPECS: Record<Kind, KindSpec> = {
  EnvironmentVariable: variable,
  Snippet: snippet,
  AlertChannel: alertChannel,
  PrivateLocation: privateLocation,
  CheckGroup: checkGroup,
  StatusPageService: statusPageService,
  TcpCheck: tcpCheck,
  DnsCheck: dnsCheck,
  MultiStepCheck: multiStepCheck,
  BrowserCheck: browserCheck,
  HeartbeatCheck: heartbeatCheck,
  UrlMonitor: urlMonitor,
  ApiCheck: apiCheck,
  IcmpMonitor: icmpMonitor,
  Dashboard: dashboard,
  StatusPage: statusPage,
  MaintenanceWindow: maintenanceWindow,
};

/** The table entry of a kind. */
export function kindSpec(kind: Kind): KindSpec {
  return KIND_SPECS[kind];
}

export type { KindSpec, KindApi, Endpoint } from './types.js';
export { CHECK_TYPE } from './check-common.js';
