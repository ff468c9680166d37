import { KINDS, type Kind } from '../schema/kinds.js';
import { UsageError } from '../errors.js';

// Short names people type, besides the kinds themselves (matched case-insensitively).
const ALIASES: Record<string, Kind> = {
  tcp: 'TcpCheck',
  dns: 'DnsCheck',
  multistep: 'MultiStepCheck',
  'multi-step': 'MultiStepCheck',
  browser: 'BrowserCheck',
  heartbeat: 'HeartbeatCheck',
  url: 'UrlMonitor',
  'url-monitor': 'UrlMonitor',
  api: 'ApiCheck',
  'api-check': 'ApiCheck',
  icmp: 'IcmpMonitor',
  'icmp-monitor': 'IcmpMonitor',
  snippet: 'Snippet',
  snippets: 'Snippet',
  dashboard: 'Dashboard',
  dashboards: 'Dashboard',
  variable: 'EnvironmentVariable',
  variables: 'EnvironmentVariable',
  'alert-channel': 'AlertChannel',
  'alert-channels': 'AlertChannel',
  'private-location': 'PrivateLocation',
  'private-locations': 'PrivateLocation',
  group: 'CheckGroup',
  groups: 'CheckGroup',
  'check-group': 'CheckGroup',
  'check-groups': 'CheckGroup',
  service: 'StatusPageService',
  services: 'StatusPageService',
  'status-page': 'StatusPage',
  'status-pages': 'StatusPage',
  'maintenance-window': 'MaintenanceWindow',
  'maintenance-windows': 'MaintenanceWindow',
};

/**
 * The kinds `--kind` selects (repeatable, comma lists allowed), in KINDS order; none given = all.
 * Throws a UsageError naming the accepted values.
 */
export function selectKinds(values: string[] | undefined): Kind[] {
  const words = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (words.length === 0) return [...KINDS];
  const chosen = new Set<Kind>();
  for (const word of words) {
    const lower = word.toLowerCase();
    const kind = KINDS.find((k) => k.toLowerCase() === lower) ?? ALIASES[lower];
    if (!kind) {
      throw new UsageError(`unknown kind "${word}" for --kind`, {
        hint: `use one of ${KINDS.join(', ')} (or ${Object.keys(ALIASES).join(', ')})`,
      });
    }
    chosen.add(kind);
  }
  return KINDS.filter((k) => chosen.has(k));
}
