/**
 * Adding e-mail subscriptions to a status page: one rule for the API's bulk endpoint and the
 * public page's subscribe form. Addresses compare case-insensitively; one already subscribed to
 * the page (or repeated in the same call) is skipped.
 */
import { STATUS_COLL } from '../rundata/collections.js';
import type { Transaction } from '../store/store.js';
import type { Subscription } from './model.js';

/** Stages the new subscriptions in `tx` (the caller commits) and returns them. */
export function addSubscriptions(
  tx: Transaction,
  statusPageId: string,
  addresses: string[],
  status: Subscription['status'],
  isoNow: () => string,
): Subscription[] {
  const known = new Set(
    tx
      .list<Subscription>(STATUS_COLL.subscriptions)
      .filter((s) => s.statusPageId === statusPageId)
      .map((s) => s.address.toLowerCase()),
  );
  const made: Subscription[] = [];
  for (const address of addresses) {
    const key = address.toLowerCase();
    if (known.has(key)) continue;
    known.add(key);
    const sub: Subscription = { id: tx.uuid(), statusPageId, type: 'EMAIL', address, status, created_at: isoNow(), updated_at: null };
    tx.put(STATUS_COLL.subscriptions, sub.id, sub);
    made.push(sub);
  }
  return made;
}
