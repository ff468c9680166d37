/** Every resource kind a definition file may declare, in dependency order (referenced kinds first). */
export const KINDS = [
  'EnvironmentVariable',
  'Snippet',
  'AlertChannel',
  'TcpCheck',
  'DnsCheck',
  'MultiStepCheck',
  'HeartbeatCheck',
  'Dashboard',
] as const;

/** A resource kind. */
export type Kind = (typeof KINDS)[number];

/** The kinds that are checks (matched by ownership tag, pruned by --prune). */
export const CHECK_KINDS = ['TcpCheck', 'DnsCheck', 'MultiStepCheck', 'HeartbeatCheck'] as const satisfies readonly Kind[];

/** A check kind. */
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Whether a kind is a check kind. */
export function isCheckKind(kind: Kind): kind is CheckKind {
  return (CHECK_KINDS as readonly string[]).includes(kind);
}
