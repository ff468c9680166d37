/** Every resource kind a definition file may declare, in dependency order (referenced kinds first). */
export const KINDS = [
  'EnvironmentVariable',
  'Snippet',
  'AlertChannel',
  'PrivateLocation',
  'CheckGroup',
  'StatusPageService',
  'TcpCheck',
  'DnsCheck',
  'MultiStepCheck',
  'BrowserCheck',
  'HeartbeatCheck',
  'UrlMonitor',
  'ApiCheck',
  'IcmpMonitor',
  'Dashboard',
  'StatusPage',
  'MaintenanceWindow',
] as const;

/** A resource kind. */
export type Kind = (typeof KINDS)[number];

/** The kinds that are checks (matched by ownership tag, pruned by --prune). */
export const CHECK_KINDS = ['TcpCheck', 'DnsCheck', 'MultiStepCheck', 'BrowserCheck', 'HeartbeatCheck', 'UrlMonitor', 'ApiCheck', 'IcmpMonitor'] as const satisfies readonly Kind[];

/** A check kind. */
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Whether a kind is a check kind. */
export function isCheckKind(kind: Kind): kind is CheckKind {
  return (CHECK_KINDS as readonly string[]).includes(kind);
}

/**
 * The kinds matched by the ownership tag `mac:<project>/<id>` (checks and check groups: the
 * objects that carry tags). They are renamed by `renamedFrom`, adopted by `adopt`, reported as
 * orphaned and pruned by --prune; other kinds are matched by a natural key.
 */
export const OWNED_KINDS = [...CHECK_KINDS, 'CheckGroup'] as const satisfies readonly Kind[];

/** Whether a kind is matched by the ownership tag. */
export function isOwnedKind(kind: Kind): boolean {
  return (OWNED_KINDS as readonly string[]).includes(kind);
}
