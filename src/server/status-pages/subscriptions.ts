/**
 * E-mail subscriptions of status pages: one set of rules for the API's bulk endpoint, the public
 * subscribe form, unsubscribe links and the incident mails. Every write of one address costs the
 * same however many subscriptions the account holds: an address's subscriptions are found through
 * its subscriber record (id: sha256 of the address, lower case), a page's count is a tally record,
 * and nothing lists the subscriptions to add one. Addresses compare case-insensitively.
 */
import { createHash } from 'node:crypto';
import { STATUS_COLL } from '../rundata/collections.js';
import type { AccountView, Store, Transaction } from '../store/store.js';
import { SERVICE_ACCOUNT, SERVICE_SETTINGS } from './links.js';
import type { Subscription } from './model.js';

/** Subscriptions a page may have at most. */
export const MAX_SUBSCRIPTIONS_PER_PAGE = 10_000;
/** Subscriptions one address may have at most, across the pages of an account. */
export const MAX_SUBSCRIPTIONS_PER_ADDRESS = 20;
/** Mails one address is sent at most per hour by an account (confirmations and incident mails); the excess is dropped. */
export const MAX_MAILS_PER_ADDRESS_PER_HOUR = 10;
/** How long an unconfirmed subscription lasts (and its confirmation link). */
export const PENDING_TTL_MS = 48 * 3_600_000;
const HOUR_MS = 3_600_000;

/** An address's record: its subscriptions (by page) and the mails sent to it in the current hour. */
export interface SubscriberRecord {
  [key: string]: unknown;
  id: string;
  subscriptions: Array<{ id: string; statusPageId: string }>;
  /** Start of the hour window (epoch ms) and mails counted in it. */
  mailHourMs: number;
  mails: number;
}

/** A page's tally. */
interface Tally {
  [key: string]: unknown;
  id: string;
  count: number;
}

/** The subscriber record's id of an address: sha256 of it, trimmed and lower case. */
export function addressKey(address: string): string {
  return createHash('sha256').update(address.trim().toLowerCase()).digest('hex');
}

/** When an unconfirmed subscription ends (its confirmation link too). */
export function pendingUntilMs(sub: Subscription): number {
  return Date.parse(sub.created_at) + PENDING_TTL_MS;
}

/** An unconfirmed subscription past its time: treated as absent wherever it is read. */
export function isExpired(sub: Subscription, nowMs: number): boolean {
  return sub.status === 'PENDING' && pendingUntilMs(sub) <= nowMs;
}

/** The subscriber record of an address, or undefined. */
export function subscriberOf(src: AccountView, address: string): SubscriberRecord | undefined {
  return src.get<SubscriberRecord>(STATUS_COLL.subscribers, addressKey(address));
}

/** The live subscription of an address to a page: keyed reads only (the address's record, then one subscription). */
export function findSubscription(src: AccountView, statusPageId: string, address: string, nowMs: number): Subscription | undefined {
  const entry = subscriberOf(src, address)?.subscriptions.find((s) => s.statusPageId === statusPageId);
  const sub = entry ? src.get<Subscription>(STATUS_COLL.subscriptions, entry.id) : undefined;
  return sub && !isExpired(sub, nowMs) ? sub : undefined;
}

/** How many subscriptions a page has (expired unconfirmed ones included until they are removed). */
export function pageTally(src: AccountView, statusPageId: string): number {
  return src.get<Tally>(STATUS_COLL.subscriptionTallies, statusPageId)?.count ?? 0;
}

function addToTally(tx: Transaction, statusPageId: string, delta: number): void {
  const count = Math.max(0, pageTally(tx, statusPageId) + delta);
  if (count === 0) tx.delete(STATUS_COLL.subscriptionTallies, statusPageId);
  else tx.put(STATUS_COLL.subscriptionTallies, statusPageId, { id: statusPageId, count } satisfies Tally);
}

function putSubscriber(tx: Transaction, rec: SubscriberRecord, nowMs: number): void {
  // Nothing left to remember: no subscription, and no mail counted in the current hour.
  if (rec.subscriptions.length === 0 && (rec.mails === 0 || rec.mailHourMs + HOUR_MS <= nowMs)) tx.delete(STATUS_COLL.subscribers, rec.id);
  else tx.put(STATUS_COLL.subscribers, rec.id, rec);
}

function subscriberFor(tx: Transaction, address: string): SubscriberRecord {
  const id = addressKey(address);
  const rec = tx.get<SubscriberRecord>(STATUS_COLL.subscribers, id);
  return rec ? { ...rec, subscriptions: [...rec.subscriptions] } : { id, subscriptions: [], mailHourMs: 0, mails: 0 };
}

/** What adding one address to a page came to. */
export type AddOutcome =
  | { kind: 'created'; subscription: Subscription }
  | { kind: 'exists'; subscription: Subscription }
  | { kind: 'page-full' }
  | { kind: 'address-full' };

/**
 * Stages the subscription of `address` to a page in `tx` (the caller commits): its record, the
 * address's record and the page's tally. An existing one (an expired unconfirmed one is removed
 * first, as are the address's other expired ones) is returned as it is.
 */
export function addSubscription(tx: Transaction, statusPageId: string, address: string, status: Subscription['status'], nowMs: number): AddOutcome {
  const rec = subscriberFor(tx, address);
  const kept: SubscriberRecord['subscriptions'] = [];
  for (const entry of rec.subscriptions) {
    const sub = tx.get<Subscription>(STATUS_COLL.subscriptions, entry.id);
    if (sub && !isExpired(sub, nowMs)) {
      if (entry.statusPageId === statusPageId) return { kind: 'exists', subscription: sub };
      kept.push(entry);
    } else if (sub) {
      tx.delete(STATUS_COLL.subscriptions, sub.id);
      addToTally(tx, sub.statusPageId, -1);
    }
  }
  rec.subscriptions = kept;
  let outcome: AddOutcome;
  if (pageTally(tx, statusPageId) >= MAX_SUBSCRIPTIONS_PER_PAGE) outcome = { kind: 'page-full' };
  else if (kept.length >= MAX_SUBSCRIPTIONS_PER_ADDRESS) outcome = { kind: 'address-full' };
  else {
    const iso = new Date(nowMs).toISOString();
    const sub: Subscription = { id: tx.uuid(), statusPageId, type: 'EMAIL', address: address.trim(), status, created_at: iso, updated_at: null };
    tx.put(STATUS_COLL.subscriptions, sub.id, sub);
    rec.subscriptions.push({ id: sub.id, statusPageId });
    addToTally(tx, statusPageId, 1);
    outcome = { kind: 'created', subscription: sub };
  }
  putSubscriber(tx, rec, nowMs);
  return outcome;
}

/** Stages the removal of a subscription with its entry in the address's record and the page's tally. */
export function removeSubscription(tx: Transaction, sub: Subscription, nowMs: number): void {
  tx.delete(STATUS_COLL.subscriptions, sub.id);
  addToTally(tx, sub.statusPageId, -1);
  const rec = subscriberFor(tx, sub.address);
  rec.subscriptions = rec.subscriptions.filter((s) => s.id !== sub.id);
  putSubscriber(tx, rec, nowMs);
}

/** Stages the removal of every subscription of a page (the page is deleted). */
export function removePageSubscriptions(tx: Transaction, statusPageId: string, nowMs: number): void {
  for (const sub of tx.list<Subscription>(STATUS_COLL.subscriptions)) if (sub.statusPageId === statusPageId) removeSubscription(tx, sub, nowMs);
  tx.delete(STATUS_COLL.subscriptionTallies, statusPageId);
}

/**
 * Counts one mail to `address` against its hourly allowance (staged in `tx`); false when the
 * allowance is spent: the mail is not to be sent.
 */
export function takeMailAllowance(tx: Transaction, address: string, nowMs: number): boolean {
  const rec = subscriberFor(tx, address);
  if (rec.mailHourMs + HOUR_MS <= nowMs) {
    rec.mailHourMs = nowMs;
    rec.mails = 0;
  }
  if (rec.mails >= MAX_MAILS_PER_ADDRESS_PER_HOUR) return false;
  rec.mails += 1;
  putSubscriber(tx, rec, nowMs);
  return true;
}

/** The record (in each account's SERVICE_SETTINGS) saying its subscriptions have their subscriber records and tallies. */
const INDEXED_MARK = 'subscriptions-indexed';

/**
 * Builds the subscriber records and tallies of subscriptions stored before they existed: once per
 * account (a mark records it), at the service's start. Returns how many subscriptions it indexed.
 */
export function indexSubscriptions(store: Store, nowMs: number): number {
  let n = 0;
  for (const account of store.accountIds()) {
    if (account === SERVICE_ACCOUNT || store.get(account, SERVICE_SETTINGS, INDEXED_MARK)) continue;
    const tx = store.begin(account);
    for (const sub of tx.list<Subscription>(STATUS_COLL.subscriptions)) {
      const rec = subscriberFor(tx, sub.address);
      if (rec.subscriptions.some((s) => s.id === sub.id)) continue;
      rec.subscriptions.push({ id: sub.id, statusPageId: sub.statusPageId });
      putSubscriber(tx, rec, nowMs);
      addToTally(tx, sub.statusPageId, 1);
      n++;
    }
    tx.put(SERVICE_SETTINGS, INDEXED_MARK, { at: new Date(nowMs).toISOString() });
    tx.commit();
  }
  return n;
}
