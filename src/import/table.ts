import type { Kind } from '../schema/kinds.js';

/**
 * What import needs to know per kind, beyond what the plan's table already says (API paths,
 * identity, server defaults, normalization): where definitions go, how an id is named, which
 * values are scripts and which are sensitive. One entry per kind; the stages read only this.
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
  /** Values that must not be written in clear: each becomes a `${{ env.NAME }}` placeholder. */
  sensitive(body: Record<string, unknown>): SensitiveValue[];
}

/** A value written as an environment placeholder instead of in clear. */
export interface SensitiveValue {
  /** Path of the value inside the body, as keys and indices. */
  path: Array<string | number>;
  /** Words the environment name is built from (the resource's id is put first). */
  nameParts: string[];
  /** True when the API never returns the value (a secret): it cannot be compared, only named. */
  unreadable: boolean;
}

/** Secret and locked items of a check's `environmentVariables`: the value hides like a password. */
function checkEnvironmentSecrets(body: Record<string, unknown>): SensitiveValue[] {
  const items = body.environmentVariables;
  if (!Array.isArray(items)) return [];
  const out: SensitiveValue[] = [];
  items.forEach((item: Record<string, unknown>, i) => {
    if (item?.secret === true || item?.locked === true) {
      out.push({ path: ['environmentVariables', i, 'value'], nameParts: [String(item.key)], unreadable: item.value == null });
    }
  });
  return out;
}

// Alert-channel credentials are returned as stored, but a definition repository is no place for
// them; locked webhook headers and query parameters are hidden in the UI for the same reason.
const CHANNEL_CREDENTIALS: Record<string, string[]> = {
  WEBHOOK: ['webhookSecret'],
  PAGERDUTY: ['serviceKey'],
  OPSGENIE: ['apiKey'],
};

function alertChannelSecrets(body: Record<string, unknown>): SensitiveValue[] {
  const config = (body.config ?? {}) as Record<string, unknown>;
  const out: SensitiveValue[] = [];
  for (const field of CHANNEL_CREDENTIALS[String(body.type)] ?? []) {
    if (typeof config[field] === 'string' && config[field] !== '') {
      out.push({ path: ['config', field], nameParts: [field], unreadable: false });
    }
  }
  for (const list of ['headers', 'queryParameters']) {
    const items = config[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item: Record<string, unknown>, i) => {
      if (item?.locked === true && typeof item.value === 'string' && item.value !== '') {
        out.push({ path: ['config', list, i, 'value'], nameParts: [String(item.key)], unreadable: false });
      }
    });
  }
  return out;
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
    // A locked value only hides in the UI, but its owner chose to hide it: keep it out of git too.
    sensitive: (body) =>
      body.secret === true || body.locked === true ? [{ path: ['value'], nameParts: [], unreadable: body.value == null }] : [],
  },
  Snippet: {
    kind: 'Snippet',
    file: 'snippets.yaml',
    scriptDir: 'snippets',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'snippet',
    sensitive: () => [],
  },
  AlertChannel: {
    kind: 'AlertChannel',
    file: 'alert-channels.yaml',
    idSource: alertChannelName,
    fallbackId: 'alert-channel',
    sensitive: alertChannelSecrets,
  },
  TcpCheck: {
    kind: 'TcpCheck',
    file: 'checks/tcp.yaml',
    idSource: byName,
    fallbackId: 'tcp-check',
    sensitive: () => [],
  },
  DnsCheck: {
    kind: 'DnsCheck',
    file: 'checks/dns.yaml',
    scriptDir: 'checks/dns',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'dns-check',
    sensitive: checkEnvironmentSecrets,
  },
  MultiStepCheck: {
    kind: 'MultiStepCheck',
    file: 'checks/multistep.yaml',
    scriptDir: 'checks/multistep',
    scriptField: 'script',
    idSource: byName,
    fallbackId: 'multistep-check',
    sensitive: checkEnvironmentSecrets,
  },
  HeartbeatCheck: {
    kind: 'HeartbeatCheck',
    file: 'checks/heartbeat.yaml',
    idSource: byName,
    fallbackId: 'heartbeat-check',
    sensitive: () => [],
  },
  Dashboard: {
    kind: 'Dashboard',
    file: 'dashboards.yaml',
    idSource: (body) => String(body.customUrl ?? body.header ?? ''),
    fallbackId: 'dashboard',
    sensitive: () => [],
  },
};
