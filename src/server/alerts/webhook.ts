import { sendHttp } from './http.js';
import { failed } from './outcome.js';
import { alertPayload, renderTemplate } from './render.js';
import type { AlertMessage, SendOutcome, SenderSettings } from './types.js';

/**
 * WEBHOOK channels (api-decisions §3.5, §5.7): the channel's `method`, `url`, `headers` and
 * `queryParameters`, with the JSON payload or the rendered `template` as the body.
 */

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE']);

/**
 * A webhook's receiver is whatever the account wrote: a 4xx may be a route being deployed or a
 * key being rotated, so most are retried. These say the request itself is refused whatever the
 * moment: retrying the same bytes cannot help.
 */
const PERMANENT = new Set([400, 405, 410, 413, 414, 422]);

type Pairs = Array<{ key?: unknown; value?: unknown }>;

/** Sends one webhook request for `m`. */
export async function sendWebhook(settings: SenderSettings, config: Record<string, unknown>, m: Partial<AlertMessage>): Promise<SendOutcome> {
  const secrets = webhookSecrets(config);
  let url: URL;
  try {
    url = new URL(String(config.url));
  } catch {
    return failed('the webhook URL is not a valid URL', secrets, { permanent: true });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed(`the webhook URL must be http or https, not ${url.protocol.replace(/:$/, '')}`, secrets, { permanent: true });
  for (const p of pairs(config.queryParameters)) url.searchParams.append(p.key, p.value);
  const method = typeof config.method === 'string' && METHODS.has(config.method.toUpperCase()) ? config.method.toUpperCase() : 'POST';
  const headers: Record<string, string> = {};
  for (const h of pairs(config.headers)) headers[h.key] = h.value;
  // User info in the URL means basic auth, as curl reads it; undici would drop it silently.
  if (url.username || url.password) {
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) headers.authorization = `Basic ${basicOf(url)}`;
    url.username = '';
    url.password = '';
  }
  const template = typeof config.template === 'string' ? config.template : '';
  const body = method === 'GET' || method === 'HEAD' ? undefined : template ? renderTemplate(template, m) : JSON.stringify(alertPayload(m as AlertMessage));
  if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
    headers['content-type'] = template ? 'text/plain; charset=utf-8' : 'application/json';
  }
  return sendHttp(settings, { method, url, headers, body, permanent: PERMANENT, secrets });
}

/**
 * What of a webhook's config may be a credential: header values (Authorization, API keys), query
 * values and the URL's user info and query (tokens), and the webhook secret.
 */
export function webhookSecrets(config: Record<string, unknown>): string[] {
  const secrets = [...pairs(config.headers), ...pairs(config.queryParameters)].map((p) => p.value);
  if (typeof config.webhookSecret === 'string') secrets.push(config.webhookSecret);
  try {
    const u = new URL(String(config.url));
    if (u.username) secrets.push(decodeURIComponent(u.username), u.username);
    if (u.password) secrets.push(decodeURIComponent(u.password), u.password);
    if (u.username || u.password) secrets.push(basicOf(u));
    for (const v of u.searchParams.values()) secrets.push(v);
  } catch {
    // An invalid URL is refused before any request; nothing of it is shown.
  }
  return secrets;
}

/** The basic-auth token of a URL's user info. */
function basicOf(u: URL): string {
  return Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
}

/** `{key, value}` items with string keys and values (others are left out). */
function pairs(list: unknown): Array<{ key: string; value: string }> {
  if (!Array.isArray(list)) return [];
  return (list as Pairs).filter((p) => p && typeof p.key === 'string' && p.key !== '').map((p) => ({ key: p.key as string, value: p.value === undefined || p.value === null ? '' : String(p.value) }));
}
