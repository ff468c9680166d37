import { created, noContent, ok, type Reply } from './route.js';
import { mustGet } from './lookup.js';
import type { Store, StoredRecord, Transaction } from '../store/store.js';

/**
 * The write scaffolding of the API's routes: one transaction per request, staged synchronously
 * and committed in the same tick (so no other request interleaves between its reads and its
 * commit). A validation that throws before the commit writes nothing: a refusal never leaves a
 * half-made change. These are thin on purpose; a route with more to do (mails queued, agents
 * forgotten after the commit) uses `inTransaction` and does the rest itself.
 */

/** Runs `stage` in a new transaction of `account` and commits what it staged; when it throws, nothing is written. */
export function inTransaction<T>(store: Store, account: string, stage: (tx: Transaction) => T): T {
  const tx = store.begin(account);
  const result = stage(tx);
  tx.commit();
  return result;
}

/**
 * POST: stores the record `build` makes (validating, and taking its ids from the transaction)
 * and answers 201 with `view` of it, read after the commit (default: the record itself).
 */
export function createRecord<R extends StoredRecord & { id: string | number }>(
  store: Store,
  account: string,
  kind: string,
  build: (tx: Transaction) => R,
  view: (record: R, tx: Transaction) => unknown = (record) => record,
): Reply {
  const tx = store.begin(account);
  const record = build(tx);
  tx.put(kind, record.id, record);
  tx.commit();
  return created(view(record, tx));
}

/**
 * PUT/PATCH: the stored record (404 when it is missing or another account's) replaced by what
 * `next` makes of it (validating first); answers 200 with `view` of it, read after the commit.
 */
export function updateRecord<R extends StoredRecord>(
  store: Store,
  account: string,
  kind: string,
  id: string | number,
  next: (stored: R, tx: Transaction) => R,
  view: (record: R, tx: Transaction) => unknown = (record) => record,
): Reply {
  const tx = store.begin(account);
  const record = next(mustGet<R>(tx, kind, id), tx);
  tx.put(kind, id, record);
  tx.commit();
  return ok(view(record, tx));
}

/**
 * DELETE: the stored record (404 when missing) deleted, with what `also` stages in the same
 * write (references cleared, records it owns deleted; a conflict it throws refuses the delete);
 * answers 204.
 */
export function deleteRecord<R extends StoredRecord = StoredRecord>(
  store: Store,
  account: string,
  kind: string,
  id: string | number,
  also?: (tx: Transaction, stored: R) => void,
): Reply {
  const tx = store.begin(account);
  const stored = mustGet<R>(tx, kind, id);
  tx.delete(kind, id);
  also?.(tx, stored);
  tx.commit();
  return noContent();
}
