import type { HttpRequest } from '../types.js';

/**
 * What an HTTP check sends, built from its stored request (ChecksV1UrlRequest /
 * ChecksV1ApiRequest): the URL with its query parameters, the headers in order, the body by
 * `bodyType`, basic auth. Pure; the probe sends it.
 */

/** A request ready to send, or why the check's request cannot be sent. */
export type BuiltRequest =
  | {
      ok: true;
      method: string;
      url: URL;
      /** Header name/value pairs in the order they are sent (repeats allowed). */
      headers: Array<[string, string]>;
      /** The body sent; null when none. */
      body: string | null;
      /** The query parameters the check adds, for the result's `request.params` (locked ones masked). */
      params: Record<string, string>;
      /** Names of headers (lower-case) and query parameters the check marks `locked`: masked in results. */
      locked: { headers: Set<string>; params: Set<string> };
    }
  | { ok: false; message: string };

/** Sent unless the check sets its own. */
export const USER_AGENT = 'mac-monitoring';

// Content types implied by `bodyType` when the check sets none.
const CONTENT_TYPES: Record<string, string | null> = {
  JSON: 'application/json',
  GRAPHQL: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
  RAW: null,
  NONE: null,
};

/** What a result shows instead of a credential. */
export const REDACTED = '<redacted>';

/** Header (and query parameter) names whose values a result never shows (credentials). */
export const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|password|api-?key|session/i;

/** Builds the request of an HTTP check; never throws. */
export function buildRequest(req: HttpRequest): BuiltRequest {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { ok: false, message: 'invalid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `unsupported URL scheme "${url.protocol.replace(/:$/, '')}": only http and https are requested` };
  }
  const headers: Array<[string, string]> = [];
  const params: Record<string, string> = {};
  const locked = { headers: new Set<string>(), params: new Set<string>() };
  let body: string | null = null;
  // Credentials in the URL become basic auth and leave the URL, so the result never shows them.
  let basic: { username: string; password: string } | null = null;
  if (url.username || url.password) {
    basic = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = '';
    url.password = '';
  }
  if ('headers' in req) {
    for (const q of req.queryParameters) {
      if (q.key === '') continue;
      url.searchParams.append(q.key, q.value);
      if (q.locked || SENSITIVE_HEADER.test(q.key)) locked.params.add(q.key);
      params[q.key] = locked.params.has(q.key) ? REDACTED : q.value;
    }
    for (const h of req.headers) {
      if (h.key.trim() === '') continue;
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.key.trim())) return { ok: false, message: `invalid header name "${h.key}"` };
      if (/[\r\n\0]/.test(h.value)) return { ok: false, message: `invalid value of header "${h.key.trim()}"` };
      headers.push([h.key.trim(), h.value]);
      if (h.locked) locked.headers.add(h.key.trim().toLowerCase());
    }
    if (req.basicAuth && (req.basicAuth.username !== '' || req.basicAuth.password !== '')) basic = req.basicAuth;
    if (req.bodyType !== 'NONE' && req.method !== 'HEAD' && req.body !== '') {
      body = req.body;
      const type = CONTENT_TYPES[req.bodyType];
      if (type && !has(headers, 'content-type')) headers.push(['Content-Type', type]);
    }
  }
  if (basic && !has(headers, 'authorization')) {
    headers.push(['Authorization', `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`]);
  }
  if (!has(headers, 'user-agent')) headers.push(['User-Agent', USER_AGENT]);
  return { ok: true, method: req.method, url, headers, body, params, locked };
}

function has(headers: Array<[string, string]>, name: string): boolean {
  return headers.some(([k]) => k.toLowerCase() === name);
}

/** The headers as a result shows them: one entry per name (repeats joined), credentials and locked values masked. */
export function shownHeaders(headers: Array<[string, string]>, locked: ReadonlySet<string> = new Set()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of headers) {
    const value = SENSITIVE_HEADER.test(k) || locked.has(k.toLowerCase()) ? REDACTED : v;
    out[k] = Object.hasOwn(out, k) ? `${out[k]}, ${value}` : value;
  }
  return out;
}

/** A URL as a result shows it: the values of masked query parameters replaced. */
export function shownUrl(url: URL, locked: ReadonlySet<string>): string {
  if (locked.size === 0 || url.search === '') return url.href;
  const shown = new URL(url.href);
  for (const key of locked) if (shown.searchParams.has(key)) shown.searchParams.set(key, REDACTED);
  return shown.href;
}
