/**
 * Signed links of status-page subscriptions: the confirmation link of the double opt-in (it
 * expires) and the unsubscribe link of every subscriber mail (it does not). A token is
 * `SUBSCRIPTION_ID.EXPIRY.MAC`: HMAC-SHA256 over the purpose, the page id, the subscription id, its
 * address and the expiry, with a key generated once per service and kept in the store (a record of
 * the service-wide account), so every instance on one database accepts the links of the others and
 * links survive restarts. The address is signed but never written in the link.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerContext } from '../context.js';
import type { Store } from '../store/store.js';
import { statusPath } from '../pages/status.js';
import type { StoredStatusPage, Subscription } from './model.js';

/** The account of service-wide records (not an account id a key may have: those are [A-Za-z0-9._-]). */
export const SERVICE_ACCOUNT = '#service';
/** The kind of service-wide settings, and the id of the link key's record. */
export const SERVICE_SETTINGS = 'serviceSettings';
const LINK_KEY_ID = 'subscription-link-key';

/** What a link does. */
export type LinkPurpose = 'confirm' | 'unsubscribe';

/** Characters of a token at most (a UUID, an expiry and a MAC are far fewer). */
const MAX_TOKEN = 200;

const keys = new WeakMap<Store, Buffer>();

/**
 * The service's link key: read from the store, created there the first time. Two instances
 * starting together on an empty database may each write one; the later write wins and the
 * instance that cached the other reads it again when a link fails to verify (see verifyLink).
 */
export function linkKey(store: Store, fresh = false): Buffer {
  const cached = keys.get(store);
  if (cached && !fresh) return cached;
  let record = store.get<{ key: string }>(SERVICE_ACCOUNT, SERVICE_SETTINGS, LINK_KEY_ID);
  if (!record) {
    const tx = store.begin(SERVICE_ACCOUNT);
    tx.put(SERVICE_SETTINGS, LINK_KEY_ID, { key: randomBytes(32).toString('base64') });
    tx.commit();
    record = store.get<{ key: string }>(SERVICE_ACCOUNT, SERVICE_SETTINGS, LINK_KEY_ID)!;
  }
  const key = Buffer.from(record.key, 'base64');
  keys.set(store, key);
  return key;
}

function mac(key: Buffer, purpose: LinkPurpose, pageId: string, sub: Subscription, expiresMs: number): string {
  return createHmac('sha256', key)
    .update([purpose, pageId, sub.id, sub.address.toLowerCase(), String(expiresMs)].join('\u0000'))
    .digest('base64url');
}

/** The token of a link; `expiresMs` 0 never expires. */
export function signLink(key: Buffer, purpose: LinkPurpose, pageId: string, sub: Subscription, expiresMs: number): string {
  return `${sub.id}.${expiresMs.toString(36)}.${mac(key, purpose, pageId, sub, expiresMs)}`;
}

/** A token's parts, or null when it is not shaped like one. */
export function tokenParts(token: string): { subscriptionId: string; expiresMs: number; mac: string } | null {
  if (token.length > MAX_TOKEN) return null;
  const m = /^([0-9a-f-]{1,64})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  return { subscriptionId: m[1], expiresMs: parseInt(m[2], 36), mac: m[3] };
}

/** Why a link was refused. */
export type LinkRefusal = 'invalid' | 'expired';

/**
 * The subscription a token opens, or why not: the token must be shaped right, name a
 * subscription of the page, carry its MAC (compared in constant time) and not have expired.
 * `find` reads the subscription by id (one keyed read).
 */
export function verifyLink(
  store: Store,
  purpose: LinkPurpose,
  pageId: string,
  token: string,
  find: (id: string) => Subscription | undefined,
  nowMs: number,
): Subscription | LinkRefusal {
  const parts = tokenParts(token);
  if (!parts) return 'invalid';
  const sub = find(parts.subscriptionId);
  if (!sub || sub.statusPageId !== pageId) return 'invalid';
  const given = Buffer.from(parts.mac, 'base64url');
  const matches = (key: Buffer) => {
    const expected = Buffer.from(mac(key, purpose, pageId, sub, parts.expiresMs), 'base64url');
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  if (!matches(linkKey(store)) && !matches(linkKey(store, true))) return 'invalid';
  if (parts.expiresMs !== 0 && parts.expiresMs <= nowMs) return 'expired';
  return sub;
}

/**
 * The service's public origin for links in mails: `--public-url`, else the URL it listens on
 * (set by `listen`), else its configured host and port.
 */
export function publicBase(ctx: ServerContext): string {
  const base = ctx.options.publicUrl ?? ctx.listenUrl ?? `http://${ctx.options.host.includes(':') ? `[${ctx.options.host}]` : ctx.options.host}:${ctx.options.port}`;
  return base.replace(/\/+$/, '');
}

/** The absolute URL of a link of a page. */
export function linkUrl(ctx: ServerContext, page: StoredStatusPage, purpose: LinkPurpose, token: string): string {
  return `${publicBase(ctx)}${statusPath(page.url, `/${purpose}/${token}`)}`;
}
