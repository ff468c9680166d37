import type { AccountView, StoredRecord, Transaction } from '../store/store.js';
import { COLL } from '../kinds.js';

/**
 * Alert subscriptions: one store behind an alert channel's `subscriptions` and a check's
 * `alertChannelSubscriptions` (api-decisions §3.5). Integer ids, service-wide counter.
 */
export interface Subscription extends StoredRecord {
  id: number;
  alertChannelId: number;
  checkId: string | null;
  groupId: number | null;
  activated: boolean;
}

/** What a subscription points at: a check or a group. */
export type SubscriptionTarget = { checkId: string } | { groupId: number };

/** Every subscription of the account, oldest (lowest id) first. */
export function allSubscriptions(view: AccountView): Subscription[] {
  return view.list<Subscription>(COLL.alertSubscriptions);
}

/** Subscriptions grouped by check id (one pass, for lists of checks). */
export function subscriptionsByCheck(view: AccountView): Map<string, Subscription[]> {
  const out = new Map<string, Subscription[]>();
  for (const s of allSubscriptions(view)) {
    if (s.checkId === null) continue;
    const list = out.get(s.checkId);
    if (list) list.push(s);
    else out.set(s.checkId, [s]);
  }
  return out;
}

/** The channel's subscriptions as returned in its `subscriptions`. */
export function channelSubscriptions(view: AccountView, alertChannelId: number): Subscription[] {
  return allSubscriptions(view).filter((s) => s.alertChannelId === alertChannelId);
}

function sameTarget(s: Subscription, target: SubscriptionTarget): boolean {
  return 'checkId' in target ? s.checkId === target.checkId : s.groupId === target.groupId;
}

/** Creates or updates the one subscription of (channel, target) and returns it. */
export function upsertSubscription(tx: Transaction, alertChannelId: number, target: SubscriptionTarget, activated: boolean): Subscription {
  const existing = allSubscriptions(tx).find((s) => s.alertChannelId === alertChannelId && sameTarget(s, target));
  const sub: Subscription = existing
    ? { ...existing, activated }
    : {
        id: tx.nextInt(COLL.alertSubscriptions),
        alertChannelId,
        checkId: 'checkId' in target ? target.checkId : null,
        groupId: 'groupId' in target ? target.groupId : null,
        activated,
      };
  tx.put(COLL.alertSubscriptions, sub.id, sub);
  return sub;
}

/** Makes a check's subscriptions exactly `items` (a later item for the same channel wins). */
export function replaceCheckSubscriptions(tx: Transaction, checkId: string, items: Array<{ alertChannelId: number; activated: boolean }>): void {
  const wanted = new Map(items.map((i) => [i.alertChannelId, i.activated]));
  for (const s of allSubscriptions(tx)) {
    if (s.checkId === checkId && !wanted.has(s.alertChannelId)) tx.delete(COLL.alertSubscriptions, s.id);
  }
  for (const [alertChannelId, activated] of wanted) upsertSubscription(tx, alertChannelId, { checkId }, activated);
}

/** Makes a channel's subscriptions exactly `items`. */
export function replaceChannelSubscriptions(tx: Transaction, alertChannelId: number, items: Array<SubscriptionTarget & { activated: boolean }>): void {
  const keep = new Set<number>();
  for (const item of items) keep.add(upsertSubscription(tx, alertChannelId, item, item.activated).id);
  for (const s of channelSubscriptions(tx, alertChannelId)) if (!keep.has(s.id)) tx.delete(COLL.alertSubscriptions, s.id);
}

/** Deletes every subscription matching `pred` (cascades of deleted checks, groups, channels). */
export function deleteSubscriptionsWhere(tx: Transaction, pred: (s: Subscription) => boolean): void {
  for (const s of allSubscriptions(tx)) if (pred(s)) tx.delete(COLL.alertSubscriptions, s.id);
}
