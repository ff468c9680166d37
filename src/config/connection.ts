/**
 * Where and as whom mac talks to the monitoring API: flags (or Action inputs), then MAC_API_URL,
 * MAC_API_KEY, MAC_ACCOUNT_ID, MAC_ACCOUNT_HEADER. Shared by the CLI and the Action; pure (the
 * caller passes the environment).
 */
import { UsageError } from '../errors.js';
import { DEFAULT_ACCOUNT_HEADER, DEV_ACCOUNT_ID, DEV_API_KEY } from '../schema/serve-defaults.js';

/** The default URL where `mac serve` listens. */
export const DEFAULT_API_URL = 'http://127.0.0.1:4010';
export { DEFAULT_ACCOUNT_HEADER, DEV_ACCOUNT_ID, DEV_API_KEY };

/** Where and as whom the engine talks to the monitoring API. */
export interface Connection {
  apiUrl: string;
  apiKey: string;
  accountId?: string;
  /** The header the account id is sent in (lower-case); `x-service-account` unless told otherwise. */
  accountHeader?: string;
}

/** Flags that may override the environment. */
export interface ConnectionFlags {
  apiUrl?: string;
  apiKey?: string;
  accountId?: string;
  accountHeader?: string;
}

/**
 * Headers mac sets itself (or HTTP reserves): naming one of them as the account header would
 * replace the API key, the body's type or the framing of the request.
 */
const RESERVED_HEADERS = new Set([
  'authorization',
  'accept',
  'content-type',
  'content-length',
  'user-agent',
  'host',
  'connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'expect',
  'keep-alive',
  'proxy-authorization',
  'cookie',
]);

/**
 * Checks a header name given by `--account-header` (or `MAC_ACCOUNT_HEADER`, or the Action's
 * input) and returns it lower-cased: an HTTP token of at most 64 characters, not one mac sets
 * itself. `source` names where it came from, for the error.
 */
export function parseAccountHeader(source: string, value: string): string {
  const name = value.trim();
  const hint = `pass a header name such as ${DEFAULT_ACCOUNT_HEADER} (mac serve) or x-checkly-account (the reference API)`;
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
    throw new UsageError(`${source} must be an HTTP header name (letters, digits and - at most 64 characters), got ${JSON.stringify(value.slice(0, 80))}`, { hint });
  }
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower)) throw new UsageError(`${source} cannot be "${lower}": mac sets that header itself`, { hint });
  return lower;
}

/**
 * Resolves the connection from flags, then MAC_API_URL / MAC_API_KEY / MAC_ACCOUNT_ID.
 * Against the default local URL without a key, the dev key and account of `mac serve` are used.
 */
export function resolveConnection(flags: ConnectionFlags, env: Record<string, string | undefined>): Connection {
  const apiUrl = (flags.apiUrl ?? env.MAC_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  let apiKey = flags.apiKey ?? env.MAC_API_KEY;
  let accountId = flags.accountId ?? env.MAC_ACCOUNT_ID;
  const accountHeader =
    flags.accountHeader !== undefined
      ? parseAccountHeader('--account-header', flags.accountHeader)
      : env.MAC_ACCOUNT_HEADER
        ? parseAccountHeader('MAC_ACCOUNT_HEADER', env.MAC_ACCOUNT_HEADER)
        : DEFAULT_ACCOUNT_HEADER;
  checkApiUrl(apiUrl);
  if (!apiKey) {
    if (apiUrl === DEFAULT_API_URL) {
      apiKey = DEV_API_KEY;
      accountId ??= DEV_ACCOUNT_ID;
    } else {
      throw new UsageError(`no API key for ${apiUrl}`, { hint: 'set MAC_API_KEY or pass --api-key' });
    }
  }
  return { apiUrl, apiKey, accountId: accountId || undefined, accountHeader };
}

/**
 * Refuses an API URL that is not http(s) or that carries credentials: the URL is printed in
 * messages and written into plans, so a password in it would leak; keys go in MAC_API_KEY.
 */
function checkApiUrl(apiUrl: string): void {
  const hint = 'set MAC_API_URL or --api-url to http(s)://host[:port]';
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch (cause) {
    throw new UsageError(`invalid API URL "${apiUrl}"`, { cause, hint });
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('the API URL must not hold credentials (user:password@)', { hint: 'put the API key in MAC_API_KEY or --api-key' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the API URL must be http or https, got "${url.protocol}"`, { hint });
  }
}
