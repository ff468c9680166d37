import { z } from 'zod';
import { alertChannelRuleIssues, alertChannelType, apiFields } from '../../schema/fields.js';
import { created, ok, route, type RouteModule } from '../http/route.js';
import { pageOf, pageQuery } from '../http/lists.js';
import { intParam } from '../http/query.js';
import { mustGet } from '../http/lookup.js';
import { deleteRecord, inTransaction } from '../http/write.js';
import { invalid, validationError, type FieldProblem } from '../http/errors.js';
import { parseOrThrow } from '../http/validation.js';
import { COLL } from '../kinds.js';
import type { AccountView, StoredRecord, Transaction } from '../store/store.js';
import {
  channelSubscriptions,
  deleteSubscriptionsWhere,
  replaceChannelSubscriptions,
  upsertSubscription,
  type SubscriptionTarget,
} from '../resources/subscriptions.js';

type Obj = Record<string, unknown>;
const f = apiFields('strip');

// Config defaults per channel type (api-decisions §3.5); types without defaults keep what was sent.
const CONFIG_DEFAULTS: Record<string, Obj> = {
  WEBHOOK: { method: 'POST', template: '', headers: [], queryParameters: [], webhookSecret: null, webhookType: null },
};
const CHANNEL_DEFAULTS = { sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false };

const channelBody = z.object({ type: alertChannelType, config: z.record(z.string(), z.unknown()), ...f.alertChannelShared });
const subscriptionBody = f.alertChannelSubscriptionItem;
const idParams = z.object({ id: intParam(1) });

/** Validates a config against its type's schema, with paths under `config`, and applies defaults. */
function parseConfig(type: string, config: unknown): Obj {
  const schema = z.object({ config: f.alertChannelConfigs[type as keyof typeof f.alertChannelConfigs] });
  const parsed = parseOrThrow('payload', schema, { config }).config as Obj;
  const withDefaults: Obj = { ...CONFIG_DEFAULTS[type], ...parsed };
  for (const list of ['headers', 'queryParameters']) {
    if (Array.isArray(withDefaults[list])) withDefaults[list] = (withDefaults[list] as Obj[]).map((kv) => ({ locked: false, ...kv }));
  }
  return withDefaults;
}

/** Subscription items name exactly one of checkId/groupId, which must exist (400 at the path). */
function targetsOf(view: AccountView, given: Array<{ checkId?: string | null; groupId?: number | null; activated: boolean }>, prefix: string) {
  // A null checkId or groupId is the same as an absent one: subscriptions read back with both keys.
  const items = given.map((i) => ({ checkId: i.checkId ?? undefined, groupId: i.groupId ?? undefined, activated: i.activated }));
  const problems: FieldProblem[] = alertChannelRuleIssues({ subscriptions: items }).map((p) => ({
    path: prefix === 'subscriptions' ? p.path : p.path.replace(/^subscriptions\.0/, ''),
    message: p.message,
  }));
  items.forEach((item, i) => {
    const at = prefix === 'subscriptions' ? `subscriptions.${i}.` : '';
    if (item.checkId !== undefined && !view.get(COLL.checks, item.checkId)) problems.push({ path: `${at}checkId`, message: `check "${item.checkId}" does not exist` });
    if (item.groupId !== undefined && !view.get(COLL.checkGroups, item.groupId)) problems.push({ path: `${at}groupId`, message: `check group ${item.groupId} does not exist` });
  });
  if (problems.length > 0) throw validationError('payload', problems);
  return items.map((i) => ({ ...(i.checkId !== undefined ? { checkId: i.checkId } : { groupId: i.groupId! }), activated: i.activated }) as SubscriptionTarget & { activated: boolean });
}

function channelView(view: AccountView, channel: StoredRecord): Obj {
  const subscriptions = channelSubscriptions(view, channel.id as number).map((s) => ({ id: s.id, checkId: s.checkId, groupId: s.groupId, activated: s.activated }));
  return { ...channel, subscriptions };
}

function write(tx: Transaction, body: z.output<typeof channelBody>, base: { id: number; created_at: string; updated_at: string | null }): Obj {
  const { subscriptions, config, ...rest } = body;
  const channel = { id: base.id, ...CHANNEL_DEFAULTS, ...rest, config: parseConfig(body.type, config), created_at: base.created_at, updated_at: base.updated_at };
  if (subscriptions !== undefined) {
    const targets = targetsOf(tx, subscriptions, 'subscriptions');
    tx.put(COLL.alertChannels, channel.id, channel);
    replaceChannelSubscriptions(tx, channel.id, targets);
  } else {
    tx.put(COLL.alertChannels, channel.id, channel);
  }
  return channelView(tx, channel);
}

/** Routes of `/v1/alert-channels` (api-decisions §3.5): PUT replaces, subscriptions only when present. */
export const alertChannelRoutes: RouteModule = ({ store, isoNow }) => [
  route({
    method: 'GET',
    path: '/v1/alert-channels',
    query: pageQuery,
    handle: ({ account, query }) => {
      const view = store.view(account);
      const page = pageOf(view.list(COLL.alertChannels), query);
      return ok(page.body.map((c) => channelView(view, c)), { 'content-range': page.contentRange });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/alert-channels',
    body: channelBody,
    handle: ({ account, body }) =>
      created(inTransaction(store, account, (tx) => write(tx, body, { id: tx.nextInt(COLL.alertChannels), created_at: isoNow(), updated_at: null }))),
  }),
  route({
    method: 'GET',
    path: '/v1/alert-channels/:id',
    params: idParams,
    handle: ({ account, params }) => {
      const view = store.view(account);
      return ok(channelView(view, mustGet(view, COLL.alertChannels, params.id)));
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/alert-channels/:id',
    params: idParams,
    body: channelBody,
    handle: ({ account, params, body }) =>
      ok(
        inTransaction(store, account, (tx) => {
          const stored = mustGet(tx, COLL.alertChannels, params.id);
          if (stored.type !== body.type) throw invalid('payload', 'type', `cannot change from ${String(stored.type)}; delete the channel and create a new one`);
          return write(tx, body, { id: params.id, created_at: stored.created_at as string, updated_at: isoNow() });
        }),
      ),
  }),
  route({
    method: 'PUT',
    path: '/v1/alert-channels/:id/subscriptions',
    params: idParams,
    body: subscriptionBody,
    handle: ({ account, params, body }) =>
      ok(
        inTransaction(store, account, (tx) => {
          mustGet(tx, COLL.alertChannels, params.id);
          const [target] = targetsOf(tx, [body], 'item');
          const sub = upsertSubscription(tx, params.id, target, body.activated);
          return { id: sub.id, checkId: sub.checkId, groupId: sub.groupId, activated: sub.activated };
        }),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/alert-channels/:id',
    params: idParams,
    handle: ({ account, params }) =>
      deleteRecord(store, account, COLL.alertChannels, params.id, (tx) => deleteSubscriptionsWhere(tx, (s) => s.alertChannelId === params.id)),
  }),
];
