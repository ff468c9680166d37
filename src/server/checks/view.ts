import type { AccountView, Store, StoredRecord } from '../store/store.js';
import { COLL } from '../kinds.js';
import { subscriptionsByCheck, type Subscription } from '../resources/subscriptions.js';
import { CHECK_TYPES } from './types.js';
import type { StoredCheck } from './build.js';
import type { ApiCheckType } from '../../schema/fields.js';

type Obj = Record<string, unknown>;

// What each channel type shows under a check's `alertChannels` (spec 2.1.7); others are not shown.
const ALERT_CHANNEL_VIEW: Record<string, { key: string; pick: (config: Obj) => Obj }> = {
  EMAIL: { key: 'email', pick: (c) => ({ address: c.address }) },
  WEBHOOK: {
    key: 'webhook',
    pick: (c) => ({ url: c.url, name: c.name, method: c.method, headers: c.headers, queryParameters: c.queryParameters }),
  },
  SLACK: { key: 'slack', pick: (c) => ({ url: c.url }) },
  SMS: { key: 'sms', pick: (c) => ({ number: c.number, name: c.name }) },
};

/** Secret items of an environmentVariables array read back with value null (api-decisions §1.7). */
export function maskSecrets(vars: unknown): unknown {
  if (!Array.isArray(vars)) return vars;
  return vars.map((v: Obj) => (v.secret === true ? { ...v, value: null } : v));
}

/** Builds check responses for one account, sharing one pass over subscriptions and channels. */
export function checkViewer(view: AccountView): (check: StoredCheck, options?: { echoSecrets?: boolean }) => Obj {
  const subs = subscriptionsByCheck(view);
  const channels = new Map<number, StoredRecord>();
  for (const ch of view.list(COLL.alertChannels)) channels.set(ch.id as number, ch);
  return (check, options = {}) => checkView(check, subs.get(check.id) ?? [], channels, options.echoSecrets === true);
}

function checkView(check: StoredCheck, subs: Subscription[], channels: Map<number, StoredRecord>, echoSecrets: boolean): Obj {
  const writeOnly = CHECK_TYPES[check.checkType as ApiCheckType]?.writeOnly ?? [];
  const out: Obj = {};
  for (const [key, value] of Object.entries(check)) {
    if (writeOnly.includes(key)) continue;
    out[key] = key === 'environmentVariables' && !echoSecrets ? maskSecrets(value) : value;
  }
  out.alertChannelSubscriptions = subs.map((s) => ({ alertChannelId: s.alertChannelId, activated: s.activated }));
  const alertChannels: Record<string, Obj[]> = { email: [], webhook: [], slack: [], sms: [] };
  for (const s of subs) {
    const channel = s.activated ? channels.get(s.alertChannelId) : undefined;
    const shown = channel ? ALERT_CHANNEL_VIEW[channel.type as string] : undefined;
    if (channel && shown) alertChannels[shown.key].push(shown.pick(channel.config as Obj));
  }
  out.alertChannels = alertChannels;
  return out;
}

const jsonCache = new WeakMap<StoredCheck, { key: string; json: string }>();

/**
 * The JSON text of committed checks' responses, cached per stored record (records are never
 * mutated) and keyed by the versions of subscriptions and channels, which the view also shows.
 * List reads are the hot path of the engine's plans.
 */
export function checkJsonReader(store: Store, account: string): (check: StoredCheck) => string {
  const key = `${store.version(COLL.alertSubscriptions)}/${store.version(COLL.alertChannels)}`;
  let viewer: ReturnType<typeof checkViewer> | undefined;
  return (check) => {
    const hit = jsonCache.get(check);
    if (hit && hit.key === key) return hit.json;
    viewer ??= checkViewer(store.view(account));
    const json = JSON.stringify(viewer(check));
    jsonCache.set(check, { key, json });
    return json;
  };
}
